#![allow(clippy::panic, clippy::unwrap_used)]
//! Every dialect a server may answer in lands in one type; a lying list
//! entry fails the list naming its index; negative positions, bad
//! severities and resource operations are refused.

use serde_json::{json, Value};
use wirekit_lsp::decode::*;
use wirekit_lsp::{Position, Range};

fn range(a: u32, b: u32, c: u32, d: u32) -> Range {
    Range {
        start: Position::new(a, b),
        end: Position::new(c, d),
    }
}

fn r(a: u32, b: u32, c: u32, d: u32) -> Value {
    json!({"start": {"line": a, "character": b}, "end": {"line": c, "character": d}})
}

#[test]
fn locations_in_every_dialect() {
    let one = json!({"uri": "file:///a.py", "range": r(1, 2, 1, 5), "extra": true});
    let want = vec![Location {
        uri: "file:///a.py".into(),
        range: range(1, 2, 1, 5),
    }];
    assert_eq!(decode_locations(&one).unwrap(), want);
    assert_eq!(decode_locations(&json!([one])).unwrap(), want);
    let link = json!([{"targetUri": "file:///a.py", "targetRange": r(0, 0, 3, 0), "targetSelectionRange": r(1, 2, 1, 5), "originSelectionRange": r(9, 9, 9, 9)}]);
    assert_eq!(decode_locations(&link).unwrap(), want);
    assert_eq!(decode_locations(&Value::Null).unwrap(), vec![]);
    assert_eq!(decode_locations(&json!([])).unwrap(), vec![]);
    let error = decode_locations(&json!(7)).unwrap_err();
    assert_eq!(error.kind(), DecodeErrorKind::WrongType);
}

#[test]
fn one_lying_entry_fails_the_list_naming_its_index() {
    let good = json!({"uri": "file:///a.py", "range": r(1, 2, 1, 5)});
    let lying = json!({"uri": "file:///b.py", "range": {"start": {"line": 1, "character": -3}, "end": {"line": 1, "character": 0}}});
    let error = decode_locations(&json!([good.clone(), good, lying])).unwrap_err();
    assert_eq!(error.kind(), DecodeErrorKind::BadPosition);
    assert_eq!(error.pointer(), "/2/range/start/character");
    assert_eq!(error.kind().code(), "bad_position");
    let missing = decode_locations(&json!([{"uri": "file:///a"}])).unwrap_err();
    assert_eq!(
        (missing.kind(), missing.pointer()),
        (DecodeErrorKind::MissingMember, "/0/range")
    );
    let huge = decode_locations(&json!([{"uri": "file:///a", "range": r(1 << 31, 0, 0, 0)}]));
    assert!(huge.is_ok(), "2^31 fits 32 unsigned bits");
    let over = json!([{"uri": "file:///a", "range": {"start": {"line": 4294967296u64, "character": 0}, "end": {"line": 0, "character": 0}}}]);
    assert_eq!(
        decode_locations(&over).unwrap_err().pointer(),
        "/0/range/start/line"
    );
}

#[test]
fn the_four_hover_shapes() {
    let plain = decode_hover(&json!({"contents": "def f()"}))
        .unwrap()
        .unwrap();
    assert_eq!(
        (plain.text.as_str(), plain.markup),
        ("def f()", HoverMarkup::Markdown)
    );
    let marked = decode_hover(&json!({"contents": {"language": "python", "value": "def f()"}}))
        .unwrap()
        .unwrap();
    assert_eq!(marked.text, "```python\ndef f()\n```");
    let list = decode_hover(
        &json!({"contents": ["doc", {"language": "py", "value": "x"}], "range": r(0, 1, 0, 2)}),
    )
    .unwrap()
    .unwrap();
    assert_eq!(list.text, "doc\n\n```py\nx\n```");
    assert_eq!(list.range, Some(range(0, 1, 0, 2)));
    let markup = decode_hover(&json!({"contents": {"kind": "plaintext", "value": "int"}}))
        .unwrap()
        .unwrap();
    assert_eq!(
        (markup.text.as_str(), markup.markup),
        ("int", HoverMarkup::PlainText)
    );
    assert_eq!(decode_hover(&Value::Null).unwrap(), None);
    let error = decode_hover(&json!({"contents": ["ok", 3]})).unwrap_err();
    assert_eq!(error.pointer(), "/contents/1");
}

