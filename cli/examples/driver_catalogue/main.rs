//! A catalogue of AgentAPI driver control frames, good and faulty, sent in
//! every lifecycle phase (NEW, HELLO, PREPARED, INVOKING) to a driver, and
//! every answer judged by a port of the protocol's reference package
//! (`reference.rs`): each answer line must be a response its decoder
//! accepts, and the verdict (no answer; a result; an error of a class; the
//! id) must be the one a driver built on the package gives.
//!
//! `cargo run -p wirekit-cli --example driver_catalogue -- [--op OPERATION]
//! [--input VALUE] -- DRIVER ARGS...` prints one line a disagreement and a
//! summary; exit status 0 when every verdict agrees. `--op` and `--input`
//! are the driver's own long-running invocation (its operation and input
//! handle value), which holds the INVOKING phase.

mod catalogue;
mod reference;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::Duration;

use catalogue::{catalogue, invoke_params, prepare_params, request, Operation, HELLO};
use reference::{canonical_text, check_response, PackageDriver, Verdict};
use serde_json::{json, Value};

/// How long a line waits for its answers (the probe's answer ends them).
const WAIT: Duration = Duration::from_secs(20);

/// The phases a frame is sent in, each reached by the calls before it.
const PHASES: [&str; 4] = ["NEW", "HELLO", "PREPARED", "INVOKING"];

/// A driver process, its stdout read line by line on a thread.
struct Driver {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Vec<u8>>,
    model: PackageDriver,
}

impl Driver {
    fn spawn(command: &[String]) -> Result<Driver, String> {
        let (program, args) = command.split_first().ok_or("no driver command")?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {program}: {e}"))?;
        let stdin = child.stdin.take();
        let stdout: ChildStdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        Ok(Driver {
            child,
            stdin,
            lines: rx,
            model: PackageDriver::default(),
        })
    }

    fn send(&mut self, line: &[u8]) -> bool {
        self.stdin
            .as_mut()
            .is_some_and(|stdin| stdin.write_all(line).and_then(|()| stdin.flush()).is_ok())
    }

    /// The responses the driver writes until the answer with id `until`
    /// (its notifications are followed: a completion ends the invocation);
    /// `Err` with those before when the driver stops writing first.
    fn responses_until(&mut self, until: &str) -> Result<Vec<Vec<u8>>, Vec<Vec<u8>>> {
        let mut responses = Vec::new();
        loop {
            let Ok(line) = self.lines.recv_timeout(WAIT) else {
                return Err(responses);
            };
            let message: Value = serde_json::from_slice(&line).unwrap_or(Value::Null);
            if message.get("method") == Some(&json!("driver.completed")) {
                self.model.machine.complete();
            }
            if message.get("method").is_some() {
                continue;
            }
            if message.get("id").map(canonical_text).as_deref() == Some(until) {
                return Ok(responses);
            }
            responses.push(line);
        }
    }

    /// Sends a setup call and waits for its result.
    fn call(&mut self, id: &str, method: &str, params: &str) -> Result<(), String> {
        let line = [
            request(&format!("\"{id}\""), method, Some(params)),
            b"\n".to_vec(),
        ]
        .concat();
        self.model.answer(&line);
        if !self.send(&line) {
            return Err(format!("{method}: the driver stopped reading"));
        }
        let before = self
            .responses_until(&format!("\"{id}\""))
            .map_err(|_| format!("{method}: no answer"))?;
        if !before.is_empty() {
            return Err(format!("{method}: unexpected answers before it"));
        }
        Ok(())
    }

