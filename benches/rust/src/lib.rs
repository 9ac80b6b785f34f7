//! The workload the wirekit benchmarks share: 64 MiB of realistic JSON-RPC
//! traffic, built deterministically, and the same traffic framed as NDJSON
//! and as `Content-Length`.
//!
//! The traffic is what a client and an analyzer exchange: many small requests
//! (about 150 bytes, an LSP-style position request) and, every 301 requests,
//! one Gaze `analyze` result of about 50 KB. 64 MiB holds about 198,000
//! requests and 660 results. A few strings carry non-ASCII text, as real
//! file names and descriptions do.
//!
//! Also the measurement the in-process benchmarks use, the benchmark
//! thread's CPU time ([`ThreadCpuTime`]): the machine is shared.

mod cpu_time;

pub use cpu_time::ThreadCpuTime;

/// The size of the benchmark traffic, in body bytes plus framing.
pub const TRAFFIC_BYTES: usize = 64 * 1024 * 1024;

/// Requests between two large results.
const REQUESTS_PER_RESULT: usize = 301;

/// Functions in one large result (about 50 KB of JSON).
const FUNCTIONS_PER_RESULT: usize = 72;

/// A small request, about 150 bytes.
pub fn small_request(id: usize) -> String {
    let module = id % 37;
    let file = id % 11;
    let accent = if id % 50 == 0 { "é" } else { "e" };
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"textDocument/hover","params":{{"textDocument":{{"uri":"file:///project/src/modul{accent}_{module}/file_{file}.rs"}},"position":{{"line":{},"character":{}}}}}}}"#,
        10 + id % 400,
        id % 80
    )
}

/// A Gaze `analyze` result of about 50 KB, answering request `id`.
pub fn large_result(id: usize) -> String {
    const KINDS: [(&str, &str, &str); 4] = [
        ("ReturnValue", "returns metric", "result"),
        ("ErrorReturn", "raises ValueError", "ValueError"),
        ("ReceiverMutation", "assigns self.cache", "self.cache"),
        ("FileSystemWrite", "écrit le rapport", "report_path"),
    ];
    const LABELS: [&str; 3] = ["contractual", "incidental", "ambiguous"];
    let mut functions = Vec::with_capacity(FUNCTIONS_PER_RESULT);
    for index in 0..FUNCTIONS_PER_RESULT {
        let n = id.wrapping_mul(31).wrapping_add(index);
        let module = format!("project/pkg_{}/mod_{}.py", n % 37, n % 11);
        let effects: Vec<String> = (0..3)
            .map(|position| {
                let (kind, description, target) = KINDS[(n + position) % KINDS.len()];
                format!(
                    r#"{{"type":"{kind}","description":"{description} {n}","location":"{module}:{}:{}","target":"{target}","classification":{{"label":"{}","confidence":{}}}}}"#,
                    10 + n % 400,
                    5 + position * 4,
                    LABELS[position % 3],
                    50 + (n * 7 + position) % 50
                )
            })
            .collect();
        functions.push(format!(
            r#"{{"name":"compute_metric_{n}","package":"project.pkg_{}.mod_{}","file":"{module}","line":{},"side_effects":[{}]}}"#,
            n % 37,
            n % 11,
            10 + n % 400,
            effects.join(",")
        ));
    }
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"functions":[{}]}}}}"#,
        functions.join(",")
    )
}

/// The message bodies of `total` bytes of traffic (framing overhead
/// counted as NDJSON's one LF a message), in stream order.
pub fn bodies(total: usize) -> Vec<String> {
    let mut bodies = Vec::new();
    let mut size = 0;
    let mut id = 0;
    while size < total {
        id += 1;
        let body = if id % (REQUESTS_PER_RESULT + 1) == 0 {
            large_result(id)
        } else {
            small_request(id)
        };
        size += body.len() + 1;
        bodies.push(body);
    }
    bodies
}

/// The bodies as NDJSON: each followed by one LF.
pub fn ndjson_stream(bodies: &[String]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bodies.iter().map(|b| b.len() + 1).sum());
    for body in bodies {
        out.extend_from_slice(body.as_bytes());
        out.push(b'\n');
    }
    out
}

/// The bodies as `Content-Length` frames.
pub fn content_length_stream(bodies: &[String]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bodies.iter().map(|b| b.len() + 24).sum());
    for body in bodies {
        out.extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
        out.extend_from_slice(body.as_bytes());
    }
    out
}

/// Counts of the workload, for the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrafficShape {
    /// Small requests.
    pub requests: usize,
    /// Large results.
    pub results: usize,
    /// Mean size of a large result, bytes.
    pub mean_result_bytes: usize,
}

/// What `bodies` holds.
pub fn shape(bodies: &[String]) -> TrafficShape {
    let large: Vec<usize> = bodies
        .iter()
        .map(String::len)
        .filter(|&len| len > 4096)
        .collect();
    TrafficShape {
        requests: bodies.len() - large.len(),
        results: large.len(),
        mean_result_bytes: large.iter().sum::<usize>() / large.len().max(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traffic_is_json_of_the_stated_shape() {
        let bodies = bodies(TRAFFIC_BYTES);
        let shape = shape(&bodies);
        assert!((195_000..202_000).contains(&shape.requests), "{shape:?}");
        assert!((640..680).contains(&shape.results), "{shape:?}");
        assert!(
            (40_000..60_000).contains(&shape.mean_result_bytes),
            "{shape:?}"
        );
        assert!(!bodies.iter().any(|b| b.contains('\n')));
    }
}
