//! Runs every case of the language-neutral vectors in
//! `tests/vectors/framing/*.json` (see `tests/vectors/README.md`), three
//! ways: the whole input in one push, one byte a push, and split in two
//! pushes at every index. All must yield exactly the expected sequence.

// A test harness reports a failed expectation by panicking.
#![allow(clippy::panic)]

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use wirekit::framing::{decoder_for, encoder_for, FaultKind, FrameLimits, Framing};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct VectorFile {
    description: String,
    cases: Vec<Case>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    framing: String,
    max_frame_bytes: Option<usize>,
    max_header_bytes: Option<usize>,
    #[serde(default)]
    strict_line_endings: bool,
    input: Option<String>,
    input_hex: Option<String>,
    expect: Vec<Expected>,
    #[serde(default)]
    encodes_to_input: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    frame: Option<String>,
    fault: Option<String>,
    offset: u64,
}

/// One decoder result, comparable.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    Frame { body: String, offset: u64 },
    Fault { kind: FaultKind, offset: u64 },
}

fn vector_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/framing")
}

fn load_all() -> Vec<(String, VectorFile)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(vector_dir())
        .expect("tests/vectors/framing exists")
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no vector files found");
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("readable vector file");
            let name = path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            let file: VectorFile = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{name}: not a valid vector file: {e}"));
            (name, file)
        })
        .collect()
}

fn hex(text: &str) -> Vec<u8> {
    assert!(text.len() % 2 == 0, "odd-length input_hex");
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex digits"))
        .collect()
}

impl Case {
    fn framing(&self) -> Framing {
        self.framing.parse().expect("known framing")
    }

    fn limits(&self) -> FrameLimits {
        let defaults = self.framing().default_limits();
        FrameLimits::new(
            self.max_frame_bytes.unwrap_or(defaults.max_frame_bytes),
            self.max_header_bytes.unwrap_or(defaults.max_header_bytes),
        )
        .with_strict_line_endings(self.strict_line_endings)
    }

    fn input(&self) -> Vec<u8> {
        match (&self.input, &self.input_hex) {
            (Some(text), None) => text.clone().into_bytes(),
            (None, Some(text)) => hex(text),
            _ => panic!("{}: exactly one of input / input_hex", self.name),
        }
    }

    fn expected(&self) -> Vec<Outcome> {
        self.expect
            .iter()
            .map(|e| match (&e.frame, &e.fault) {
                (Some(body), None) => Outcome::Frame {
                    body: body.clone(),
                    offset: e.offset,
                },
                (None, Some(name)) => Outcome::Fault {
                    kind: FaultKind::from_name(name)
                        .unwrap_or_else(|| panic!("{}: unknown fault {name}", self.name)),
                    offset: e.offset,
                },
                _ => panic!("{}: each expectation has frame or fault", self.name),
            })
            .collect()
    }

    /// Decode `chunks` in order, then finish, checking invariants as it goes.
    fn decode(&self, chunks: &[&[u8]]) -> Vec<Outcome> {
        let framing = self.framing();
        let limits = self.limits();
        let mut decoder = decoder_for(framing, limits);
        let mut out = Vec::new();
        let mut drain = |decoder: &mut Box<dyn wirekit::framing::FrameDecoder + Send>| {
            while let Some(item) = decoder.next_frame() {
                out.push(match item {
                    Ok(frame) => Outcome::Frame {
                        offset: frame.offset(),
                        body: frame.into_body(),
                    },
                    Err(error) => {
                        assert_eq!(error.framing(), framing);
                        assert!(!error.detail().is_empty());
                        assert_eq!(error.ends_stream(), framing == Framing::ContentLength);
                        assert_eq!(decoder.is_dead(), error.ends_stream(), "{}", self.name);
                        Outcome::Fault {
                            kind: error.kind(),
                            offset: error.offset(),
                        }
                    }
                });
            }
        };
        let held = limits.max_frame_bytes + limits.max_header_bytes + 1;
        for chunk in chunks {
            decoder.push(chunk);
            assert!(
                decoder.buffered_bytes() <= held + chunk.len(),
                "{}",
                self.name
            );
            drain(&mut decoder);
            assert!(decoder.buffered_bytes() <= held, "{}", self.name);
        }
        decoder.finish();
        drain(&mut decoder);
        decoder.push(b"Content-Length: 2\r\n\r\n{}\n");
        decoder.finish();
        assert!(
            decoder.next_frame().is_none(),
            "{}: input after finish",
            self.name
        );
        out
    }
}

#[test]
fn every_vector_case_in_every_chunking() {
    let mut cases = 0;
    for (file, vectors) in load_all() {
        assert!(!vectors.description.is_empty(), "{file}: description");
        let mut names = HashSet::new();
        for case in &vectors.cases {
            assert!(
                names.insert(case.name.as_str()),
                "{file}: duplicate {}",
                case.name
            );
            let input = case.input();
            let expected = case.expected();
            let context = |how: &str| format!("{file} / {} / {how}", case.name);
            assert_eq!(case.decode(&[&input]), expected, "{}", context("whole"));
            let bytes: Vec<&[u8]> = input.chunks(1).collect();
            assert_eq!(
                case.decode(&bytes),
                expected,
                "{}",
                context("byte at a time")
            );
            for split in 0..=input.len() {
                let (a, b) = input.split_at(split);
                let got = case.decode(&[a, b]);
                assert_eq!(got, expected, "{}", context(&format!("split at {split}")));
            }
            if case.encodes_to_input {
                let encoder = encoder_for(case.framing(), case.limits());
                let mut wire = Vec::new();
                for e in &expected {
                    let Outcome::Frame { body, .. } = e else {
                        panic!("{}: encodes_to_input with a fault", case.name);
                    };
                    encoder
                        .encode_into(body.as_bytes(), &mut wire)
                        .unwrap_or_else(|e| panic!("{}: {e}", context("encode")));
                }
                assert!(wire == input, "{}", context("encodes to input"));
            }
            cases += 1;
        }
    }
    assert!(cases > 100, "only {cases} cases");
}

#[test]
fn vectors_cover_every_decoder_fault_in_both_framings() {
    let mut seen: HashSet<(Framing, FaultKind)> = HashSet::new();
    let mut framings = HashSet::new();
    for (_, vectors) in load_all() {
        for case in &vectors.cases {
            framings.insert(case.framing());
            for outcome in case.expected() {
                if let Outcome::Fault { kind, .. } = outcome {
                    seen.insert((case.framing(), kind));
                }
            }
        }
    }
    assert_eq!(framings.len(), 2);
    let content_length = [
        FaultKind::HeaderTooLong,
        FaultKind::FrameTooLong,
        FaultKind::MissingContentLength,
        FaultKind::DuplicateContentLength,
        FaultKind::BadContentLength,
        FaultKind::MalformedHeader,
        FaultKind::BodyNotUtf8,
        FaultKind::TruncatedFrame,
    ];
    let ndjson = [
        FaultKind::FrameTooLong,
        FaultKind::BodyNotUtf8,
        FaultKind::EmptyFrame,
    ];
    for kind in content_length {
        assert!(seen.contains(&(Framing::ContentLength, kind)), "{kind}");
    }
    for kind in ndjson {
        assert!(seen.contains(&(Framing::Ndjson, kind)), "{kind}");
    }
}
