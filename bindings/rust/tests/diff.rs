//! `wirekit::diff`: the real gaze-analyzer 1.0.0 -> 1.1.0 step, and a
//! catalogue of deliberately breaking (and deliberately harmless) edits to
//! the shipped protocols, each of which must be found with the right impact,
//! kind and JSON pointer.

#![cfg(feature = "diff")]
// A test fails loudly on a missing fixture: unwrap and panic are its assertions.
#![allow(clippy::unwrap_used, clippy::panic)]

use serde_json::{json, Value};
use wirekit::diff::{self, ChangeKind, Impact, Report};
use wirekit::protocol::{ProtocolSource, VersionScheme};

use ChangeKind as K;
use Impact::{
    BreaksClients as Clients, BreaksClientsAndServers as Both, BreaksServers as Servers, Compatible,
};

fn shipped(spec: &str) -> ProtocolSource {
    wirekit_protocols::registry()
        .unwrap()
        .get(spec)
        .unwrap()
        .clone()
}

/// The protocol with `edit` applied to its manifest (`"protocol.json"`) or
/// one of its schema files, addressed by file name and JSON pointer.
fn edited(spec: &str, edits: &[(&str, &str, Option<Value>)]) -> ProtocolSource {
    let source = shipped(spec);
    let mut manifest = source.manifest_json.clone();
    let mut files = source.files.clone();
    for (file, pointer, value) in edits {
        let document = if *file == "protocol.json" {
            &mut manifest
        } else {
            files.get_mut(*file).unwrap()
        };
        set(document, pointer, value.clone());
    }
    ProtocolSource::new(&source.origin, manifest, files).unwrap()
}

/// Sets (or with `None` removes) the value at `pointer`, creating the last member.
fn set(document: &mut Value, pointer: &str, value: Option<Value>) {
    let (parent, last) = pointer.rsplit_once('/').unwrap();
    let last = last.replace("~1", "/").replace("~0", "~");
    let parent = document
        .pointer_mut(parent)
        .unwrap_or_else(|| panic!("no {parent}"));
    match (parent, value) {
        (Value::Object(members), Some(value)) => {
            members.insert(last, value);
        }
        (Value::Object(members), None) => {
            members
                .shift_remove(&last)
                .unwrap_or_else(|| panic!("no {pointer}"));
        }
        (Value::Array(items), Some(value)) if last == "-" => items.push(value),
        (Value::Array(items), Some(value)) => items[last.parse::<usize>().unwrap()] = value,
        (Value::Array(items), None) => {
            items.remove(last.parse::<usize>().unwrap());
        }
        _ => panic!("{pointer} is not in an object or array"),
    }
}

fn report(old: &ProtocolSource, new: &ProtocolSource) -> Report {
    diff::compare(old, new).unwrap()
}

/// The report holds exactly this one change, besides compatible ones.
fn expect_one(report: &Report, impact: Impact, kind: ChangeKind, pointer: &str) {
    let breaking: Vec<_> = report
        .changes
        .iter()
        .filter(|c| c.impact.is_breaking() || impact == Compatible)
        .collect();
    assert!(
        breaking
            .iter()
            .any(|c| c.impact == impact && c.kind == kind && c.pointer == pointer),
        "expected {impact:?} {kind:?} at {pointer}; got:\n{}",
        report
            .changes
            .iter()
            .map(|c| format!("{c}\n"))
            .collect::<String>()
    );
    if impact.is_breaking() {
        assert_eq!(
            breaking.len(),
            1,
            "one breaking change expected, got {breaking:#?}"
        );
        assert!(report.is_breaking());
    }
}

const GAZE: &str = "gaze-analyzer@1.0.0";
const GAZE_FILE: &str = "gaze.schema.json";
const GZKIT: &str = "gzkit-authoring-guide@1.0";
const HINT: &str = "authoring_hint.json";
const DRIVER: &str = "agentapi-driver@1";