    fn close(mut self) {
        drop(self.stdin.take());
        if self.child.wait_timeout(Duration::from_secs(3)).is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

trait WaitTimeout {
    fn wait_timeout(&mut self, limit: Duration) -> Option<std::process::ExitStatus>;
}

impl WaitTimeout for Child {
    fn wait_timeout(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let deadline = std::time::Instant::now() + limit;
        loop {
            if let Ok(Some(status)) = self.try_wait() {
                return Some(status);
            }
            if std::time::Instant::now() > deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(10));
        }
    }
}

/// A driver in `phase`, with the model beside it.
fn driver_in(command: &[String], op: &Operation, phase: &str) -> Result<Driver, String> {
    let mut driver = Driver::spawn(command)?;
    let steps: &[(&str, &str)] = match phase {
        "NEW" => &[],
        "HELLO" => &[("driver.hello", HELLO)],
        "PREPARED" | "INVOKING" => &[("driver.hello", HELLO), ("driver.prepare", "")],
        _ => &[],
    };
    let prepare = prepare_params();
    for (n, (method, params)) in steps.iter().enumerate() {
        let params = if *method == "driver.prepare" {
            prepare.as_str()
        } else {
            params
        };
        driver.call(&format!("setup-{n}"), method, params)?;
    }
    if phase == "INVOKING" {
        let params = invoke_params(op, "018f0000-0000-7000-8000-0000000000aa");
        driver.call("setup-invoke", "driver.invoke", &params)?;
    }
    Ok(driver)
}

/// What the driver did with a line: its answers, judged.
fn observed(answers: &[Vec<u8>]) -> Result<Verdict, String> {
    match answers {
        [] => Ok(Verdict::Silent),
        [line] => {
            check_response(line).map_err(|why| {
                format!(
                    "the reference decoder refuses the answer ({why}): {}",
                    String::from_utf8_lossy(&line[..line.len().min(300)])
                )
            })?;
            let answer: Value = serde_json::from_slice(line).map_err(|e| e.to_string())?;
            let class = answer
                .pointer("/error/data/class")
                .and_then(Value::as_str)
                .map(str::to_owned);
            Ok(Verdict::Answer {
                id: canonical_text(&answer["id"]),
                class,
            })
        }
        more => Err(format!("{} answers to one line", more.len())),
    }
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut op = Operation {
        name: "fs.digest".into(),
        input: "/dev/null".into(),
    };
    while let Some(flag) = args.first().cloned() {
        match flag.as_str() {
            "--op" if args.len() > 1 => op.name = args.remove(1),
            "--input" if args.len() > 1 => op.input = args.remove(1),
            "--" => {
                args.remove(0);
                break;
            }
            _ => break,
        }
        if flag != "--" {
            args.remove(0);
        }
    }
    if args.is_empty() {
        eprintln!("usage: driver_catalogue [--op OPERATION] [--input VALUE] -- DRIVER ARGS...");
        return ExitCode::from(2);
    }
    let frames = catalogue(&op);
    let (mut agree, mut differ) = (0usize, 0usize);
    for phase in PHASES {
        let mut driver: Option<Driver> = None;
        for (n, (name, line)) in frames.iter().enumerate() {
            let mut current = match driver.take() {
                Some(d) => d,
                None => match driver_in(&args, &op, phase) {
                    Ok(d) => d,
                    Err(why) => {
                        eprintln!("{phase}: the driver cannot reach the phase: {why}");
                        return ExitCode::from(1);
                    }
                },
            };
            let expected = current.model.answer(line);
            let probe = format!("\"probe-{n}\"");
            let sent = current.send(line)
                && current
                    .send(&[request(&probe, "driver.capabilities", None), b"\n".to_vec()].concat());
            let shutdown = name.starts_with("shutdown") && expected_is_result(&expected);
            let outcome = if sent {
                match current.responses_until(&probe) {
                    Ok(answers) => observed(&answers),
                    // The session ended: the driver may exit after its answer.
                    Err(answers) if shutdown => observed(&answers),
                    Err(_) => Err("the driver stopped answering (ended, or hung)".to_owned()),
                }
            } else {
                Err("the driver stopped reading".to_owned())
            };
            let answered_result = |v: &Verdict| matches!(v, Verdict::Answer { class: None, .. });
            // A success may have moved either's state: a fresh driver next.
            let moved = answered_result(&expected) || outcome.as_ref().is_ok_and(answered_result);
            match outcome {
                Ok(found) if found == expected => agree += 1,
                Ok(found) => {
                    differ += 1;
                    println!("{phase} {name}: the driver answers {found}; a driver on the package: {expected}");
                }
                Err(why) => {
                    differ += 1;
                    println!("{phase} {name}: {why}; a driver on the package: {expected}");
                }
            }
            if moved || !sent {
                current.close();
            } else {
                driver = Some(current);
            }
        }
        if let Some(d) = driver {
            d.close();
        }
    }
    println!(
        "driver catalogue: {} frames in {} phases, {agree} verdicts agree with the reference package, {differ} differ",
        frames.len(),
        PHASES.len()
    );
    if differ == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn expected_is_result(verdict: &Verdict) -> bool {
    matches!(verdict, Verdict::Answer { class: None, .. })
}
