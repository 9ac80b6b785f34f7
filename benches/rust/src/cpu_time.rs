//! A criterion measurement of the benchmark thread's CPU time.
//!
//! The project machine has 2 cores shared with other engineers' builds: a
//! wall-clock sample counts the time the benchmark waited for a core, which
//! grows and shrinks with everyone else's load, so rows measured a few seconds
//! apart are not comparable. The thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`)
//! counts only the time the benchmark ran. Caches and memory bandwidth are
//! still shared, so figures under load stay below a quiet machine's; compare
//! rows of one run.
//!
//! For in-process benchmarks only: work done by another thread or process
//! (a server at the other end of a pipe) is not counted.

use std::time::Duration;

use cpu_time::ThreadTime;
use criterion::measurement::{Measurement, ValueFormatter};
use criterion::Throughput;

/// CPU time of the thread running the benchmark.
#[derive(Debug, Clone, Copy, Default)]
pub struct ThreadCpuTime;

impl Measurement for ThreadCpuTime {
    type Intermediate = ThreadTime;
    type Value = Duration;

    fn start(&self) -> ThreadTime {
        ThreadTime::now()
    }

    fn end(&self, start: ThreadTime) -> Duration {
        start.elapsed()
    }

    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }

    fn zero(&self) -> Duration {
        Duration::ZERO
    }

    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuFormatter
    }
}

/// Nanoseconds of CPU time shown as criterion shows wall time; rates in
/// decimal units (MB/s, elements/s).
struct CpuFormatter;

fn per_second(
    amount: f64,
    typical_ns: f64,
    values: &mut [f64],
    units: [&'static str; 4],
) -> &'static str {
    let rate = amount * 1e9 / typical_ns;
    let (scale, unit) = if rate < 1e3 {
        (1.0, units[0])
    } else if rate < 1e6 {
        (1e3, units[1])
    } else if rate < 1e9 {
        (1e6, units[2])
    } else {
        (1e9, units[3])
    };
    for value in values {
        *value = amount * 1e9 / *value / scale;
    }
    unit
}

impl ValueFormatter for CpuFormatter {
    fn scale_throughputs(
        &self,
        typical: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        match *throughput {
            Throughput::Bytes(bytes) | Throughput::BytesDecimal(bytes) => per_second(
                bytes as f64,
                typical,
                values,
                ["B/s", "KB/s", "MB/s", "GB/s"],
            ),
            Throughput::Elements(count) => per_second(
                count as f64,
                typical,
                values,
                ["elem/s", "Kelem/s", "Melem/s", "Gelem/s"],
            ),
            Throughput::Bits(bits) => per_second(
                bits as f64,
                typical,
                values,
                ["b/s", "Kb/s", "Mb/s", "Gb/s"],
            ),
        }
    }

    fn scale_values(&self, typical_ns: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = if typical_ns < 1e3 {
            (1.0, "ns (CPU)")
        } else if typical_ns < 1e6 {
            (1e-3, "µs (CPU)")
        } else if typical_ns < 1e9 {
            (1e-6, "ms (CPU)")
        } else {
            (1e-9, "s (CPU)")
        };
        for value in values {
            *value *= factor;
        }
        unit
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}
