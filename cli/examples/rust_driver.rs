//! An AgentAPI driver on the Rust serve loop: `cargo run -p wirekit-cli
//! --example rust_driver` serves the driver protocol on stdin and stdout.
//!
//! Its one operation, `fs.digest`, reads the file named by the invocation's
//! input handle (`{"kind": "pipe", "value": PATH}`) in 64 KiB chunks on a
//! worker thread, one `driver.observation` a chunk (offset, length, the
//! chunk's SHA-256) sent through the serve loop's [`Outbox`], then
//! `driver.completed` with the whole file's digest. A `?delay_ms=N` suffix
//! on the path sleeps between chunks, so a test can cancel mid-way; the
//! loop keeps reading while the worker runs, so `driver.cancel` is answered
//! at once and the worker ends the invocation `cancelled`.

use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wirekit::envelope::{ErrorObject, Notification};
use wirekit::serve::{outbox, Batching, Handler, Outbox, ServeOptions, Server};

mod sha256 {
    //! FIPS 180-4 SHA-256, enough for the driver's digests.
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];

    /// An incremental SHA-256.
    pub struct Sha256 {
        state: [u32; 8],
        block: Vec<u8>,
        length: u64,
    }

    impl Sha256 {
        pub fn new() -> Self {
            Sha256 {
                state: [
                    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c,
                    0x1f83d9ab, 0x5be0cd19,
                ],
                block: Vec::with_capacity(64),
                length: 0,
            }
        }

        pub fn update(&mut self, mut data: &[u8]) {
            self.length = self.length.wrapping_add(data.len() as u64);
            while !data.is_empty() {
                let take = (64 - self.block.len()).min(data.len());
                self.block.extend_from_slice(&data[..take]);
                data = &data[take..];
                if self.block.len() == 64 {
                    let block = std::mem::take(&mut self.block);
                    self.compress(&block);
                    self.block = block;
                    self.block.clear();
                }
            }
        }

        /// `sha256:` and 64 lowercase hex digits.
        pub fn finish(mut self) -> String {
            let bits = self.length.wrapping_mul(8);
            self.update(&[0x80]);
            while self.block.len() != 56 {
                self.update(&[0]);
            }
            let mut block = std::mem::take(&mut self.block);
            block.extend_from_slice(&bits.to_be_bytes());
            self.compress(&block);
            let hex: String = self.state.iter().map(|w| format!("{w:08x}")).collect();
            format!("sha256:{hex}")
        }

        fn compress(&mut self, block: &[u8]) {
            let mut w = [0u32; 64];
            for (i, word) in block.chunks_exact(4).enumerate() {
                w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
            }
            for i in 16..64 {
                let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
                let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
                w[i] = w[i - 16]
                    .wrapping_add(s0)
                    .wrapping_add(w[i - 7])
                    .wrapping_add(s1);
            }
            let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = self.state;
            for i in 0..64 {
                let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
                let ch = (e & f) ^ (!e & g);
                let t1 = h
                    .wrapping_add(s1)
                    .wrapping_add(ch)
                    .wrapping_add(K[i])
                    .wrapping_add(w[i]);
                let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
                let maj = (a & b) ^ (a & c) ^ (b & c);
                let t2 = s0.wrapping_add(maj);
                (h, g, f, e, d, c, b, a) =
                    (g, f, e, d.wrapping_add(t1), c, b, a, t1.wrapping_add(t2));
            }
            for (slot, value) in self.state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
                *slot = slot.wrapping_add(value);
            }
        }
    }

    /// The digest of `data`.
    pub fn digest(data: &[u8]) -> String {
        let mut hasher = Sha256::new();
        hasher.update(data);
        hasher.finish()
    }
}

const CHUNK: usize = 64 * 1024;

fn capabilities() -> Value {
    json!({
        "protocols": ["fs"], "operations": ["fs.digest"], "streaming": true,
        "cancellation": true, "retry_observed": false, "concurrency": false, "max_concurrency": 1
    })
}

struct Driver {
    outbox: Outbox,
    started: Instant,
    cancel: Arc<AtomicBool>,
    worker: Option<thread::JoinHandle<()>>,
}

impl Driver {
    fn invoke(&mut self, params: &Value) -> Result<Value, ErrorObject> {
        // Only the operations the driver declared run; another is the
        // mismatch the reference names (`capability_mismatch`).
        let operation = params["operation"].as_str().unwrap_or_default();
        let declared = capabilities();
        let runs = declared["operations"]
            .as_array()
            .is_some_and(|ops| ops.iter().any(|op| op == operation));
        if !runs {
            return Err(ErrorObject::new(
                -32000,
                format!("unknown operation {operation:?}; this driver runs: fs.digest"),
            )
            .with_data(json!({"class": "capability_mismatch"})));
        }
        let spec = params["ephemeral_exact_input_handle"]["value"]
            .as_str()
            .unwrap_or_default();
        let (path, delay) = match spec.split_once("?delay_ms=") {
            Some((path, ms)) => (path, ms.parse().unwrap_or(0)),
            None => (spec, 0),
        };
        let file = std::fs::File::open(path).map_err(|e| {
            ErrorObject::new(-32000, format!("cannot open {path}: {e}"))
                .with_data(json!({"class": "invalid_request"}))
        })?;
        if let Some(previous) = self.worker.take() {
            let _ = previous.join();
        }
        self.cancel = Arc::new(AtomicBool::new(false));
        let job = Job {
            outbox: self.outbox.clone(),
            started: self.started,
            cancel: Arc::clone(&self.cancel),
            invocation: params["invocation_id"].clone(),
            attempt: params["attempt_id"].clone(),
            delay: Duration::from_millis(delay),
        };
        self.worker = Some(thread::spawn(move || job.run(file)));
        Ok(json!({}))
    }
}

