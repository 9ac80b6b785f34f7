// A server built on vscode-jsonrpc 10 (the library of VS Code's language
// clients and servers), for the peer tests: it speaks lsp-min@3.17
// (tests/protocols) and, while it answers textDocument/hover, asks the
// client a declared request (workspace/configuration) and an undeclared one
// (peer/undeclared), then answers the hover with what it got back.
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node";

const connection = createMessageConnection(new StreamMessageReader(process.stdin), new StreamMessageWriter(process.stdout));

connection.onRequest("initialize", () => ({ capabilities: { hoverProvider: true }, serverInfo: { name: "vscode-jsonrpc-peer", version: "10" } }));
connection.onNotification("initialized", () => {
  void connection.sendNotification("window/logMessage", { type: 3, message: "vscode-jsonrpc peer initialized" });
});
connection.onRequest("textDocument/hover", async (params) => {
  const config = await connection.sendRequest("workspace/configuration", { items: [{ section: "peer" }] });
  let undeclared;
  try {
    undeclared = { result: await connection.sendRequest("peer/undeclared", { why: "not in the manifest" }) };
  } catch (error) {
    undeclared = { code: error.code, message: error.message };
  }
  return { contents: JSON.stringify({ config, undeclared, line: params.position.line }) };
});
connection.onRequest("shutdown", () => null);
connection.onNotification("exit", () => process.exit(0));
connection.listen();