#[test]
fn gaze_1_1_0_is_a_compatible_superset_of_1_0_0() {
    let report = report(&shipped(GAZE), &shipped("gaze-analyzer@1.1.0"));
    assert!(!report.is_breaking(), "{:#?}", report.changes);
    assert!(!report.major_moved());
    let found: Vec<(ChangeKind, &str)> = report
        .changes
        .iter()
        .map(|c| (c.kind, c.pointer.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (K::MethodAdded, "protocol.json#/methods/analyze~1stream"),
            (K::MethodAdded, "protocol.json#/methods/doc_coverage"),
            (
                K::LifecycleChanged,
                "protocol.json#/lifecycle/states/closed"
            ),
            (
                K::MemberAdded,
                "gaze.schema.json#/$defs/Capabilities/properties/streaming"
            ),
            (
                K::MemberAdded,
                "gaze.schema.json#/$defs/Capabilities/properties/doc_coverage"
            ),
            (
                K::MemberAdded,
                "gaze.schema.json#/$defs/InitializeResult/properties/language_version"
            ),
            (
                K::MemberAdded,
                "gaze.schema.json#/$defs/SideEffect/properties/detail"
            ),
        ]
    );
    let detail = report
        .changes
        .iter()
        .find(|c| c.pointer.ends_with("/detail"))
        .unwrap();
    assert_eq!(detail.message_part.as_deref(), Some("analyze result"));
    assert_eq!(
        detail.at.as_deref(),
        Some("/functions/*/side_effects/*/detail")
    );
}

#[test]
fn going_back_from_1_1_0_to_1_0_0_breaks_clients() {
    let report = report(
        &shipped("gaze-analyzer@1.1.0"),
        &shipped("gaze-analyzer@1.0.0"),
    );
    assert!(report.is_breaking());
    assert!(report.changes.iter().any(|c| c.impact == Clients
        && c.kind == K::MemberRemoved
        && c.pointer == "gaze.schema.json#/$defs/SideEffect/properties/detail"));
}

#[test]
fn a_version_against_itself_has_no_change() {
    for spec in [GAZE, "gaze-analyzer@1.1.0", GZKIT, DRIVER] {
        assert!(
            report(&shipped(spec), &shipped(spec)).changes.is_empty(),
            "{spec}"
        );
    }
}

#[test]
fn params_member_made_required_breaks_clients() {
    let new = edited(
        GAZE,
        &[(
            GAZE_FILE,
            "/$defs/AnalyzeParams/required/-",
            Some(json!("patterns")),
        )],
    );
    expect_one(
        &report(&shipped(GAZE), &new),
        Clients,
        K::MemberRequired,
        "gaze.schema.json#/$defs/AnalyzeParams/required",
    );
}

#[test]
fn params_type_narrowed_breaks_clients_and_widened_breaks_servers() {
    let narrowed = edited(
        GAZE,
        &[(
            GAZE_FILE,
            "/$defs/AnalyzeParams/properties/patterns/type",
            Some(json!("array")),
        )],
    );
    expect_one(
        &report(&shipped(GAZE), &narrowed),
        Clients,
        K::TypeChanged,
        "gaze.schema.json#/$defs/AnalyzeParams/properties/patterns",
    );
    let widened = edited(
        GAZE,
        &[(
            GAZE_FILE,
            "/$defs/AnalyzeParams/properties/root_path/type",
            Some(json!(["string", "null"])),
        )],
    );
    expect_one(
        &report(&shipped(GAZE), &widened),
        Servers,
        K::TypeChanged,
        "gaze.schema.json#/$defs/AnalyzeParams/properties/root_path",
    );
}

#[test]
fn result_type_widened_breaks_clients_and_narrowed_breaks_servers() {
    let widened = edited(
        GAZE,
        &[(
            GAZE_FILE,
            "/$defs/AnalyzedFunction/properties/line/type",
            Some(json!(["integer", "string"])),
        )],
    );
    expect_one(
        &report(&shipped(GAZE), &widened),
        Clients,
        K::TypeChanged,
        "gaze.schema.json#/$defs/AnalyzedFunction/properties/line",
    );
    let narrowed = edited(
        GAZE,
        &[(
            GAZE_FILE,
            "/$defs/FunctionCoverage/properties/percentage/type",
            Some(json!("integer")),
        )],
    );
    expect_one(
        &report(&shipped(GAZE), &narrowed),
        Servers,
        K::TypeChanged,
        "gaze.schema.json#/$defs/FunctionCoverage/properties/percentage",
    );
}

