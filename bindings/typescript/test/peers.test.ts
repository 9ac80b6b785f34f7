/**
 * Third-party peers, driven by the TypeScript client and by `wirekit drive`
 * alike: a vscode-jsonrpc 10 server that asks the client a declared and an
 * undeclared request in the middle of a call, and a pygls 2.1 language
 * server through a full LSP exchange (both speak lsp-min@3.17, the minimal
 * protocol folder of tests/protocols); and snake-eyes-analyzer 0.1.0, a
 * third-party Gaze analyzer, driven through every method and validated.
 * The peers are installed by package name (vscode-jsonrpc as a
 * devDependency, the Python ones by tests/peers/install.sh, which
 * run-tests.sh runs).
 */

import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";

import { Client, loadProtocol, spawnServer, type JsonValue } from "../src/index.js";
import { repoRoot } from "./support.js";

const ROOT = repoRoot();
const WIREKIT = join(ROOT, "target", "debug", "wirekit");
const PROTOCOLS = join(ROOT, "tests", "protocols");
const PEER_PYTHON = join(ROOT, "tests", "peers", ".venv", "bin", "python");
const SNAKE_EYES = join(ROOT, "tests", "peers", ".venv", "bin", "snake-eyes");
const VSCODE_SERVER = join(ROOT, "bindings", "typescript", "test", "peers", "vscode-jsonrpc-server.mjs");
const PYGLS_SERVER = join(ROOT, "tests", "peers", "pygls_server.py");

const lspMin = loadProtocol(join(PROTOCOLS, "lsp-min", "3.17"));

const DOC = "file:///peer/a.py";
const CALLS = [
  { method: "initialize", params: { processId: null, rootUri: "file:///peer", capabilities: {} } },
  { method: "initialized", params: {} },
  { method: "textDocument/didOpen", params: { textDocument: { uri: DOC, languageId: "python", version: 1, text: "x = 1\n# TODO: more\n" } } },
  { method: "textDocument/hover", params: { textDocument: { uri: DOC }, position: { line: 1, character: 3 } } },
  { method: "shutdown" },
  { method: "exit" },
];

/** The LSP exchange through the TypeScript client; what the server asked and what was reported. */
async function exchange(command: string, args: string[]): Promise<{ hover: JsonValue; asked: JsonValue[]; problems: string[]; notifications: string[] }> {
  const asked: JsonValue[] = [];
  const problems: string[] = [];
  const notifications: string[] = [];
  const client = spawnServer(command, args, lspMin, {
    defaultTimeoutMs: 20000,
    onRequest: {
      "workspace/configuration": (params) => {
        asked.push(params ?? null);
        return [{ answer: 42 }];
      },
    },
    onProtocolError: (error) => problems.push(error.message),
    onNotification: (n) => notifications.push(n.method),
  }) as unknown as Client;
  const generic = client as unknown as {
    request(method: string, params?: JsonValue): Promise<JsonValue>;
    notify(method: string, params?: JsonValue): void;
  };
  await generic.request("initialize", CALLS[0]!.params as JsonValue);
  generic.notify("initialized", {});
  generic.notify("textDocument/didOpen", CALLS[2]!.params as JsonValue);
  const hover = await generic.request("textDocument/hover", CALLS[3]!.params as JsonValue);
  assert.equal(await generic.request("shutdown"), null);
  generic.notify("exit");
  const end = await client.ended;
  assert.equal(end.code, 0, `the server exits cleanly: ${end.stderr}`);
  return { hover, asked, problems, notifications };
}

/** `wirekit drive` over the same exchange: its output lines, exit status and recording. */
function drive(command: string[]): { lines: Record<string, JsonValue>[]; status: number | null; recording: string } {
  const dir = mkdtempSync(join(tmpdir(), "wirekit-peers-"));
  writeFileSync(join(dir, "calls.ndjson"), CALLS.map((c) => JSON.stringify(c)).join("\n") + "\n");
  writeFileSync(join(dir, "answers.json"), JSON.stringify({ "workspace/configuration": { result: [{ answer: 42 }] } }));
  const recording = join(dir, "session.bin");
  const run = spawnSync(
    WIREKIT,
    ["drive", "--schemas", PROTOCOLS, "--protocol", "lsp-min@3.17", "--requests", join(dir, "calls.ndjson"), "--answers", join(dir, "answers.json"), "--record", recording, "--", ...command],
    { encoding: "utf8", timeout: 60000 },
  );
  const lines = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, JsonValue>);
  return { lines, status: run.status, recording };
}

