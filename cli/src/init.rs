//! `wirekit init NAME`: a protocol of one's own, ready to serve and judge.
//!
//! Writes, in the current folder (or `--dir`):
//!
//! * `schemas/NAME/1/protocol.json` and `NAME.schema.json`: a small
//!   key-value store (initialize, put, get, delete, watch, the server's
//!   `changed` notification, shutdown) with an example for every method, a
//!   declared error and the host's sequence;
//! * `wirekit.toml`, then runs `wirekit generate` with it: the Python
//!   package `NAME_protocol/` (types, the embedded protocol, the typed server
//!   base class), the TypeScript bindings in `client/generated/`, the docs;
//! * `server.py` built on the generated base class, `requests.ndjson` for
//!   `wirekit drive`, and a README with the next commands.
//!
//! Right after it, `wirekit conformance --protocol NAME@1 -- python server.py`
//! passes. An existing file is never overwritten (`--force` does).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `wirekit init`.
#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// The protocol's name: lowercase letters, digits and `-`, starting with a letter.
    name: String,
    /// The project folder (default: the current one; made when missing).
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Overwrite files that exist.
    #[arg(long)]
    force: bool,
}

const PROTOCOL: &str = include_str!("init/files/protocol.json");
const SCHEMA: &str = include_str!("init/files/schema.json");
const SERVER: &str = include_str!("init/files/server.py");
const REQUESTS: &str = include_str!("init/files/requests.ndjson");
const CONFIG: &str = include_str!("init/files/wirekit.toml");
const README: &str = include_str!("init/files/README.md");

/// Runs `wirekit init`.
pub fn run(args: InitArgs) -> ExitCode {
    match init(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("wirekit init: {message}");
            ExitCode::from(2)
        }
    }
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.ends_with('-')
        && name.len() <= 64
}

fn init(args: &InitArgs) -> Result<(), String> {
    let name = args.name.as_str();
    if !valid_name(name) {
        return Err(format!(
            "`{name}` is not a protocol name: lowercase letters, digits and `-`, starting with a letter (e.g. `kv-store`)"
        ));
    }
    let cwd = std::env::current_dir().map_err(|e| format!("no current folder: {e}"))?;
    let dir = args.dir.as_ref().map_or(cwd.clone(), |d| cwd.join(d));
    let module = wirekit_codegen::naming::snake(name);
    let package = format!("{module}_protocol");
    let class = format!("{}Server", wirekit_codegen::naming::pascal(name));
    let fill = |text: &str| {
        text.replace("__NAME__", name)
            .replace("__PACKAGE__", &package)
            .replace("__MODULE__", &module)
            .replace("__CLASS__", &class)
    };
    let version_dir = format!("schemas/{name}/1");
    let files: [(String, &str); 7] = [
        (format!("{version_dir}/protocol.json"), PROTOCOL),
        (format!("{version_dir}/{name}.schema.json"), SCHEMA),
        ("wirekit.toml".to_owned(), CONFIG),
        ("server.py".to_owned(), SERVER),
        ("requests.ndjson".to_owned(), REQUESTS),
        ("README.md".to_owned(), README),
        (".gitignore".to_owned(), "__pycache__/\nsession.ndjson*\n"),
    ];
    if !args.force {
        let existing: Vec<String> = files
            .iter()
            .filter(|(path, _)| dir.join(path).exists())
            .map(|(path, _)| path.clone())
            .collect();
        if !existing.is_empty() {
            return Err(format!(
                "{} already exist(s) in {}; nothing was written (--force overwrites)",
                existing.join(", "),
                dir.display()
            ));
        }
    }
    for (path, text) in &files {
        write(&dir.join(path), &fill(text))?;
        println!("wrote {path}");
    }
    let config = dir.join(crate::project::CONFIG_FILE);
    let parsed = crate::project::read_config(&config)?;
    let plan = crate::project::Plan {
        base: dir.clone(),
        schemas: dir.join("schemas"),
        protocols: parsed.protocols.clone(),
        package: package.clone(),
        targets: crate::project::config_targets(&parsed, &dir)?,
    };
    if crate::project::run(&plan, false) != ExitCode::SUCCESS {
        return Err("the generated bindings could not be written (see above)".to_owned());
    }
    let shown = if args.dir.is_some() {
        format!("cd {} && ", dir.display())
    } else {
        String::new()
    };
    println!(
        "\nwirekit init: the protocol `{name}` is in {version_dir}/, its Python bindings in {package}/.\nNext: {shown}wirekit conformance --protocol {name}@1 -- python server.py   (README.md has the rest)"
    );
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