#[test]
fn new_required_result_member_breaks_servers_and_an_optional_one_breaks_no_one() {
    let required = edited(
        GAZE,
        &[
            (
                GAZE_FILE,
                "/$defs/AnalyzedFunction/properties/signature",
                Some(json!({"type": "string"})),
            ),
            (
                GAZE_FILE,
                "/$defs/AnalyzedFunction/required/-",
                Some(json!("signature")),
            ),
        ],
    );
    expect_one(
        &report(&shipped(GAZE), &required),
        Servers,
        K::MemberAdded,
        "gaze.schema.json#/$defs/AnalyzedFunction/properties/signature",
    );
    let optional = edited(
        GAZE,
        &[(
            GAZE_FILE,
            "/$defs/AnalyzedFunction/properties/signature",
            Some(json!({"type": "string"})),
        )],
    );
    let report = report(&shipped(GAZE), &optional);
    assert!(!report.is_breaking());
    expect_one(
        &report,
        Compatible,
        K::MemberAdded,
        "gaze.schema.json#/$defs/AnalyzedFunction/properties/signature",
    );
}

#[test]
fn result_member_removed_or_made_optional_breaks_clients() {
    let removed = edited(
        GAZE,
        &[
            (
                GAZE_FILE,
                "/$defs/AnalyzedFunction/properties/package",
                None,
            ),
            (GAZE_FILE, "/$defs/AnalyzedFunction/required/1", None),
        ],
    );
    expect_one(
        &report(&shipped(GAZE), &removed),
        Clients,
        K::MemberRemoved,
        "gaze.schema.json#/$defs/AnalyzedFunction/properties/package",
    );
    let optional = edited(
        GAZE,
        &[(GAZE_FILE, "/$defs/AnalyzedFunction/required/1", None)],
    );
    expect_one(
        &report(&shipped(GAZE), &optional),
        Clients,
        K::MemberOptional,
        "gaze.schema.json#/$defs/AnalyzedFunction/required",
    );
}

#[test]
fn enum_value_removed_from_a_result_breaks_servers_and_added_breaks_clients() {
    let removed = edited(GZKIT, &[(HINT, "/$defs/PrecedenceBand/enum/1", None)]);
    expect_one(
        &report(&shipped(GZKIT), &removed),
        Servers,
        K::EnumValueRemoved,
        "authoring_hint.json#/$defs/PrecedenceBand",
    );
    let added = edited(
        GZKIT,
        &[(HINT, "/$defs/PrecedenceBand/enum/-", Some(json!("over")))],
    );
    expect_one(
        &report(&shipped(GZKIT), &added),
        Clients,
        K::EnumValueAdded,
        "authoring_hint.json#/$defs/PrecedenceBand",
    );
}

#[test]
fn tightened_bound_breaks_the_writer_and_a_loosened_one_the_reader() {
    let tightened = edited(
        GAZE,
        &[(
            GAZE_FILE,
            "/$defs/FunctionCoverage/properties/percentage/maximum",
            Some(json!(50)),
        )],
    );
    let report_tight = report(&shipped(GAZE), &tightened);
    expect_one(
        &report_tight,
        Servers,
        K::BoundChanged,
        "gaze.schema.json#/$defs/FunctionCoverage/properties/percentage",
    );
    let loosened = edited(
        GZKIT,
        &[(HINT, "/properties/metric/minLength", Some(json!(0)))],
    );
    expect_one(
        &report(&shipped(GZKIT), &loosened),
        Clients,
        K::BoundChanged,
        "authoring_hint.json#/properties/metric",
    );
}

#[test]
fn changed_default_breaks_both_sides() {
    let old = edited(
        GAZE,
        &[(
            GAZE_FILE,
            "/$defs/AnalyzeParams/properties/patterns/default",
            Some(json!(["./..."])),
        )],
    );
    let new = edited(
        GAZE,
        &[(
            GAZE_FILE,
            "/$defs/AnalyzeParams/properties/patterns/default",
            Some(json!(["."])),
        )],
    );
    expect_one(
        &report(&old, &new),
        Both,
        K::DefaultChanged,
        "gaze.schema.json#/$defs/AnalyzeParams/properties/patterns",
    );
}