/** Every call of the requests file got its result; every notification was sent. */
function assertEveryCallAnswered(lines: Record<string, JsonValue>[]): void {
  const calls = lines.filter((l) => "method" in l);
  assert.deepEqual(calls.map((l) => l["method"]), ["initialize", "textDocument/hover", "shutdown"]);
  for (const call of calls) assert.ok("result" in call, JSON.stringify(call));
  const sent = lines.filter((l) => "sent" in l).map((l) => l["notification"]);
  assert.deepEqual(sent, ["initialized", "textDocument/didOpen", "exit"]);
}

describe("a vscode-jsonrpc 10 server asking the client mid-call", () => {
  it("the TypeScript client answers the declared request with its handler and the undeclared one with -32601, and reports it", async () => {
    const { hover, asked, problems } = await exchange("node", [VSCODE_SERVER]);
    const seen = JSON.parse((hover as { contents: string }).contents) as { config: JsonValue; undeclared: { code: number } };
    assert.deepEqual(seen.config, [{ answer: 42 }]);
    assert.equal(seen.undeclared.code, -32601);
    assert.deepEqual(asked, [{ items: [{ section: "peer" }] }]);
    assert.equal(problems.length, 1, problems.join("\n"));
    assert.match(problems[0]!, /peer\/undeclared.*does not declare/);
  });

  it("wirekit drive answers both, finishes every call, reports the undeclared request and records a session validate accepts but for it", () => {
    const { lines, status, recording } = drive(["node", VSCODE_SERVER]);
    assertEveryCallAnswered(lines);
    const asked = lines.filter((l) => "server_request" in l);
    assert.deepEqual(asked.map((l) => [l["server_request"], "result" in l ? "result" : (l["error"] as { code: number }).code]), [
      ["workspace/configuration", "result"],
      ["peer/undeclared", -32601],
    ]);
    assert.equal(asked[1]!["problem"] !== undefined, true);
    assert.equal(status, 1, "the undeclared request is a problem the exit status reports");
    const validate = spawnSync(WIREKIT, ["validate", "--schemas", PROTOCOLS, "--protocol", "lsp-min@3.17", recording], { encoding: "utf8" });
    assert.match(validate.stdout, /peer\/undeclared/);
    assert.equal(validate.stdout.trim().split("\n").length, 1, validate.stdout);
  });
});

describe("a pygls 2.1 language server through a full LSP exchange", () => {
  it("the TypeScript client gets every answer, the diagnostics and the log message, and answers workspace/configuration", async () => {
    const { hover, asked, problems, notifications } = await exchange(PEER_PYTHON, [PYGLS_SERVER]);
    assert.deepEqual(problems, []);
    assert.deepEqual(asked, [{ items: [{ section: "peer" }] }]);
    assert.match(JSON.stringify(hover), /# TODO: more \| peer config: .*'answer': 42/);
    assert.deepEqual(notifications.sort(), ["textDocument/publishDiagnostics", "window/logMessage"]);
  });

  it("wirekit drive finishes every call, and its recording keeps pygls's Content-Type headers byte for byte", () => {
    const { lines, status, recording } = drive([PEER_PYTHON, PYGLS_SERVER]);
    assertEveryCallAnswered(lines);
    assert.equal(status, 0, JSON.stringify(lines));
    const bytes = readFileSync(recording, "latin1");
    // pygls writes every frame with a Content-Type header: initialize, the configuration request,
    // the log message, the diagnostics, hover and shutdown answers.
    assert.equal(bytes.match(/Content-Type: application\/vscode-jsonrpc; charset=utf-8\r\n/g)?.length, 6);
    const frames = execFileSync(WIREKIT, ["frames", "--framing", "content-length", recording], { encoding: "utf8" })
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { headers?: string[] });
    assert.equal(frames.filter((f) => f.headers?.some((h) => h.startsWith("Content-Type:"))).length, 6);
    const validate = spawnSync(WIREKIT, ["validate", "--schemas", PROTOCOLS, "--protocol", "lsp-min@3.17", recording], { encoding: "utf8" });
    assert.equal(validate.status, 0, validate.stdout + validate.stderr);
  });
});

