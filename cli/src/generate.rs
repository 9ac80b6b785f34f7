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

    /// wirekit's own repository root, for its shipped bindings (default:
    /// the nearest ancestor holding `schemas/` and `Cargo.toml`, where no
    /// `wirekit.toml` is nearer).
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,

    /// A project of one's own: write every selected target into
    /// `DIR/<target>/` (python, typescript, rust, docs, openrpc), for use with
    /// the published packages. Without it, `wirekit.toml` (the nearest
    /// one) says where each target goes.
    #[arg(long, value_name = "DIR", conflicts_with = "root")]
    out: Option<PathBuf>,

    /// With `--out` or `wirekit.toml`: the protocols' folder (default: the
    /// config's `schemas`, else the nearest `schemas/`).
    #[arg(long, value_name = "DIR", conflicts_with = "root")]
    schemas: Option<PathBuf>,

    /// With `--out` or `wirekit.toml`: the Python package name (default:
    /// the config's `package`, else `wirekit_bindings`).
    #[arg(long, value_name = "NAME", conflicts_with = "root")]
    package: Option<String>,
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
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    // A project of one's own: `--out`, or a `wirekit.toml` nearer than a clone's root.
    let clone = args
        .root
        .clone()
        .or_else(|| wirekit_codegen::find_root(&cwd));
    let config = crate::project::find_config(&cwd)
        .filter(|file| clone.as_ref().is_none_or(|root| file.starts_with(root)));
    if args.root.is_none() && (args.out.is_some() || config.is_some() || clone.is_none()) {
        return match project_plan(&args, &cwd, config.as_deref()) {
            Ok(plan) => crate::project::run(&plan, args.check),
            Err(message) => {
                eprintln!("wirekit generate: {message}");
                ExitCode::from(2)
            }
        };
    }
    let Some(root) = clone else {
        eprintln!("wirekit generate: no `schemas/` directory here or above; pass --root");
        return ExitCode::from(2);
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
    // protocols load (and are generated from) the fresh ones: every recipe,
    // or the named protocol's, whatever the targets.
    if !args.check {
        let derived =
            match wirekit_codegen::derive::derive_protocol(&root, options.protocol.as_deref()) {
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

/// What `generate` writes in a project of one's own, from the arguments and
/// the project file.
fn project_plan(
    args: &GenerateArgs,
    cwd: &std::path::Path,
    config_file: Option<&std::path::Path>,
) -> Result<crate::project::Plan, String> {
    let (config, base) = match (&args.out, config_file) {
        (None, Some(file)) => (
            crate::project::read_config(file)?,
            file.parent()
                .map_or_else(|| cwd.to_path_buf(), std::path::Path::to_path_buf),
        ),
        (None, None) => {
            return Err(format!(
                "not in a clone of wirekit and no {} here or above: pass --out DIR \
                 (e.g. `wirekit generate --out generated`), or write {} with an [out] table \
                 (`wirekit init NAME` writes one)",
                crate::project::CONFIG_FILE,
                crate::project::CONFIG_FILE
            ))
        }
        (Some(_), _) => (crate::project::Config::default(), cwd.to_path_buf()),
    };
    let selected: Vec<Target> = args.target.iter().copied().map(Target::from).collect();
    let targets = match &args.out {
        Some(out) => {
            let chosen = if selected.is_empty() {
                Target::ALL.to_vec()
            } else {
                selected.clone()
            };
            chosen
                .into_iter()
                .map(|t| (t, cwd.join(out).join(t.name())))
                .collect()
        }
        None => {
            let mut targets = crate::project::config_targets(&config, &base)?;
            if !selected.is_empty() {
                targets.retain(|(t, _)| selected.contains(t));
            }
            if targets.is_empty() {
                return Err(format!(
                    "{}: no target to generate (its [out] table names none{})",
                    crate::project::CONFIG_FILE,
                    if selected.is_empty() {
                        ""
                    } else {
                        " of those --target selects"
                    }
                ));
            }
            targets
        }
    };
    let schemas = match (&args.schemas, &config.schemas) {
        (Some(dir), _) => cwd.join(dir),
        (None, Some(dir)) => base.join(dir),
        (None, None) => crate::catalog::nearest_schemas(&base)
            .ok_or("no `schemas/` folder here or in a parent folder; pass --schemas DIR")?,
    };
    let protocols = match &args.protocol {
        Some(name) => vec![name.clone()],
        None => config.protocols.clone(),
    };
    let package = args
        .package
        .clone()
        .or(config.package.clone())
        .unwrap_or_else(|| wirekit_codegen::standalone::DEFAULT_PACKAGE.to_owned());
    if !is_python_identifier(&package) {
        return Err(format!(
            "the Python package name `{package}` is not an identifier (letters, digits and _, not starting with a digit)"
        ));
    }
    Ok(crate::project::Plan {
        base,
        schemas,
        protocols,
        package,
        targets,
    })
}

fn is_python_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
