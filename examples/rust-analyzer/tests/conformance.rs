//! The example analyzer passes `wirekit conformance` (the core's engine,
//! as the command runs it) for both versions of the Gaze protocol, with
//! the project root at its own sample folder.

use wirekit::conformance::{self, Options, Outcome};

fn conforms(version: &str) {
    let protocol =
        wirekit_protocols::protocol(&format!("gaze-analyzer@{version}")).expect("shipped protocol");
    let mut options = Options::new(vec![env!("CARGO_BIN_EXE_gaze-analyzer-rust").to_owned()]);
    options.root = Some(env!("CARGO_MANIFEST_DIR").into());
    let report = conformance::run(protocol, options).expect("runs");
    let not_passed: Vec<String> = report
        .checks
        .iter()
        .filter(|c| c.outcome != Outcome::Pass)
        .map(|c| format!("{} {}: {}", c.group, c.name, c.message))
        .collect();
    assert!(not_passed.is_empty(), "{}", report.to_text());
    // Every group ran something.
    let (rows, total) = report.summary();
    assert_eq!(
        rows.len(),
        conformance::GROUPS.len(),
        "{}",
        report.to_text()
    );
    assert!(total.pass >= 25, "{}", report.to_text());
}

#[test]
fn the_example_analyzer_conforms_to_gaze_1_0_0() {
    conforms("1.0.0");
}

#[test]
fn the_example_analyzer_conforms_to_gaze_1_1_0() {
    conforms("1.1.0");
}
