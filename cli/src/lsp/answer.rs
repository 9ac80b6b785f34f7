//! Each query asked and its answer rendered, as text and as JSON.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};
use wirekit_lsp::decode::{
    symbol_kind_name, CallHierarchyItem, DiagnosticCode, DocumentSymbol, DocumentSymbols, Location,
    PrepareRename,
};
use wirekit_lsp::text::{to_server, LineColumn};
use wirekit_lsp::{Client, Feature, Position, SettleOutcome, MAX_PUBLISHED_URIS};

use super::places::Places;
use super::query::{AtQuery, Query};
use super::Answer;

type Outcome = Result<Answer, (&'static str, String)>;

fn failed(error: wirekit_lsp::RequestError) -> (&'static str, String) {
    (error.code(), error.to_string())
}

/// The server's position for a person's place in `file` (the one converter).
fn position(
    texts: &[(PathBuf, String)],
    file: &Path,
    at: LineColumn,
) -> Result<Position, (&'static str, String)> {
    let text = texts
        .iter()
        .find(|(f, _)| f == file)
        .map_or("", |(_, t)| t.as_str());
    to_server(text, at).map_err(|e| ("bad_place", format!("{}:{at}: {e}", file.display())))
}

pub(super) fn answer(
    client: &mut Client,
    query: &Query,
    texts: &[(PathBuf, String)],
    timeout: Duration,
    places: &mut Places,
) -> Outcome {
    match query {
        Query::At(kind, file, at) => {
            let position = position(texts, file, *at)?;
            match kind {
                AtQuery::Definition => {
                    let found = client.definition(file, position).map_err(failed)?;
                    Ok(locations(client, places, &found, "no definition found"))
                }
                AtQuery::References => {
                    let found = client.references(file, position).map_err(failed)?;
                    Ok(locations(client, places, &found, "no reference found"))
                }
                AtQuery::Hover => {
                    let hover = client.hover(file, position).map_err(failed)?;
                    Ok(match hover {
                        Some(hover) => Answer {
                            text: format!("{}\n", hover.text.trim_end()),
                            json: json!({"text": hover.text, "markup": format!("{:?}", hover.markup).to_lowercase()}),
                            answered: true,
                        },
                        None => Answer {
                            text: "no hover here\n".into(),
                            json: Value::Null,
                            answered: true,
                        },
                    })
                }
                AtQuery::CallsIncoming | AtQuery::CallsOutgoing => {
                    calls(client, places, *kind, file, position)
                }
            }
        }
        Query::Symbols(file) => {
            let symbols = client.document_symbols(file).map_err(failed)?;
            Ok(outline(client, places, &symbols, file))
        }
        Query::Rename(file, at, new_name) => rename(client, places, texts, file, *at, new_name),
        Query::Diagnostics(files) => diagnostics(client, places, files, timeout),
    }
}

fn locations(client: &Client, places: &mut Places, found: &[Location], none: &str) -> Answer {
    let mut text = String::new();
    let mut list = Vec::new();
    for location in found {
        let place = places.place(client, &location.uri, location.range);
        let _ = writeln!(text, "{}", place.text());
        list.push(place.json());
    }
    if found.is_empty() {
        let _ = writeln!(text, "{none}");
    }
    Answer {
        text,
        json: Value::Array(list),
        answered: true,
    }
}

fn item_json(client: &Client, places: &mut Places, item: &CallHierarchyItem) -> (String, Value) {
    let place = places.place(client, &item.uri, item.selection_range);
    let kind = symbol_kind_name(item.kind);
    (
        format!("{} ({kind}) {}", item.name, place.text()),
        json!({"name": item.name, "kind": kind, "at": place.json()}),
    )
}

fn calls(
    client: &mut Client,
    places: &mut Places,
    kind: AtQuery,
    file: &Path,
    position: Position,
) -> Outcome {
    let items = client
        .prepare_call_hierarchy(file, position)
        .map_err(failed)?;
    let mut text = String::new();
    let mut list = Vec::new();
    if items.is_empty() {
        text.push_str("nothing to call here\n");
    }
    for item in &items {
        let (line, item_value) = item_json(client, places, item);
        let _ = writeln!(text, "{line}");
        let mut calls = Vec::new();
        if kind == AtQuery::CallsIncoming {
            for call in client.incoming_calls(item).map_err(failed)? {
                let (line, value) = item_json(client, places, &call.from);
                let _ = writeln!(text, "  <- {line}");
                calls.push(json!({"from": value, "call_sites": call.from_ranges.len()}));
            }
        } else {
            for call in client.outgoing_calls(item).map_err(failed)? {
                let (line, value) = item_json(client, places, &call.to);
                let _ = writeln!(text, "  -> {line}");
                calls.push(json!({"to": value, "call_sites": call.from_ranges.len()}));
            }
        }
        if calls.is_empty() {
            text.push_str("  (no calls)\n");
        }
        list.push(json!({"item": item_value, "calls": calls}));
    }
    Ok(Answer {
        text,
        json: Value::Array(list),
        answered: true,
    })
}

fn outline(client: &Client, places: &mut Places, symbols: &DocumentSymbols, file: &Path) -> Answer {
    let mut text = String::new();
    let mut list = Vec::new();
    match symbols {
        DocumentSymbols::Hierarchical(symbols) => {
            fn walk(
                client: &Client,
                places: &mut Places,
                uri: &str,
                symbols: &[DocumentSymbol],
                depth: usize,
                text: &mut String,
                list: &mut Vec<Value>,
            ) {
                for symbol in symbols {
                    let place = places.place(client, uri, symbol.selection_range);
                    let kind = symbol_kind_name(symbol.kind);
                    let _ = writeln!(
                        text,
                        "{}{} {} {}:{}",
                        "  ".repeat(depth),
                        kind,
                        symbol.name,
                        place.start.line,
                        place.start.column
                    );
                    let mut children = Vec::new();
                    walk(
                        client,
                        places,
                        uri,
                        &symbol.children,
                        depth + 1,
                        text,
                        &mut children,
                    );
                    list.push(json!({"name": symbol.name, "kind": kind, "detail": symbol.detail, "line": place.start.line, "column": place.start.column, "children": children}));
                }
            }
            // Hierarchical symbols carry no URI: they are the asked file's.
            let uri = client.uri_of(file).unwrap_or_default();
            walk(client, places, &uri, symbols, 0, &mut text, &mut list);
        }
        DocumentSymbols::Flat(symbols) => {
            for symbol in symbols {
                let place = places.place(client, &symbol.uri, symbol.range);
                let kind = symbol_kind_name(symbol.kind);
                let container = symbol
                    .container_name
                    .as_deref()
                    .filter(|c| !c.trim().is_empty())
                    .map(|c| format!(" in {c}"))
                    .unwrap_or_default();
                let _ = writeln!(
                    text,
                    "{kind} {}{container} {}:{}",
                    symbol.name, place.start.line, place.start.column
                );
                list.push(json!({"name": symbol.name, "kind": kind, "container": symbol.container_name, "line": place.start.line, "column": place.start.column}));
            }
        }
    }
    if symbols.is_empty() {
        text.push_str("no symbols\n");
    }
    Answer {
        text,
        json: Value::Array(list),
        answered: true,
    }
}

fn rename(
    client: &mut Client,
    places: &mut Places,
    texts: &[(PathBuf, String)],
    file: &Path,
    at: LineColumn,
    new_name: &str,
) -> Outcome {
    let position = position(texts, file, at)?;
    if client.supports(Feature::PrepareRename)
        && client.prepare_rename(file, position).map_err(failed)? == PrepareRename::CannotRename
    {
        return Err((
            "cannot_rename",
            format!(
                "{}:{at}: the server cannot rename anything here",
                places.shown(file)
            ),
        ));
    }
    let edit = client.rename(file, position, new_name).map_err(failed)?;
    let mut text = String::new();
    let mut files = Vec::new();
    for file_edits in &edit.files {
        let mut edits = Vec::new();
        for change in &file_edits.edits {
            let place = places.place(client, &file_edits.uri, change.range);
            let _ = writeln!(
                text,
                "{}-{}: {:?}",
                place.text(),
                place.end,
                change.new_text
            );
            let mut value = place.json();
            value["new_text"] = json!(change.new_text);
            edits.push(value);
        }
        files.push(json!({"uri": file_edits.uri, "edits": edits}));
    }
    if edit.is_empty() {
        text.push_str("the server proposes no edit\n");
    } else {
        text.push_str("(nothing was written)\n");
    }
    Ok(Answer {
        text,
        json: json!({"files": files, "written": false}),
        answered: true,
    })
}

fn diagnostics(
    client: &mut Client,
    places: &mut Places,
    files: &[PathBuf],
    timeout: Duration,
) -> Outcome {
    let settlement = client.settle(files, timeout, true).map_err(failed)?;
    let settled = settlement.outcome == SettleOutcome::Settled;
    let mut text = String::new();
    let mut list = Vec::new();
    for publication in &settlement.publications {
        for diagnostic in &publication.diagnostics {
            let place = places.place(client, &publication.uri, diagnostic.range);
            let source = diagnostic
                .source
                .as_deref()
                .map(|s| format!(" [{s}]"))
                .unwrap_or_default();
            let _ = writeln!(
                text,
                "{}: {}: {}{source}",
                place.text(),
                diagnostic.severity.name(),
                diagnostic.message
            );
            let mut value = place.json();
            value["severity"] = json!(diagnostic.severity.name());
            value["message"] = json!(diagnostic.message);
            value["source"] = json!(diagnostic.source);
            value["code"] = diagnostic
                .code
                .as_ref()
                .map_or(Value::Null, DiagnosticCode::to_json);
            list.push(value);
        }
    }
    let evicted = client.diagnostics_evicted();
    if evicted > 0 {
        let _ = writeln!(
            text,
            "note: the server published diagnostics for more than {MAX_PUBLISHED_URIS} files; the \
             {evicted} oldest publications were dropped, so those files' diagnostics are unknown"
        );
    }
    let failed_early = settlement.outcome == SettleOutcome::ServerFailed;
    if failed_early {
        text.push_str("unsettled: the server reported a failure and then published nothing more\n");
    } else if !settled {
        text.push_str("unsettled: the server did not settle before the deadline; these diagnostics may be stale\n");
    } else if list.is_empty() && settlement.failure.is_none() {
        text.push_str("no diagnostics\n");
    }
    if let Some(failure) = &settlement.failure {
        let _ = writeln!(
            text,
            "the server reported a failure, so this cannot be called clean: {failure}"
        );
    }
    Ok(Answer {
        text,
        json: json!({"settled": settled, "ended_on_failure": failed_early, "diagnostics": list, "server_failure": settlement.failure,
                     "publications_evicted": evicted,
                     "waited_ms": u64::try_from(settlement.waited.as_millis()).unwrap_or(u64::MAX)}),
        // A failure the server reported while asked: the answer is not one to trust.
        answered: settled && settlement.failure.is_none(),
    })
}