#[test]
fn pattern_added_to_params_breaks_clients() {
    let new = edited(
        GAZE,
        &[(
            GAZE_FILE,
            "/$defs/AnalyzeParams/properties/root_path/pattern",
            Some(json!("^/")),
        )],
    );
    expect_one(
        &report(&shipped(GAZE), &new),
        Clients,
        K::PatternChanged,
        "gaze.schema.json#/$defs/AnalyzeParams/properties/root_path",
    );
}

#[test]
fn closing_params_to_unknown_members_breaks_clients() {
    let new = edited(
        GAZE,
        &[(
            GAZE_FILE,
            "/$defs/AnalyzeParams/additionalProperties",
            Some(json!(false)),
        )],
    );
    expect_one(
        &report(&shipped(GAZE), &new),
        Clients,
        K::AdditionalMembersChanged,
        "gaze.schema.json#/$defs/AnalyzeParams",
    );
}

#[test]
fn new_optional_params_member_of_a_closed_object_breaks_servers() {
    let new = edited(
        DRIVER,
        &[(
            "driver.schema.json",
            "/$defs/HelloParams/properties/locale",
            Some(json!({"type": "string"})),
        )],
    );
    expect_one(
        &report(&shipped(DRIVER), &new),
        Servers,
        K::MemberAdded,
        "driver.schema.json#/$defs/HelloParams/properties/locale",
    );
}

#[test]
fn removed_required_method_breaks_clients_and_a_new_one_breaks_servers() {
    let removed = edited(GAZE, &[("protocol.json", "/methods/complexity", None)]);
    expect_one(
        &report(&shipped(GAZE), &removed),
        Clients,
        K::MethodRemoved,
        "protocol.json#/methods/complexity",
    );
    let analyze = shipped(GAZE).manifest_json["methods"]["analyze"].clone();
    let added = edited(
        GAZE,
        &[("protocol.json", "/methods/lint", Some(analyze.clone()))],
    );
    expect_one(
        &report(&shipped(GAZE), &added),
        Servers,
        K::MethodAdded,
        "protocol.json#/methods/lint",
    );
    let mut gated = analyze;
    gated["capability"] = json!("discover");
    let behind = edited(GAZE, &[("protocol.json", "/methods/lint", Some(gated))]);
    let report = report(&shipped(GAZE), &behind);
    assert!(!report.is_breaking());
    expect_one(
        &report,
        Compatible,
        K::MethodAdded,
        "protocol.json#/methods/lint",
    );
}

#[test]
fn capability_changes_break_the_side_that_loses_its_choice() {
    let required = edited(
        GAZE,
        &[("protocol.json", "/methods/discover/capability", None)],
    );
    expect_one(
        &report(&shipped(GAZE), &required),
        Servers,
        K::MethodCapabilityChanged,
        "protocol.json#/methods/discover/capability",
    );
    let gated = edited(
        GAZE,
        &[(
            "protocol.json",
            "/methods/complexity/capability",
            Some(json!("discover")),
        )],
    );
    expect_one(
        &report(&shipped(GAZE), &gated),
        Clients,
        K::MethodCapabilityChanged,
        "protocol.json#/methods/complexity/capability",
    );
}

#[test]
fn shorter_timeout_breaks_servers() {
    let new = edited(
        GAZE,
        &[(
            "protocol.json",
            "/methods/analyze/timeout_ms",
            Some(json!(1000)),
        )],
    );
    expect_one(
        &report(&shipped(GAZE), &new),
        Servers,
        K::TimeoutChanged,
        "protocol.json#/methods/analyze/timeout_ms",
    );
}

#[test]
fn changed_error_code_breaks_both_sides() {
    let new = edited(
        GZKIT,
        &[("protocol.json", "/errors/4/code", Some(json!(-32098)))],
    );
    expect_one(
        &report(&shipped(GZKIT), &new),
        Both,
        K::ErrorCodeChanged,
        "protocol.json#/errors/4/code",
    );
}

#[test]
fn fewer_allowed_states_break_the_sender() {
    let new = edited(
        GZKIT,
        &[(
            "protocol.json",
            "/methods/shutdown/lifecycle/allowed_in",
            Some(json!(["ready"])),
        )],
    );
    expect_one(
        &report(&shipped(GZKIT), &new),
        Clients,
        K::LifecycleChanged,
        "protocol.json#/methods/shutdown/lifecycle/allowed_in",
    );
}

