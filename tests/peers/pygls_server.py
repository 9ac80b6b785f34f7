"""A pygls 2.1 language server for the peer tests, speaking lsp-min@3.17
(tests/protocols): publishes a diagnostic for every line holding TODO when a
document opens, logs a message, and answers hover with the hovered line and
the `peer` configuration section it asks the client for
(workspace/configuration) while it answers."""

from lsprotocol import types
from pygls.lsp.server import LanguageServer

server = LanguageServer("pygls-peer", "2.1")


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    document = params.text_document
    diagnostics = [
        types.Diagnostic(
            range=types.Range(
                start=types.Position(line=number, character=line.index("TODO")),
                end=types.Position(line=number, character=line.index("TODO") + 4),
            ),
            message="a TODO is left",
            severity=types.DiagnosticSeverity.Warning,
            source="pygls-peer",
        )
        for number, line in enumerate(document.text.splitlines())
        if "TODO" in line
    ]
    ls.window_log_message(types.LogMessageParams(type=types.MessageType.Info, message=f"opened {document.uri}"))
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=document.uri, version=document.version, diagnostics=diagnostics)
    )


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def hover(ls: LanguageServer, params: types.HoverParams) -> types.Hover:
    config = await ls.workspace_configuration_async(
        types.ConfigurationParams(items=[types.ConfigurationItem(section="peer")])
    )
    line = ls.workspace.get_text_document(params.text_document.uri).lines[params.position.line]
    return types.Hover(
        contents=types.MarkupContent(
            kind=types.MarkupKind.PlainText, value=f"{line.strip()} | peer config: {config!r}"
        )
    )


if __name__ == "__main__":
    server.start_io()
