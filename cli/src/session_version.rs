//! Which version of a protocol a captured session speaks, when `validate`
//! is given the protocol's name without one: the version the server
//! declares (the manifest's `declared_version`, Gaze's `initialize` result
//! `/protocol_version`), else the one the client asks for (its
//! `version_negotiation` member, gzkit's `clientVersion`), when the
//! protocol has that version. Otherwise the newest, which then reports a
//! declared version it does not have as `version_mismatch`.

use std::collections::HashSet;

use wirekit::envelope::{self, EnvelopeOptions, Message};
use wirekit::framing::{decoder_for, Framing};
use wirekit::protocol::{compare_versions, version_text, ProtocolSource, Registry};

/// The `NAME@VERSION` to check `capture` against, for `name` given alone:
/// the version the session declares or negotiates where the registry has
/// it, else `name` itself (the newest version).
pub fn follow(registry: &Registry, name: &str, capture: &[u8]) -> String {
    let mut versions: Vec<&ProtocolSource> = registry
        .iter()
        .filter(|source| source.manifest.protocol == name)
        .collect();
    if versions.len() < 2 {
        return name.to_owned();
    }
    versions.sort_by(|a, b| compare_versions(&b.manifest.version, &a.manifest.version));
    let has = |version: &str| versions.iter().any(|s| s.manifest.version == version);
    for source in &versions {
        let Some(spoken) = spoken_version(source, capture) else {
            continue;
        };
        if has(&spoken) {
            return format!("{name}@{spoken}");
        }
        // A version the protocol lacks: the newest reports it.
        return name.to_owned();
    }
    name.to_owned()
}

/// The version `capture` declares (a server's result) or asks for (a
/// client's params), read as `source`'s manifest says.
fn spoken_version(source: &ProtocolSource, capture: &[u8]) -> Option<String> {
    let manifest = &source.manifest;
    let transport = &manifest.transport;
    let messages = messages(transport.framing, transport, capture);
    if let Some(declared) = &manifest.declared_version {
        let mut asked: HashSet<String> = HashSet::new();
        for message in &messages {
            match message {
                Message::Request(request) if request.method == declared.method => {
                    asked.insert(request.id.to_value().to_string());
                }
                Message::Response(response) => {
                    let answers = response
                        .id
                        .as_ref()
                        .is_some_and(|id| asked.contains(&id.to_value().to_string()));
                    if let (true, Ok(result)) = (answers, &response.outcome) {
                        if let Some(version) =
                            result.pointer(&declared.pointer).and_then(version_text)
                        {
                            return Some(version);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let negotiation = manifest.version_negotiation.as_ref()?;
    messages.iter().find_map(|message| match message {
        Message::Request(request) if request.method == negotiation.method => request
            .params
            .as_ref()
            .and_then(|params| params.pointer(&negotiation.client_pointer))
            .and_then(version_text),
        _ => None,
    })
}

/// Every frame of `capture` that decodes (leniently: only the version is
/// looked for here; `validate` judges the frames).
fn messages(
    framing: Framing,
    transport: &wirekit::protocol::Transport,
    capture: &[u8],
) -> Vec<Message> {
    let mut decoder = decoder_for(framing, transport.frame_limits());
    decoder.push(capture);
    decoder.finish();
    let options = EnvelopeOptions::new(transport.envelope);
    let mut out = Vec::new();
    while let Some(frame) = decoder.next_frame() {
        if let Ok(frame) = frame {
            if let Ok(message) = envelope::decode(frame.body().as_bytes(), &options) {
                out.push(message);
            }
        }
    }
    out
}