#[test]
fn new_rule_breaks_the_writer_of_its_part_and_a_changed_rule_both_sides() {
    let on_params = json!({"rule": "not_before", "method": "analyze", "part": "params", "at": "/cursor_position", "first": "line", "second": "line", "message": "x"});
    let new = edited(GZKIT, &[("protocol.json", "/rules/-", Some(on_params))]);
    expect_one(
        &report(&shipped(GZKIT), &new),
        Clients,
        K::RuleAdded,
        "protocol.json#/rules/1",
    );
    let swapped = json!({"rule": "not_before", "method": "analyze", "part": "result", "at": "/hints/*", "first": "end_line", "second": "start_line", "message": "x"});
    let changed = edited(GZKIT, &[("protocol.json", "/rules/0", Some(swapped))]);
    expect_one(
        &report(&shipped(GZKIT), &changed),
        Both,
        K::RuleChanged,
        "protocol.json#/rules/0",
    );
    let removed = edited(GZKIT, &[("protocol.json", "/rules/0", None)]);
    expect_one(
        &report(&shipped(GZKIT), &removed),
        Clients,
        K::RuleRemoved,
        "protocol.json#/rules/0",
    );
}

#[test]
fn changed_framing_breaks_both_sides() {
    let new = edited(
        GAZE,
        &[(
            "protocol.json",
            "/transport/framing",
            Some(json!("content-length")),
        )],
    );
    expect_one(
        &report(&shipped(GAZE), &new),
        Both,
        K::TransportChanged,
        "protocol.json#/transport/framing",
    );
}

#[test]
fn server_to_client_notification_params_flow_the_other_way() {
    // driver.completed is sent by the server: a new required member breaks servers.
    let mut schema =
        shipped(DRIVER).files["driver.schema.json"]["$defs"]["CompletedParams"].clone();
    let name = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    schema["properties"]["elapsed_ms"] = json!({"type": "integer"});
    schema["required"]
        .as_array_mut()
        .unwrap()
        .push(json!("elapsed_ms"));
    assert!(!name.is_empty());
    let new = edited(
        DRIVER,
        &[("driver.schema.json", "/$defs/CompletedParams", Some(schema))],
    );
    expect_one(
        &report(&shipped(DRIVER), &new),
        Servers,
        K::MemberAdded,
        "driver.schema.json#/$defs/CompletedParams/properties/elapsed_ms",
    );
}

#[test]
fn a_moved_major_version_is_reported() {
    let new = edited(GAZE, &[("protocol.json", "/methods/complexity", None)]);
    let mut manifest = new.manifest_json.clone();
    manifest["version"] = json!("2.0.0");
    let moved = ProtocolSource::new("gaze-analyzer/2.0.0", manifest, new.files.clone()).unwrap();
    let report = report(&shipped(GAZE), &moved);
    assert!(report.is_breaking());
    assert!(report.major_moved());
}

#[test]
fn dated_versions_announce_no_breaking_change_and_semver_majors_do() {
    // gaze 1.1.0 back to 1.0.0 breaks clients within major 1.
    let old = shipped("gaze-analyzer@1.1.0");
    let new = shipped("gaze-analyzer@1.0.0");
    let semver = report(&old, &new);
    assert!(semver.is_breaking() && !semver.major_moved());
    // The same change between versions written as dates: no "major" to
    // move (before, "2025-06-18" was its own major and every change passed).
    let dated = |version: &str, source: &ProtocolSource| {
        let mut manifest = source.manifest_json.clone();
        manifest["version"] = json!(version);
        manifest["version_scheme"] = json!("date");
        ProtocolSource::new(&source.origin, manifest, source.files.clone()).unwrap()
    };
    let dated_report = report(&dated("2025-06-18", &old), &dated("2025-11-25", &new));
    assert_eq!(dated_report.version_scheme, VersionScheme::Date);
    assert!(dated_report.is_breaking() && !dated_report.major_moved());
    // Under semver, a major move announces the break.
    let mut manifest = new.manifest_json.clone();
    manifest["version"] = json!("2.0.0");
    let major = ProtocolSource::new(&new.origin, manifest, new.files.clone()).unwrap();
    assert!(report(&old, &major).major_moved());
}
