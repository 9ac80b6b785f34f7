//! A gzkit authoring guide written against the generated types and server
//! trait: its typed answers come out as the spec's worked examples, byte
//! for byte (fields in schema order, `9.0` kept).

use serde_json::json;
use wirekit::envelope::ErrorObject;
use wirekit::framing::encoder_for;
use wirekit::serve::{ServeOptions, Server};
use wirekit::validate::Protocol;
use wirekit_protocols::gzkit_authoring_guide::types::{
    AnalyzeParams, AnalyzeResult, InitializeParams, InitializeResult, ShutdownParams,
    ShutdownResult,
};
use wirekit_protocols::gzkit_authoring_guide::{
    GzkitAuthoringGuideHandler, GzkitAuthoringGuideServer,
};

struct Guide;

impl GzkitAuthoringGuideServer for Guide {
    fn initialize(&mut self, _params: InitializeParams) -> Result<InitializeResult, ErrorObject> {
        serde_json::from_value(json!({"capabilities": ["analyze"], "version": "1.0"}))
            .map_err(|e| ErrorObject::new(-32603, e.to_string()))
    }

    fn analyze(&mut self, params: AnalyzeParams) -> Result<AnalyzeResult, ErrorObject> {
        // Built from members in another order than the schema's, on purpose.
        serde_json::from_value(json!({"hints": [{
            "end_line": 78, "start_line": 42, "file_path": params.file_path, "metric": "radon_cc",
            "archetype": "arrowhead", "crossing_value": 9.0, "precedence_band": "approaching",
            "recommended_move": "Flatten nested conditions using early returns",
            "doctrinal_frame_headline": "Nesting depth approaching warn threshold"
        }]}))
        .map_err(|e| ErrorObject::new(-32603, e.to_string()))
    }

    fn shutdown(&mut self, _params: ShutdownParams) -> Result<ShutdownResult, ErrorObject> {
        Ok(ShutdownResult::default())
    }
}

#[test]
fn typed_answers_are_the_worked_examples_byte_for_byte() {
    let gzkit = wirekit_protocols::protocol("gzkit-authoring-guide").expect("embedded");
    let input = frame_all(
        &gzkit,
        &[
            r#"{"id":1,"method":"initialize","params":{"clientVersion":"1.0"}}"#,
            r#"{"id":2,"method":"analyze","params":{"file_path":"/src/mymodule/parser.py"}}"#,
        ],
    );
    let mut output = Vec::new();
    Server::new(gzkit, ServeOptions::default())
        .serve(
            &mut GzkitAuthoringGuideHandler(Guide),
            &input[..],
            &mut output,
        )
        .expect("serves");
    let expected = concat!(
        "Content-Length: 62\r\n\r\n",
        r#"{"id":1,"result":{"version":"1.0","capabilities":["analyze"]}}"#,
        "Content-Length: 333\r\n\r\n",
        r#"{"id":2,"result":{"hints":[{"metric":"radon_cc","precedence_band":"approaching","crossing_value":9.0,"archetype":"arrowhead","doctrinal_frame_headline":"Nesting depth approaching warn threshold","recommended_move":"Flatten nested conditions using early returns","file_path":"/src/mymodule/parser.py","start_line":42,"end_line":78}]}}"#,
    );
    assert_eq!(String::from_utf8_lossy(&output), expected);
}

fn frame_all(protocol: &Protocol, bodies: &[&str]) -> Vec<u8> {
    let transport = &protocol.manifest().transport;
    let encoder = encoder_for(transport.framing, transport.framing.default_limits());
    let mut out = Vec::new();
    for body in bodies {
        encoder
            .encode_into(body.as_bytes(), &mut out)
            .expect("frames");
    }
    out
}
