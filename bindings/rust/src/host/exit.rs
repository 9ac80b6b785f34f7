//! Ending a server process the way its protocol says: its input is closed
//! (by the caller), it gets the exit grace to exit by itself; where the
//! protocol's host terminates a server (`host.terminate_grace_ms`, MCP's
//! stdio shutdown), it then gets SIGTERM and a second grace; only then
//! SIGKILL. Without `terminate_grace_ms`, SIGKILL follows the first grace.
//! (On platforms without signals SIGTERM is skipped.)

use std::io;
use std::process::{Child, ExitStatus};
use std::thread;
use std::time::{Duration, Instant};

/// How a server process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// It exited by itself within the exit grace.
    Exited(ExitStatus),
    /// It exited after SIGTERM, within the terminate grace.
    Terminated(ExitStatus),
    /// It was still running and was killed (SIGKILL).
    Killed(ExitStatus),
}

impl Ending {
    /// The exit status, however it came.
    pub fn status(self) -> ExitStatus {
        match self {
            Ending::Exited(status) | Ending::Terminated(status) | Ending::Killed(status) => status,
        }
    }

    /// `exited`, `terminated` or `killed`.
    pub fn name(self) -> &'static str {
        match self {
            Ending::Exited(_) => "exited",
            Ending::Terminated(_) => "terminated",
            Ending::Killed(_) => "killed",
        }
    }
}

/// Waits up to `grace` for `child` to exit; its status if it did.
pub fn wait_for_exit(child: &mut Child, grace: Duration) -> io::Result<Option<ExitStatus>> {
    let deadline = Instant::now() + grace;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
        thread::sleep(Duration::from_millis(10));
    }
}

/// Ends `child` (whose input the caller has closed): `grace` to exit,
/// then, with `terminate_grace`, SIGTERM and that long again, then SIGKILL.
pub fn end_process(
    child: &mut Child,
    grace: Duration,
    terminate_grace: Option<Duration>,
) -> io::Result<Ending> {
    if let Some(status) = wait_for_exit(child, grace)? {
        return Ok(Ending::Exited(status));
    }
    if let Some(second) = terminate_grace {
        if terminate(child) {
            if let Some(status) = wait_for_exit(child, second)? {
                return Ok(Ending::Terminated(status));
            }
        }
    }
    // It may have exited meanwhile: kill() then fails, wait() answers.
    let _ = child.kill();
    child.wait().map(Ending::Killed)
}

/// Sends SIGTERM; false where it could not be sent (no such signal here,
/// or the process is gone).
#[cfg(unix)]
fn terminate(child: &Child) -> bool {
    let pid = i32::try_from(child.id())
        .ok()
        .and_then(rustix::process::Pid::from_raw);
    pid.is_some_and(|pid| rustix::process::kill_process(pid, rustix::process::Signal::TERM).is_ok())
}

#[cfg(not(unix))]
fn terminate(_child: &Child) -> bool {
    false
}

#[cfg(all(test, unix))]
#[allow(clippy::panic)] // a test reports a failed expectation by panicking
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    fn python(script: &str) -> Child {
        Command::new("python3")
            .arg("-c")
            .arg(script)
            .stdin(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("python3: {e}"))
    }

    #[test]
    fn each_step_of_the_sequence_ends_what_it_can() {
        let grace = Duration::from_millis(300);
        let mut quick = python("pass");
        let ending = end_process(&mut quick, Duration::from_secs(5), Some(grace));
        assert!(matches!(ending, Ok(Ending::Exited(_))), "{ending:?}");

        let mut stubborn = python("import time\ntime.sleep(60)");
        let ending = end_process(&mut stubborn, grace, Some(grace));
        assert!(matches!(ending, Ok(Ending::Terminated(_))), "{ending:?}");

        let ignores_term = "import signal, sys, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('ready', flush=True)\ntime.sleep(60)";
        let mut deaf = Command::new("python3")
            .arg("-c")
            .arg(ignores_term)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("python3: {e}"));
        // Wait until the handler is in place.
        let mut line = String::new();
        if let Some(out) = deaf.stdout.as_mut() {
            let _ = std::io::BufRead::read_line(&mut std::io::BufReader::new(out), &mut line);
        }
        let ending = end_process(&mut deaf, grace, Some(grace));
        assert!(matches!(ending, Ok(Ending::Killed(_))), "{ending:?}");

        let mut stubborn = python("import time\ntime.sleep(60)");
        let ending = end_process(&mut stubborn, grace, None);
        assert!(matches!(ending, Ok(Ending::Killed(_))), "{ending:?}");
    }
}