#[test]
fn symbols_hierarchical_or_flat_never_mixed() {
    let tree = json!([{"name": "C", "kind": 5, "range": r(0, 0, 4, 0), "selectionRange": r(0, 6, 0, 7),
        "children": [{"name": "m", "kind": 6, "detail": "(self)", "range": r(1, 4, 2, 0), "selectionRange": r(1, 8, 1, 9)}]}]);
    let DocumentSymbols::Hierarchical(symbols) = decode_document_symbols(&tree).unwrap() else {
        panic!("hierarchical")
    };
    assert_eq!(symbols[0].children[0].name, "m");
    assert_eq!(symbols[0].children[0].detail.as_deref(), Some("(self)"));
    assert_eq!(symbol_kind_name(symbols[0].kind), "class");
    let flat = json!([{"name": "f", "kind": 12, "location": {"uri": "file:///a.py", "range": r(3, 0, 4, 0)}, "containerName": "a"}]);
    let DocumentSymbols::Flat(symbols) = decode_document_symbols(&flat).unwrap() else {
        panic!("flat")
    };
    assert_eq!(
        (
            symbols[0].uri.as_str(),
            symbols[0].container_name.as_deref()
        ),
        ("file:///a.py", Some("a"))
    );
    let mixed = json!([flat[0].clone(), tree[0].clone()]);
    let error = decode_document_symbols(&mixed).unwrap_err();
    assert_eq!(
        (error.kind(), error.pointer()),
        (DecodeErrorKind::MixedDialects, "/1")
    );
    let deep_child = json!([{"name": "C", "kind": 5, "range": r(0, 0, 4, 0), "selectionRange": r(0, 6, 0, 7),
        "children": [{"name": "m", "kind": "six", "range": r(1, 4, 2, 0), "selectionRange": r(1, 8, 1, 9)}]}]);
    assert_eq!(
        decode_document_symbols(&deep_child).unwrap_err().pointer(),
        "/0/children/0/kind"
    );
    assert!(decode_document_symbols(&Value::Null).unwrap().is_empty());
}

#[test]
fn workspace_edits_as_changes_or_document_changes() {
    let changes = json!({"changes": {"file:///a.py": [{"range": r(0, 4, 0, 5), "newText": "g"}]}});
    let edit = decode_workspace_edit(&changes).unwrap();
    assert_eq!(edit.files[0].uri, "file:///a.py");
    assert_eq!(edit.files[0].edits[0].new_text, "g");
    let document = json!({"documentChanges": [{"textDocument": {"uri": "file:///a.py", "version": 3},
        "edits": [{"range": r(0, 4, 0, 5), "newText": "g", "annotationId": "x"}]}], "changes": {}});
    let edit = decode_workspace_edit(&document).unwrap();
    assert_eq!(
        (edit.files[0].version, edit.files[0].edits.len()),
        (Some(3), 1)
    );
    for kind in ["create", "rename", "delete"] {
        let with_op = json!({"documentChanges": [document["documentChanges"][0].clone(), {"kind": kind, "uri": "file:///b.py"}]});
        let error = decode_workspace_edit(&with_op).unwrap_err();
        assert_eq!(
            (error.kind(), error.pointer()),
            (
                DecodeErrorKind::ResourceOperationRefused,
                "/documentChanges/1/kind"
            )
        );
    }
    assert!(decode_workspace_edit(&Value::Null).unwrap().is_empty());
    let bad = json!({"changes": {"file:///a/b.py": [{"range": r(0, 0, 0, 0)}]}});
    assert_eq!(
        decode_workspace_edit(&bad).unwrap_err().pointer(),
        "/changes/file:~1~1~1a~1b.py/0/newText"
    );
}

#[test]
fn prepare_rename_in_three_shapes_and_null() {
    assert_eq!(
        decode_prepare_rename(&r(1, 2, 1, 4)).unwrap(),
        PrepareRename::CanRename {
            range: range(1, 2, 1, 4),
            placeholder: None
        }
    );
    assert_eq!(
        decode_prepare_rename(&json!({"range": r(1, 2, 1, 4), "placeholder": "ab"})).unwrap(),
        PrepareRename::CanRename {
            range: range(1, 2, 1, 4),
            placeholder: Some("ab".into())
        }
    );
    assert_eq!(
        decode_prepare_rename(&json!({"defaultBehavior": true})).unwrap(),
        PrepareRename::CanRenameDefault
    );
    assert_eq!(
        decode_prepare_rename(&Value::Null).unwrap(),
        PrepareRename::CannotRename
    );
    assert!(decode_prepare_rename(&json!("x")).is_err());
}

#[test]
fn call_hierarchy_items_keep_the_raw_value() {
    let item = json!({"name": "f", "kind": 12, "uri": "file:///a.py", "range": r(0, 0, 2, 0), "selectionRange": r(0, 4, 0, 5), "data": {"opaque": [1, 2]}});
    let items = decode_call_hierarchy_items(&json!([item])).unwrap();
    assert_eq!(items[0].raw, item);
    let incoming =
        decode_incoming_calls(&json!([{"from": item, "fromRanges": [r(5, 1, 5, 2)]}])).unwrap();
    assert_eq!(incoming[0].from.name, "f");
    let outgoing =
        decode_outgoing_calls(&json!([{"to": item, "fromRanges": [r(5, 1, 5, 2), {"start": 1}]}]))
            .unwrap_err();
    assert_eq!(outgoing.pointer(), "/0/fromRanges/1/start");
    assert!(decode_incoming_calls(&Value::Null).unwrap().is_empty());
}

