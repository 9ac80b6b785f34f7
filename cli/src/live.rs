//! A live line on standard error while a call is pending: which method, for
//! how long. Shown only when standard error is a terminal (a log or a pipe
//! gets nothing), and only once a call has taken a moment, so quick calls
//! do not flicker.

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a call runs before its line appears.
const DELAY: Duration = Duration::from_millis(300);
/// How often the elapsed time is redrawn.
const TICK: Duration = Duration::from_millis(100);

/// The pending call's line; dropping it erases the line.
pub struct LiveLine {
    done: Arc<(Mutex<bool>, Condvar)>,
    painter: Option<JoinHandle<()>>,
}

impl LiveLine {
    /// Starts the line for `label` (e.g. "waiting for `analyze`"), or does
    /// nothing when standard error is not a terminal.
    pub fn start(prefix: &'static str, label: String) -> LiveLine {
        let done = Arc::new((Mutex::new(false), Condvar::new()));
        let painter = std::io::stderr().is_terminal().then(|| {
            let done = Arc::clone(&done);
            std::thread::spawn(move || paint(prefix, &label, &done))
        });
        LiveLine { done, painter }
    }
}

impl Drop for LiveLine {
    fn drop(&mut self) {
        let (flag, wake) = &*self.done;
        if let Ok(mut finished) = flag.lock() {
            *finished = true;
        }
        wake.notify_all();
        if let Some(painter) = self.painter.take() {
            let _ = painter.join();
        }
    }
}

fn paint(prefix: &str, label: &str, done: &(Mutex<bool>, Condvar)) {
    let started = Instant::now();
    let (flag, wake) = done;
    let Ok(mut finished) = flag.lock() else {
        return;
    };
    let mut shown = false;
    let mut wait = DELAY;
    while !*finished {
        finished = match wake.wait_timeout(finished, wait) {
            Ok((guard, _)) => guard,
            Err(_) => return,
        };
        if *finished {
            break;
        }
        let elapsed = started.elapsed().as_secs_f64();
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{prefix}: {label} … {elapsed:.1}s");
        let _ = err.flush();
        shown = true;
        wait = TICK;
    }
    if shown {
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K");
        let _ = err.flush();
    }
}
