//! `wirekit generate`: regenerate (or, with `--check`, verify) the Rust,
//! Python and TypeScript bindings, the Markdown references and the OpenRPC
//! documents from the protocol schemas in `schemas/`.

use std::path::PathBuf;
use std::process::ExitCode;

use wirekit_codegen::{Options, Target};

/// Arguments of `wirekit generate`.
#[derive(Debug, clap::Args)]
pub struct GenerateArgs {
    /// Only this protocol (its name, e.g. `gaze-analyzer`, or module name).
    #[arg(long, value_name = "P")]
    protocol: Option<String>,

    /// Only these targets (repeat or comma-separate; all when omitted).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "TARGET")]
    target: Vec<TargetArg>,

    /// Write nothing; fail, naming each stale file with a short diff, when
    /// committed output differs from what would be generated.
    #[arg(long)]
    check: bool,

    /// The repository root (default: the nearest ancestor holding `schemas/`).
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
}

/// A target on the command line.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum TargetArg {
    Rust,
    Python,
    Typescript,
    Docs,
    Openrpc,
}

impl From<TargetArg> for Target {
    fn from(t: TargetArg) -> Target {
        match t {
            TargetArg::Rust => Target::Rust,
            TargetArg::Python => Target::Python,
            TargetArg::Typescript => Target::TypeScript,
            TargetArg::Docs => Target::Docs,
            TargetArg::Openrpc => Target::OpenRpc,
        }
    }
}

/// Runs `wirekit generate`: 0 when done (or up to date), 1 when `--check`
/// found stale files, 2 on an error.
pub fn run(args: GenerateArgs) -> ExitCode {
    let root = match args.root.clone().or_else(|| {
        std::env::current_dir()
            .ok()
            .and_then(|d| wirekit_codegen::find_root(&d))
    }) {
        Some(r) => r,
        None => {
            eprintln!("wirekit generate: no `schemas/` directory here or above; pass --root");
            return ExitCode::from(2);
        }
    };
    let options = Options {
        root: root.clone(),
        protocol: args.protocol,
        targets: args.target.into_iter().map(Target::from).collect(),
    };
    // An upstream source outside the repository (a meta model, a published
    // JSON Schema) may be absent (a user's clone):
    // one line says so, and the committed derived files stay as they are.
    if options.is_complete() {
        match wirekit_codegen::derive::missing_sources(&root) {
            Ok(notes) => notes
                .iter()
                .for_each(|n| eprintln!("wirekit generate: {n}")),
            Err(e) => {
                eprintln!("wirekit generate: {e}");
                return ExitCode::from(2);
            }
        }
    }
    // Schemas derived from an upstream source are written first, so that the
    // protocols load (and are generated from) the fresh ones.
    if !args.check && options.is_complete() {
        let derived = match wirekit_codegen::derive::derive_all(&root) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("wirekit generate: {e}");
                return ExitCode::from(2);
            }
        };
        if let Err(e) = wirekit_codegen::write(&root, &derived, false) {
            eprintln!("wirekit generate: {e}");
            return ExitCode::from(2);
        }
    }
    let files = match wirekit_codegen::generate(&options) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("wirekit generate: {e}");
            return ExitCode::from(2);
        }
    };
    if args.check {
        return match wirekit_codegen::check(&root, &files, options.is_complete()) {
            Ok(stale) if stale.is_empty() => {
                println!("wirekit generate --check: {} files up to date", files.len());
                ExitCode::SUCCESS
            }
            Ok(stale) => {
                for s in &stale {
                    eprintln!("stale: {}\n{}", s.path.display(), s.diff);
                }
                eprintln!(
                    "wirekit generate --check: {} of {} files are stale; run `wirekit generate`",
                    stale.len(),
                    files.len()
                );
                ExitCode::from(1)
            }
            Err(e) => {
                eprintln!("wirekit generate --check: {e}");
                ExitCode::from(2)
            }
        };
    }
    match wirekit_codegen::write(&root, &files, options.is_complete()) {
        Ok(changed) => {
            for p in &changed {
                if root.join(p).exists() {
                    println!("wrote {}", p.display());
                } else {
                    println!("deleted {}", p.display());
                }
            }
            println!(
                "wirekit generate: {} files, {} changed",
                files.len(),
                changed.len()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("wirekit generate: {e}");
            ExitCode::from(2)
        }
    }
}
