//! Hostile servers (issue 15), shared by the tests of every host that
//! spawns one (`drive_hostile.rs`, `conformance_hostile.rs`): each a Python
//! script, and a runner that samples the host's peak RSS while it runs and
//! kills it after 60 s, so a hang fails the test instead of stalling the
//! suite.

use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Floods stdout with lines that are not JSON.
pub const GARBAGE: &str = "import sys\nsys.stdin.readline()\nwhile True:\n    sys.stdout.write('garbage \\x00 not json\\n' * 1000)\n";

/// Sends one line that never ends.
pub const ENDLESS_LINE: &str =
    "import sys\nsys.stdin.readline()\nchunk = 'x' * 65536\nwhile True:\n    sys.stdout.write(chunk)\n";

/// Declares a `Content-Length` of 2 GiB (a Content-Length protocol).
pub const CONTENT_LENGTH_2_GIB: &str = "import sys, time\nsys.stdin.buffer.read(1)\nsys.stdout.write('Content-Length: 2147483648\\r\\n\\r\\n' + 'x' * 1000)\nsys.stdout.flush()\ntime.sleep(60)\n";

/// A Gaze `initialize` result.
const INIT_RESULT: &str = r#"{"capabilities": {"discover": False, "test_mapping": False, "classify_signals": False}, "analyzer_name": "a", "analyzer_version": "1", "protocol_version": "1.0.0", "language": "python"}"#;

/// Answers the first request with an id never sent (a Gaze protocol).
pub fn unsent_id() -> String {
    format!(
        "import sys, json\nsys.stdin.readline()\nprint(json.dumps({{'jsonrpc': '2.0', 'id': 999, 'result': {INIT_RESULT}}}), flush=True)\nsys.stdin.read()\n"
    )
}

/// Answers every request twice (a Gaze protocol).
pub fn twice() -> String {
    format!(
        "import sys, json\nfor line in sys.stdin:\n    rid = json.loads(line)['id']\n    for _ in range(2):\n        print(json.dumps({{'jsonrpc': '2.0', 'id': rid, 'result': {INIT_RESULT}}}), flush=True)\n"
    )
}

/// Never reads, never writes.
pub const SLEEPER: &str = "import time\ntime.sleep(3600)\n";

/// Closes stdout after the first line and keeps running.
pub const CLOSED_STDOUT: &str =
    "import os, sys, time\nsys.stdin.readline()\nos.close(1)\ntime.sleep(3600)\n";

/// Dies in the middle of its first answer.
pub const DIES_MID_FRAME: &str = "import sys\nsys.stdin.readline()\nsys.stdout.write('{\"jsonrpc\": \"2.0\", \"id\": 1, \"res')\nsys.stdout.flush()\nsys.stderr.write('dying now\\n')\nsys.exit(1)\n";

/// What one run of a host left.
pub struct Run {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    pub peak_rss_kib: u64,
}

impl Run {
    /// The host ended within `time` and kept its memory within the largest
    /// frame bound here (16 MiB) plus what the binary itself takes.
    pub fn assert_bounded(&self, name: &str, time: Duration) {
        assert!(self.elapsed < time, "{name}: took {:?}", self.elapsed);
        assert!(
            self.peak_rss_kib < 96 * 1024,
            "{name}: peak RSS {} KiB",
            self.peak_rss_kib
        );
    }
}

/// The peak resident size so far (`VmHWM`), in KiB; 0 once it is gone.
fn peak_rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmHWM:"))
                .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Runs the host `command` to its end, sampling its peak RSS; panics when
/// it has not ended after 60 s (`name` says which server it hung on).
pub fn watch(name: &str, command: &mut Command) -> Run {
    let started = Instant::now();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the host starts");
    let pid = child.id();
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let err_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut peak = 0;
    let status = loop {
        peak = peak.max(peak_rss_kib(pid));
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        let hung = started.elapsed() > Duration::from_secs(60);
        if hung {
            let _ = child.kill();
            let _ = child.wait();
        }
        assert!(!hung, "the host hung against the {name} server");
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        status,
        stdout: out_reader.join().expect("stdout reader"),
        stderr: err_reader.join().expect("stderr reader"),
        elapsed: started.elapsed(),
        peak_rss_kib: peak,
    }
}