/// One invocation's work, on its own thread.
struct Job {
    outbox: Outbox,
    started: Instant,
    cancel: Arc<AtomicBool>,
    invocation: Value,
    attempt: Value,
    delay: Duration,
}

impl Job {
    fn run(self, mut file: std::fs::File) {
        let mut whole = sha256::Sha256::new();
        let mut chunk = vec![0u8; CHUNK];
        let (mut offset, mut last) = (0u64, None::<u64>);
        let status = loop {
            if self.cancel.load(Ordering::SeqCst) {
                break "cancelled";
            }
            let read = match file.read(&mut chunk) {
                Ok(0) => break "completed",
                Ok(read) => read,
                Err(_) => break "errored",
            };
            whole.update(&chunk[..read]);
            let sequence = last.map_or(1, |s| s + 1);
            let observed = self.notify(
                "driver.observation",
                json!({
                    "invocation_id": self.invocation, "attempt_id": self.attempt,
                    "sequence": sequence, "kind": "fs.chunk",
                    "monotonic_ns": self.started.elapsed().as_nanos() as u64,
                    "payload": {"offset": offset, "length": read, "digest": sha256::digest(&chunk[..read])},
                }),
            );
            if !observed {
                return;
            }
            last = Some(sequence);
            offset += read as u64;
            thread::sleep(self.delay);
        };
        let mut completed = json!({
            "invocation_id": self.invocation, "attempt_id": self.attempt,
            "status": status, "summary_digest": whole.finish(),
        });
        if let Some(last) = last {
            completed["last_sequence"] = json!(last);
        }
        self.notify("driver.completed", completed);
    }

    fn notify(&self, method: &str, params: Value) -> bool {
        self.outbox
            .send(Notification::new(method, Some(params)))
            .is_ok()
    }
}

impl Handler for Driver {
    fn implements(&self, method: &str) -> bool {
        matches!(
            method,
            "driver.hello"
                | "driver.prepare"
                | "driver.capabilities"
                | "driver.invoke"
                | "driver.cancel"
                | "driver.reset"
                | "driver.shutdown"
        )
    }

    fn handle(&mut self, method: &str, params: Option<Value>) -> Result<Value, ErrorObject> {
        let params = params.unwrap_or(Value::Null);
        Ok(match method {
            "driver.hello" => json!({
                "driver_version_range": {"minimum": "1.0.0", "maximum": "1.0.0"},
                "identity": {
                    "name": "wirekit-rust-driver", "version": env!("CARGO_PKG_VERSION"),
                    "runtime_name": "rust", "runtime_version": "stable",
                    "os": std::env::consts::OS, "architecture": std::env::consts::ARCH,
                    "artifact_digest": sha256::digest(b"wirekit-rust-driver"),
                },
                "capabilities": capabilities(),
                "requested_permissions": ["filesystem-read"],
            }),
            "driver.prepare" => {
                let approved = params["approved_permissions"].clone();
                json!({"accepted_permissions": if approved.is_null() { json!([]) } else { approved }})
            }
            "driver.capabilities" => json!({"capabilities": capabilities()}),
            "driver.invoke" => return self.invoke(&params),
            "driver.cancel" => {
                self.cancel.store(true, Ordering::SeqCst);
                json!({"acknowledged": true})
            }
            _ => json!({}),
        })
    }
}

fn main() -> std::process::ExitCode {
    let protocol = match wirekit_protocols::protocol("agentapi-driver") {
        Ok(protocol) => protocol,
        Err(error) => {
            eprintln!("rust_driver: {error}");
            return std::process::ExitCode::from(2);
        }
    };
    let (outbox, inbox) = outbox();
    let mut driver = Driver {
        outbox,
        started: Instant::now(),
        cancel: Arc::new(AtomicBool::new(false)),
        worker: None,
    };
    let mut server = Server::new(protocol, ServeOptions::default());
    // Answers and notifications to a pipelining harness share writes.
    let served = server.serve_with_outbox_batched(
        &mut driver,
        inbox,
        std::io::stdin(),
        std::io::stdout(),
        Batching::default(),
    );
    match served {
        Ok(_) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("rust_driver: {error}");
            std::process::ExitCode::from(1)
        }
    }
}