#[test]
fn diagnostics_default_to_error_refuse_bad_severities_and_stay_bounded() {
    let params = json!({"uri": "file:///a.py", "version": 2, "diagnostics": [
        {"range": r(0, 0, 0, 1), "message": "no severity"},
        {"range": r(0, 0, 0, 1), "message": "hint", "severity": 4, "code": 7, "source": "x"}]});
    let publication = decode_publish_diagnostics(&params).unwrap();
    assert_eq!(publication.diagnostics[0].severity, Severity::Error);
    assert_eq!(publication.diagnostics[1].severity, Severity::Hint);
    assert_eq!(
        publication.diagnostics[1].code,
        Some(DiagnosticCode::Integer(7))
    );
    for bad in [0, 5, -1] {
        let params = json!({"uri": "file:///a.py", "diagnostics": [{"range": r(0, 0, 0, 1), "message": "m", "severity": bad}]});
        let error = decode_publish_diagnostics(&params).unwrap_err();
        assert_eq!(
            (error.kind(), error.pointer()),
            (DecodeErrorKind::OutOfRange, "/diagnostics/0/severity")
        );
    }
    let many: Vec<Value> = (0..250)
        .map(|n| json!({"range": r(n, 0, n, 1), "message": "m"}))
        .collect();
    let publication =
        decode_publish_diagnostics(&json!({"uri": "file:///a", "diagnostics": many})).unwrap();
    assert_eq!(
        (publication.diagnostics.len(), publication.truncated),
        (MAX_DIAGNOSTICS_PER_PUBLICATION, 50)
    );
}

#[test]
fn notifications_are_classified_and_malformed_ones_dropped() {
    let begin = classify_notification(
        "$/progress",
        Some(&json!({"token": "t", "value": {"kind": "begin", "title": "Indexing"}})),
    );
    assert!(matches!(
        begin,
        ServerNotification::Progressed(ProgressToken::Str(_), WorkDoneProgress::Begin { .. })
    ));
    let failure = classify_notification(
        "window/logMessage",
        Some(&json!({"type": 1, "message": "cannot load project"})),
    );
    assert_eq!(
        failure,
        ServerNotification::ServerFailure("cannot load project".into())
    );
    let info = classify_notification(
        "window/showMessage",
        Some(&json!({"type": 3, "message": "hi"})),
    );
    assert_eq!(info, ServerNotification::Ignored);
    assert!(matches!(
        classify_notification("$/progress", Some(&json!({"token": 1.5, "value": {}}))),
        ServerNotification::Unrecognised(_)
    ));
    assert!(matches!(
        classify_notification(
            "window/logMessage",
            Some(&json!({"type": 9, "message": ""}))
        ),
        ServerNotification::Unrecognised(_)
    ));
    assert!(matches!(
        classify_notification("x/y", None),
        ServerNotification::Unrecognised(_)
    ));
}

#[test]
fn the_gate_reads_the_manifest_rule_true_or_options_provided() {
    use wirekit_lsp::{decode_initialize_result, Feature, Provided};
    let result = json!({"capabilities": {
        "definitionProvider": true,
        "referencesProvider": {"workDoneProgress": true},
        "hoverProvider": false,
        "documentSymbolProvider": null,
        "renameProvider": true,
        "callHierarchyProvider": {},
        "positionEncoding": "utf-16"
    }, "serverInfo": {"name": "x"}});
    let capabilities = decode_initialize_result(&result).unwrap();
    let provided: Vec<Feature> = Feature::ALL
        .into_iter()
        .filter(|f| capabilities.supports(*f) == Provided::Provided)
        .collect();
    // renameProvider: true offers rename but not prepareRename (that needs the options' prepareProvider).
    assert_eq!(
        provided,
        [
            Feature::Definition,
            Feature::References,
            Feature::Rename,
            Feature::CallHierarchy
        ]
    );
    assert_eq!(
        Feature::PrepareRename.capability(),
        "renameProvider/prepareProvider"
    );
    let with_prepare = json!({"capabilities": {"renameProvider": {"prepareProvider": true}}});
    let capabilities = decode_initialize_result(&with_prepare).unwrap();
    assert_eq!(
        capabilities.supports(Feature::PrepareRename),
        Provided::Provided
    );
    assert_eq!(
        capabilities.supports(Feature::Definition),
        Provided::NotProvided
    );
}