describe("snake-eyes-analyzer 0.1.0, a third-party Gaze analyzer", () => {
  it("is driven through every method and its session validates with no false alarm", () => {
    const project = join(ROOT, "tests", "peers", "snake-project");
    const methods = ["initialize", "coverage", "complexity", "test_mapping", "analyze", "classify_signals", "discover"];
    const dir = mkdtempSync(join(tmpdir(), "wirekit-snake-"));
    const calls = [...methods.map((method) => ({ method, params: { root_path: project } })), { method: "shutdown" }];
    writeFileSync(join(dir, "calls.ndjson"), calls.map((c) => JSON.stringify(c)).join("\n") + "\n");
    const recording = join(dir, "session.ndjson");
    const run = spawnSync(WIREKIT, ["drive", "--protocol", "gaze-analyzer@1.1.0", "--requests", join(dir, "calls.ndjson"), "--record", recording, "--", SNAKE_EYES, "--stdio"], {
      encoding: "utf8",
      timeout: 120000,
    });
    const lines = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, JsonValue>);
    assert.deepEqual(lines.map((l) => l["method"]), [...methods, "shutdown"]);
    for (const line of lines) assert.ok("result" in line, JSON.stringify(line));
    assert.equal(run.status, 0, run.stdout);
    const validate = spawnSync(WIREKIT, ["validate", "--protocol", "gaze-analyzer@1.1.0", recording], { encoding: "utf8" });
    assert.equal(validate.status, 0, validate.stdout + validate.stderr);
  });

  it("its real deviations are reported with the right kind: a call before initialize accepted, a notification answered, an invalid id answered with a result", () => {
    const project = join(ROOT, "tests", "peers", "snake-project");
    const recorder = join(ROOT, "tests", "peers", "snake_deviations.py");
    const recorded = spawnSync(PEER_PYTHON, [recorder, SNAKE_EYES, project], { encoding: "utf8", timeout: 120000 });
    assert.equal(recorded.status, 0, recorded.stderr);
    const dir = mkdtempSync(join(tmpdir(), "wirekit-snake-deviations-"));
    const capture = join(dir, "deviations.ndjson");
    writeFileSync(capture, recorded.stdout);
    const validate = spawnSync(WIREKIT, ["validate", "--json", "--protocol", "gaze-analyzer@1.1.0", capture], { encoding: "utf8" });
    assert.equal(validate.status, 1, validate.stdout + validate.stderr);
    const found = validate.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { frame: number; kind: string });
    // The client's faults (which a host would never send), then the server's answers to them.
    assert.deepEqual(
      found.map((p) => [p.frame, p.kind]),
      [
        [0, "lifecycle"],
        [1, "accepted_invalid"],
        [4, "unknown_method"],
        [5, "answered_notification"],
        [6, "envelope"],
        [7, "result_for_invalid_id"],
      ],
    );
  });
});



describe("the LSP lifecycle carried by the TypeScript client (lsp@3.17) against pygls 2.1", () => {
  it("initialized follows initialize unasked, an undeclared provider is refused unsent, close() sends shutdown then exit and pygls exits 0", async () => {
    const lsp = loadProtocol(join(ROOT, "schemas", "lsp", "3.17"));
    assert.equal(lsp.shutdown, "shutdown");
    assert.equal(lsp.methods["initialize"]?.lifecycle?.followedBy, "initialized");
    assert.equal(lsp.methods["shutdown"]?.lifecycle?.followedBy, "exit");
    const problems: string[] = [];
    const notifications: string[] = [];
    const asked: JsonValue[] = [];
    const client = spawnServer(PEER_PYTHON, [PYGLS_SERVER], lsp, {
      defaultTimeoutMs: 20000,
      onRequest: {
        "workspace/configuration": (params) => {
          asked.push(params ?? null);
          return [null];
        },
      },
      onProtocolError: (error) => problems.push(error.message),
      onNotification: (n) => notifications.push(n.method),
    }) as unknown as Client;
    const generic = client as unknown as {
      request(method: string, params?: JsonValue): Promise<JsonValue>;
      notify(method: string, params?: JsonValue): void;
    };
    const init = (await generic.request("initialize", {
      processId: null,
      rootUri: "file:///peer",
      capabilities: { window: { workDoneProgress: true }, workspace: { applyEdit: false, workspaceEdit: { resourceOperations: [] } } },
    })) as { capabilities: Record<string, JsonValue> };
    assert.ok(init.capabilities["hoverProvider"], "pygls declares hover");
    // The client sent `initialized` itself: the session is ready, so a second one is refused locally.
    assert.throws(() => generic.notify("initialized", {}), /initialized/);
    generic.notify("textDocument/didOpen", { textDocument: { uri: DOC, languageId: "python", version: 1, text: "x = 1\n# TODO: more\n" } });
    const hover = (await generic.request("textDocument/hover", { textDocument: { uri: DOC }, position: { line: 1, character: 3 } })) as { contents: { value: string } };
    assert.match(hover.contents.value, /TODO: more \| peer config/);
    assert.equal(asked.length, 1, "pygls asked workspace/configuration once, and got an answer");
    // pygls declares no definitionProvider: the gate refuses the request without sending it.
    await assert.rejects(generic.request("textDocument/definition", { textDocument: { uri: DOC }, position: { line: 0, character: 0 } }), (e: Error) => e.name === "CapabilityError");
    const end = await client.close();
    assert.equal(end.code, 0, `pygls exits 0 only after shutdown then exit: ${end.stderr}`);
    assert.deepEqual(problems, []);
    assert.ok(notifications.includes("textDocument/publishDiagnostics"), notifications.join(", "));
  });
});
