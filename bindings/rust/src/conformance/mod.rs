//! Conformance: put a server through its paces (`wirekit conformance`).
//!
//! [`run`] spawns the server and runs a battery built from the protocol's
//! manifest and schemas, with no hand-written cases per protocol:
//!
//! - **lifecycle**: the calls the protocol's real host makes, in its order
//!   (the manifest's `host.sequence`), then every other method the server
//!   serves, with params from the manifest's examples (or generated from the
//!   schema), the project root where `host.project_root` says;
//! - **capabilities**: declared names the protocol knows, an undeclared
//!   optional method refused with the protocol's answer, a declared one served;
//! - **exit**: the method that ends the session answers, and after the end
//!   of its input the server exits within `host.exit_grace_ms`;
//! - **state**: a request before the first method, a second first method,
//!   an incompatible version;
//! - **params**: invalid params made by mutating valid ones once per schema
//!   keyword that constrains them, and members the server checks against
//!   schemas it lists itself (`params_from`'s `refused_with`: a tool's
//!   arguments against its `inputSchema`) broken the same way;
//! - **envelope**: an unknown method, malformed JSON, a body that is not an
//!   object, and for strict protocols a duplicate key and an unknown member;
//! - **framing**: a frame over the bound, and for Content-Length a malformed
//!   header and a header other than Content-Length;
//! - **output**: nothing but frames of the protocol on stdout, and no fault
//!   line of wirekit's serve loop ([`crate::serve::RuntimeFault`]) on stderr
//!   that no other check claimed (a notification it dropped).
//!
//! An error answer to a call of the host's flow is judged by what the
//! battery knows of the params it sent (see `refused.rs`): an internal
//! error to params known valid fails (with the pointer of the serve loop's
//! fault line, when it wrote one), -32601 to a method the lifecycle or a
//! declared capability requires fails.
//!
//! Every answer is also judged by the monitor ([`crate::monitor::SessionChecker`],
//! fed frame by frame): result and error schemas, ids, one answer a
//! request, the lifecycle. The answer a fault must get is the one the core
//! itself would give (from the manifest's `server_errors`, lifecycle
//! violations and version negotiation). Faults that end a session get a
//! fresh server process; every read has a timeout. Each [`Check`] passes,
//! warns or fails with a sentence, the JSON pointer at fault and the frames
//! it exchanged; the [`Report`] renders as text, JSON or JUnit XML.

mod arguments;
mod check;
mod conversation;
mod declared;
mod faults;
mod instance;
mod lifecycle;
mod mutate;
mod options;
mod params_from;
mod process;
mod refused;
mod report;
mod runner;

use std::path::Path;
use std::sync::Arc;

pub use check::{Check, Exchanged, Outcome, Sender};
pub use options::{Options, OptionsError, Progress, DEFAULT_FAULT_TIMEOUT, GROUPS};
pub use report::{Counts, Report, SessionInfo};

use crate::validate::Protocol;

/// Runs the battery of `protocol` against the server `options.command`.
pub fn run(protocol: Arc<Protocol>, mut options: Options) -> Result<Report, OptionsError> {
    options.check()?;
    let root = match &options.root {
        Some(root) => std::fs::canonicalize(root).map_err(|e| {
            OptionsError::BadRoot(format!(
                "cannot use {} as the project root: {e}",
                root.display()
            ))
        })?,
        None => std::env::current_dir()
            .map_err(|e| OptionsError::BadRoot(format!("no current directory: {e}")))?,
    };
    // The report shows the command as given; the program is started resolved.
    let command = options.command.clone();
    options.command = resolve_program(std::mem::take(&mut options.command), &root)?;
    if let Some(path) = &options.record {
        std::fs::File::create(path)
            .map_err(|e| OptionsError::Record(format!("cannot create {}: {e}", path.display())))?;
    }
    let mut run = runner::Run::new(Arc::clone(&protocol), &mut options, root);
    lifecycle::run(&mut run);
    faults::run(&mut run);
    if run.gave_up() {
        run.not_exercised
            .push("the remaining faults: the server stopped answering three times".to_owned());
    }
    let mut output = Check::new("output", "stdout carries only frames of the protocol");
    if let Some((session, line)) = run.noise.first() {
        output.fail(
            None,
            format!(
                "the server wrote {} line(s) to stdout that are not frames of the protocol, the first in session {session}: `{line}`",
                run.noise_count
            ),
        );
    } else {
        output.passed("every byte on stdout was a frame of the protocol");
    }
    run.emit(output, 0);
    let mut sessions = std::mem::take(&mut run.sessions);
    sessions.sort_by_key(|s| s.index);
    Ok(Report {
        protocol: protocol.id(),
        command,
        checks: std::mem::take(&mut run.checks),
        sessions,
        not_exercised: std::mem::take(&mut run.not_exercised),
    })
}

/// The server's program as it is started: a relative path with a directory
/// part (`./server`, `bin/server`) names a file in the project root, the
/// server's working directory (made absolute here, so it does not depend on
/// how the platform resolves a relative program after a change of
/// directory); a bare name is looked up in `PATH`; an absolute path stays.
fn resolve_program(mut command: Vec<String>, root: &Path) -> Result<Vec<String>, OptionsError> {
    let Some(program) = command.first_mut() else {
        return Err(OptionsError::NoCommand);
    };
    let path = Path::new(program.as_str());
    if path.is_absolute() || path.components().count() < 2 {
        return Ok(command);
    }
    let resolved = root.join(path);
    if !resolved.is_file() {
        return Err(OptionsError::BadServer(format!(
            "the server program `{program}` is not a file in the project root {} (a relative program path is resolved against the root, the server's working directory)",
            root.display()
        )));
    }
    *program = resolved.to_string_lossy().into_owned();
    Ok(command)
}
