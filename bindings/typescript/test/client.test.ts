/**
 * The client end to end over real pipes: the Gaze spec's minimal analyzer,
 * a wedged server, a crashing one, and the gzkit worked examples against a
 * scripted guide server; plus the in-memory paths (notifications, canonical
 * driver frames, server requests).
 */

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";

import type { AnalyzeResult, InitializeResult } from "../src/generated/gzkit_authoring_guide.js";
import {
  CapabilityError,
  Client,
  ClientError,
  ProtocolError,
  RpcError,
  InvalidParamsError,
  LifecycleError,
  SchemaError,
  ServerExitedError,
  spawnServer,
  TimeoutError,
  type TraceEvent,
} from "../src/runtime/client.js";
import { decodeMessage, encodeMessage } from "../src/runtime/envelope.js";
import { encoderFor } from "../src/runtime/framing.js";
import { Ajv2020 } from "ajv/dist/2020.js";

import { numberText } from "../src/runtime/json.js";
import type { SchemaValidator } from "../src/runtime/validation.js";
import type { ProtocolDescriptor } from "../src/runtime/protocol.js";
import {
  agentapiDriver,
  gazeAnalyzerV1_0_0,
  gazeAnalyzerV1_1_0,
  gzkitAuthoringGuide,
  lspProtocol,
  mcpV2025_06_18,
  RequestCancelledError,
  type RequestContext,
  type ServerRequestHandler,
} from "../src/index.js";
import type { Transport, TransportEnd } from "../src/runtime/transport.js";
import { loadVectors, repoRoot } from "./support.js";

const MINIMAL_ANALYZER = join(repoRoot(), "tests", "peers", "gaze_minimal_analyzer.py");

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof Error);
    return error;
  }
  assert.fail("expected a rejection");
}

describe("client over the Gaze spec's minimal analyzer (NDJSON, JSON-RPC 2.0)", () => {
  it("drives initialize, analyze and shutdown, and gates optional methods on capabilities", async () => {
    const trace: TraceEvent[] = [];
    const client = spawnServer("python3", [MINIMAL_ANALYZER], gazeAnalyzerV1_0_0, { onTrace: (e) => trace.push(e) });
    const init = await client.request("initialize", { root_path: "/tmp/project" });
    assert.equal(init.analyzer_name, "minimal-python");
    assert.equal(init.protocol_version, "1.0.0");
    assert.deepEqual(init.capabilities, { discover: false, test_mapping: false, classify_signals: false });
    assert.deepEqual([...(client.capabilities ?? [])], []);

    const sentBefore = trace.length;
    const refused = await rejection(client.request("discover", { root_path: "/tmp/project" }));
    assert.ok(refused instanceof CapabilityError);
    assert.equal(refused.capability, "discover");
    assert.equal(trace.length, sentBefore, "a refused optional method is never sent");

    const analyzed = await client.request("analyze", { root_path: "/tmp/project", patterns: ["./..."] });
    assert.deepEqual(analyzed, { functions: [] });
    const complexity = await client.request("complexity", { root_path: "/tmp/project" });
    assert.deepEqual(complexity.functions, []);

    const end = await client.close();
    assert.equal(end.code, 0);
    assert.deepEqual(
      trace.filter((e) => e.direction === "send").map((e) => e.body),
      [
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"root_path":"/tmp/project"}}',
        '{"jsonrpc":"2.0","id":2,"method":"analyze","params":{"root_path":"/tmp/project","patterns":["./..."]}}',
        '{"jsonrpc":"2.0","id":3,"method":"complexity","params":{"root_path":"/tmp/project"}}',
        '{"jsonrpc":"2.0","id":4,"method":"shutdown"}',
      ],
    );
    assert.deepEqual(
      trace.filter((e) => e.direction === "receive").map((e) => e.message?.kind),
      ["success_response", "success_response", "success_response", "success_response"],
    );
    const late = await rejection(client.request("analyze", { root_path: "/x" }));
    assert.ok(late instanceof ClientError);
  });

  it("answers an unknown method with the analyzer's own error", async () => {
    const loose: ProtocolDescriptor = { ...gazeAnalyzerV1_0_0, methods: {}, capabilities: undefined } as ProtocolDescriptor;
    const client = spawnServer("python3", [MINIMAL_ANALYZER], loose);
    const error = await rejection(client.request("frobnicate", { x: 1 }));
    assert.ok(error instanceof RpcError);
    assert.equal(error.code, -32601);
    assert.equal(error.message, "Method not found: frobnicate");
    assert.equal((await client.close()).code, 0);
  });
});

describe("client against misbehaving servers", () => {
  it("times out on a wedged server, kills it and rejects every pending request", async () => {
    // Two requests in flight at once: a descriptor without Gaze's one-request-at-a-time.
    const wedged = { ...gazeAnalyzerV1_0_0, oneRequestAtATime: false, methods: { ...gazeAnalyzerV1_0_0.methods, initialize: { kind: "request", direction: "client-to-server", timeoutMs: 300 } } } as typeof gazeAnalyzerV1_0_0;
    const client = spawnServer("python3", ["-c", "import sys\nfor line in sys.stdin:\n    pass\n"], wedged);
    const started = Date.now();
    const other = client.request("shutdown", undefined, { timeoutMs: 60000 });
    const error = await rejection(client.request("initialize", { root_path: "/x" }));
    assert.ok(error instanceof TimeoutError, String(error));
    assert.equal(error.timeoutMs, 300, "the method's own timeout applies");
    assert.ok(Date.now() - started < 5000);
    const otherError = await rejection(other);
    assert.ok(otherError instanceof ClientError && !(otherError instanceof TimeoutError));
    assert.equal(otherError.method, "shutdown");
    const end = await client.ended;
    assert.equal(end.signal, "SIGKILL");
    assert.ok(client.exit !== undefined);
  });

  it("sends one request at a time where the protocol says so: the second waits for the first answer", async () => {
    // The server answers initialize only after 0.4 s, and says whether analyze had arrived meanwhile.
    const script = [
      "import json, select, sys",
      "first = json.loads(sys.stdin.readline())",
      "early, _, _ = select.select([sys.stdin], [], [], 0.4)",
      'caps = {"discover": False, "test_mapping": False, "classify_signals": False}',
      'print(json.dumps({"jsonrpc": "2.0", "id": first["id"], "result": {"capabilities": caps, "protocol_version": "1.0.0", "analyzer_name": "a", "language": "python"}}), flush=True)',
      "second = json.loads(sys.stdin.readline())",
      'print(json.dumps({"jsonrpc": "2.0", "id": second["id"], "result": {"functions": [] if not early else None}}), flush=True)',
    ].join("\n");
    assert.equal(gazeAnalyzerV1_0_0.oneRequestAtATime, true);
    const client = spawnServer("python3", ["-c", script], gazeAnalyzerV1_0_0);
    const initialized = client.request("initialize", { root_path: "/x" });
    // Sent while initialize is pending: queued, and checked (lifecycle: ready) only when sent.
    const analyzed = client.request("analyze", { root_path: "/x" });
    assert.equal(client.pendingCount, 1, "only initialize is on the wire");
    await initialized;
    assert.deepEqual(await analyzed, { functions: [] });
    await client.close();
  });

  it("a per-request timeout overrides the method's", async () => {
    const client = spawnServer("python3", ["-c", "import sys\nfor line in sys.stdin:\n    pass\n"], gazeAnalyzerV1_0_0);
    const error = await rejection(client.request("initialize", { root_path: "/x" }, { timeoutMs: 150 }));
    assert.ok(error instanceof TimeoutError);
    assert.equal(error.timeoutMs, 150);
    await client.ended;
  });

  it("rejects pending requests with the stderr of a server that exits", async () => {
    const script = [
      "import sys",
      "sys.stdin.readline()",
      "sys.stderr.write('analyzer: cannot load .gaze.yaml: no such file\\n')",
      "sys.exit(3)",
    ].join("\n");
    const client = spawnServer("python3", ["-c", script], gazeAnalyzerV1_0_0);
    const error = await rejection(client.request("initialize", { root_path: "/x" }));
    assert.ok(error instanceof ServerExitedError, String(error));
    assert.equal(error.exitCode, 3);
    assert.equal(error.method, "initialize");
    assert.match(error.stderr, /cannot load \.gaze\.yaml/);
    assert.match(error.message, /exited with code 3; stderr: analyzer: cannot load \.gaze\.yaml: no such file/);
    const after = await rejection(client.request("analyze", { root_path: "/x" }));
    assert.ok(after instanceof ServerExitedError);
  });

  it("reports a server that cannot be started", async () => {
    const client = spawnServer("/nonexistent/wirekit-test-server", [], gazeAnalyzerV1_0_0);
    const error = await rejection(client.request("initialize", { root_path: "/x" }));
    assert.ok(error instanceof ServerExitedError);
    assert.match(error.message, /could not be started/);
  });

  it("kills a Content-Length server whose output cannot be framed", async () => {
    const script = "import sys\nsys.stdin.buffer.read(1)\nsys.stdout.write('{\"id\":1}\\n')\nsys.stdout.flush()\nsys.stdin.read()\n";
    const problems: ProtocolError[] = [];
    const client = spawnServer("python3", ["-c", script], gzkitAuthoringGuide, { onProtocolError: (e) => problems.push(e) });
    const error = await rejection(client.request("initialize", { clientVersion: "1.0" }));
    assert.ok(error instanceof ProtocolError, String(error));
    assert.equal(problems[0]?.reason?.kind, "MalformedHeader");
    await client.ended;
  });
});

/** The six worked examples of the gzkit spec, as frames: from the spec when it is at hand, checked against the shared vectors. */
function gzkitExamples(): string[] {
  const vectors = loadVectors("framing").find((f) => f.file === "gzkit_examples.json");
  assert.ok(vectors !== undefined);
  const fromVectors = vectors.cases.slice(0, 6).map((c) => c["input"] as string);
  // shared/ sits beside the checkout (on a developer machine and in CI).
  const spec = join(repoRoot(), "..", "shared", "specs", "gzkit-authoring-guide-protocol-1.0.md");
  if (!existsSync(spec)) return fromVectors;
  const text = readFileSync(spec, "utf8");
  const frames = [...text.matchAll(/^Content-Length: (\d+)\\r\\n\n\\r\\n\n(\{.*\})$/gm)].map((m) => {
    assert.equal(Buffer.byteLength(m[2] as string), Number(m[1]), "the spec's byte counts hold");
    return `Content-Length: ${m[1]}\r\n\r\n${m[2]}`;
  });
  assert.deepEqual(frames, fromVectors, "the spec's worked examples are the shared vectors'");
  return frames;
}

/** A scripted guide server: checks every frame it reads byte for byte against the next expected one and answers the scripted frame. */
const GUIDE_SERVER = `
import json, sys
pairs = json.loads(sys.argv[1])
inp, out = sys.stdin.buffer, sys.stdout.buffer
def read_frame():
    header = b""
    while not header.endswith(b"\\r\\n\\r\\n"):
        b = inp.read(1)
        if not b:
            return None
        header += b
    n = int(header.split(b":", 1)[1].split(b"\\r\\n", 1)[0].strip())
    return header + inp.read(n)
for request, response in pairs:
    frame = read_frame()
    if frame is None:
        sys.exit(0)
    if frame != request.encode():
        sys.stderr.write("guide: unexpected frame %r, wanted %r\\n" % (frame, request))
        sys.exit(4)
    out.write(response.encode())
    out.flush()
`;

function bodyOf(frame: string): string {
  return frame.slice(frame.indexOf("\r\n\r\n") + 4);
}

describe("client with the gzkit worked examples (Content-Length, bare)", () => {
  const [init, initAnswer, analyze, analyzeAnswer, mismatch, mismatchAnswer] = gzkitExamples() as [
    string, string, string, string, string, string,
  ];
  const frame = (body: string): string => new TextDecoder().decode(encoderFor("content-length").encode(body));

  it("examples 1 and 2 go out and come back byte for byte", async () => {
    const trace: TraceEvent[] = [];
    const pairs = [
      [init, initAnswer],
      [analyze, analyzeAnswer],
      [frame('{"id":3,"method":"shutdown","params":{}}'), frame('{"id":3,"result":{}}')],
    ];
    const client = spawnServer("python3", ["-c", GUIDE_SERVER, JSON.stringify(pairs)], gzkitAuthoringGuide, {
      onTrace: (e) => trace.push(e),
    });
    const initialized: InitializeResult = await client.request("initialize", { clientVersion: "1.0" });
    assert.deepEqual(initialized, { version: "1.0", capabilities: ["analyze"] });
    assert.ok(client.hasCapability("analyze"));
    const analyzed: AnalyzeResult = await client.request("analyze", { file_path: "/src/mymodule/parser.py" });
    const hint = analyzed.hints[0];
    assert.ok(hint !== undefined);
    assert.equal(hint.crossing_value, 9);
    assert.equal(hint.archetype, "arrowhead");
    assert.deepEqual([hint.start_line, hint.end_line], [42, 78]);
    assert.equal((await client.close()).code, 0);

    const sent = trace.filter((e) => e.direction === "send").map((e) => e.body);
    const received = trace.filter((e) => e.direction === "receive");
    assert.deepEqual(sent.slice(0, 2), [bodyOf(init), bodyOf(analyze)]);
    assert.deepEqual(received.slice(0, 2).map((e) => e.body), [bodyOf(initAnswer), bodyOf(analyzeAnswer)]);
    for (const event of received.slice(0, 2)) {
      assert.ok(event.message !== undefined);
      assert.equal(encodeMessage(event.message, "bare"), event.body, "re-encoded byte for byte (crossing_value 9.0 included)");
      assert.equal(frame(encodeMessage(event.message, "bare")), frame(event.body));
    }
  });

  it("example 3: the version mismatch error comes back byte for byte and the server exits", async () => {
    const trace: TraceEvent[] = [];
    const client = spawnServer("python3", ["-c", GUIDE_SERVER, JSON.stringify([[mismatch, mismatchAnswer]])], gzkitAuthoringGuide, {
      firstId: 3,
      onTrace: (e) => trace.push(e),
    });
    const error = await rejection(client.request("initialize", { clientVersion: "2.0" }));
    assert.ok(error instanceof RpcError, String(error));
    assert.equal(error.code, -32099);
    assert.equal(error.message, "VERSION_MISMATCH: client major version 2 is incompatible with server major version 1");
    const answer = trace.find((e) => e.direction === "receive");
    assert.ok(answer?.message !== undefined);
    assert.equal(encodeMessage(answer.message, "bare"), bodyOf(mismatchAnswer));
    assert.equal((await client.ended).code, 0);
    const after = await rejection(client.request("analyze", { file_path: "/x" }));
    assert.ok(after instanceof LifecycleError && after.reason === "session-ended", String(after));
    assert.match(after.message, /VERSION_MISMATCH \(-32099\), which ends the session/);
  });
});

/** An in-memory transport: records what the client writes, and lets the test play the server. */
class FakeTransport implements Transport {
  written: string[] = [];
  private data: ((chunk: Uint8Array) => void) | undefined;
  private end: ((end: TransportEnd) => void) | undefined;
  write(bytes: Uint8Array): void {
    this.written.push(new TextDecoder().decode(bytes));
  }
  onData(listener: (chunk: Uint8Array) => void): void {
    this.data = listener;
  }
  onEnd(listener: (end: TransportEnd) => void): void {
    this.end = listener;
  }
  endInput(): void {
    this.exit();
  }
  kill(): void {
    this.exit();
  }
  get stderrTail(): string {
    return "";
  }
  serverSends(text: string): void {
    this.data?.(new TextEncoder().encode(text));
  }
  exit(): void {
    this.end?.({ code: 0, signal: null, stderr: "" });
    this.end = undefined;
  }
}

describe("client in memory (Gaze: lenient ids)", () => {
  it("a server's request with a null or fractional id is answered and reported as a warning, its refusal as an error", () => {
    const transport = new FakeTransport();
    const reported: [string, string][] = [];
    new Client(transport, gazeAnalyzerV1_0_0, {
      onProtocolError: (e) => reported.push([e instanceof ProtocolError ? e.severity : "?", e.message]),
    });
    transport.serverSends('{"jsonrpc":"2.0","id":2.5,"method":"host.ping"}\n');
    transport.serverSends('{"jsonrpc":"2.0","id":null,"method":"host.ping"}\n');
    transport.serverSends('{"jsonrpc":"2.0","id":3,"method":"host.ping"}\n');
    // Each is answered, echoing its id (host.ping is not declared: -32601).
    assert.equal(transport.written.length, 3);
    assert.match(transport.written[0] ?? "", /"id":2\.5/);
    assert.match(transport.written[1] ?? "", /"id":null/);
    assert.deepEqual(
      reported.map(([severity]) => severity),
      ["warning", "error", "warning", "error", "error"],
      reported.map((r) => r.join(": ")).join("\n"),
    );
    assert.match(reported[0]?.[1] ?? "", /"host.ping" has the id 2.5: a number id written with a fraction.*discourages/);
    assert.match(reported[2]?.[1] ?? "", /"host.ping" has the id null: a null id/);
    assert.match(reported[4]?.[1] ?? "", /request "host.ping", which the protocol does not declare server-to-client/);
  });
});

describe("client in memory (a method both peers send)", () => {
  it("answers the server's request and takes the server's notification of a `both` method", async () => {
    const transport = new FakeTransport();
    const reported: string[] = [];
    const withPing = {
      ...gazeAnalyzerV1_0_0,
      methods: {
        ...gazeAnalyzerV1_0_0.methods,
        "host.ping": { kind: "request", direction: "both" },
        "host.progress": { kind: "notification", direction: "both" },
      },
    } as typeof gazeAnalyzerV1_0_0;
    const notes: string[] = [];
    new Client(transport, withPing, {
      onRequest: { "host.ping": () => null },
      onNotification: (n: { method: string }) => notes.push(n.method),
      onProtocolError: (e) => reported.push(e.message),
    });
    transport.serverSends('{"jsonrpc":"2.0","id":7,"method":"host.ping"}\n');
    transport.serverSends('{"jsonrpc":"2.0","method":"host.progress","params":{}}\n');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(reported, []);
    assert.deepEqual(transport.written, ['{"jsonrpc":"2.0","id":7,"result":null}\n']);
    assert.deepEqual(notes, ["host.progress"]);
  });
});

describe("client in memory (agentapi driver: strict, canonical)", () => {
  it("writes canonical frames, keeps the lifecycle, delivers typed notifications, refuses server requests", async () => {
    const transport = new FakeTransport();
    const notes: string[] = [];
    const problems: string[] = [];
    const client = new Client(transport, agentapiDriver, {
      onNotification: (n) => {
        if (n.method === "driver.observation") notes.push(`${n.method} ${n.params.sequence}`);
        else notes.push(`${n.method} ${n.params.status}`);
      },
      onProtocolError: (e) => problems.push(e.message),
    });
    // The clean capture's own frames, in order.
    const capture = readFileSync(join(repoRoot(), "tests", "sessions", "agentapi-driver@1", "clean.ndjson"), "utf8").split("\n");
    const line = (index: number): string => `${capture[index] ?? ""}\n`;
    const early = await rejection(client.request("driver.capabilities"));
    assert.ok(early instanceof LifecycleError && early.reason === "wrong-state" && early.state === "NEW", String(early));
    assert.deepEqual(transport.written, [], "refused before hello: nothing sent");
    const hello = client.request("driver.hello", { core_version_range: { minimum: "1.0.0", maximum: "1.0.0" } });
    assert.equal(transport.written[0], line(0), "canonical (RFC 8785) bytes, as the capture has them");
    transport.serverSends(line(1));
    assert.equal((await hello).identity.name, "openai-python");
    assert.equal(client.state, "HELLO");
    const prepare = client.request("driver.prepare", {
      approved_permissions: ["target-only-network"],
      capability_token: "ephemeral-test-token",
      resolved_plan_digest: "sha256:64879f7d6b960a01909762d911a32d4582c20010c5641ee90278b644a9e3b525",
    });
    transport.serverSends(line(5));
    await prepare;
    const invoke = client.request("driver.invoke", {
      attempt_id: "018f0000-0000-7000-8000-000000000002",
      ephemeral_exact_input_handle: { kind: "pipe", value: "invocation-scoped-handle" },
      invocation_id: "018f0000-0000-7000-8000-000000000001",
      operation: "responses.create",
    });
    assert.equal(transport.written[2], line(6));
    transport.serverSends(line(7));
    await invoke;
    assert.equal(client.state, "INVOKING");
    const cancel = client.request("driver.cancel", {
      deadline_millis: 5000,
      invocation_id: "018f0000-0000-7000-8000-000000000001",
      reason: "user requested cancellation",
    });
    transport.serverSends(line(8));
    transport.serverSends('{"jsonrpc":"2.0","method":"driver.observation","params":{"invocation_id":"i","attempt_id":"a","sequence":7}}\n');
    transport.serverSends('{"jsonrpc":"2.0","id":99,"method":"host.ping"}\n');
    transport.serverSends('{"jsonrpc":"2.0","id":55,"result":{}}\n');
    transport.serverSends('{"jsonrpc":"2.0","id":4,"result":{"acknowledged":true},"x":1}\n');
    const refused = await rejection(cancel);
    assert.ok(refused instanceof ProtocolError && refused.reason?.kind === "UnknownMember", "strict decoding refuses unknown members");
    assert.deepEqual(notes, ["driver.observation 0"]);
    assert.equal(transport.written[4], '{"error":{"code":-32601,"message":"Method not found: host.ping"},"id":99,"jsonrpc":"2.0"}\n');
    assert.equal(problems.length, 4, problems.join("\n"));
    assert.match(problems[0] ?? "", /notification params for "driver.observation" fails the schema: \/params\/kind: required member is missing;.* \/params\/invocation_id must match pattern/);
    assert.match(problems[1] ?? "", /request "host.ping"/);
    assert.match(problems[2] ?? "", /id 55 answers no pending request/);
    assert.match(problems[3] ?? "", /unknown member "x"/);
    transport.serverSends(line(9));
    transport.serverSends(line(9));
    assert.match(problems[4] ?? "", /breaks the rule `increasing_sequence`: observation sequence 2 is not greater than 2/);
    transport.serverSends(line(13));
    assert.equal(client.state, "INVOKING", "a completion whose last_sequence is not the last observed one is not delivered");
    assert.match(problems[5] ?? "", /breaks the rule `last_sequence_matches`/);
    transport.serverSends(line(12));
    transport.serverSends(line(13));
    assert.deepEqual(notes, ["driver.observation 0", "driver.observation 2", "driver.observation 5", "driver.completed cancelled"]);
    assert.equal(client.state, "PREPARED", "driver.completed leads back to PREPARED");
    const closing = client.close();
    assert.equal(transport.written[5], '{"id":5,"jsonrpc":"2.0","method":"driver.shutdown"}\n', "close() sends the shutdown request");
    transport.serverSends('{"jsonrpc":"2.0","id":5,"result":{}}\n');
    assert.equal((await closing).code, 0);
    assert.equal(client.state, "SHUTDOWN");
  });

  it("a call the state refuses while driver.invoke's completion is due waits for driver.completed, as the Rust host does", async () => {
    const transport = new FakeTransport();
    const client = new Client(transport, agentapiDriver);
    const capture = readFileSync(join(repoRoot(), "tests", "sessions", "agentapi-driver@1", "clean.ndjson"), "utf8").split("\n");
    const line = (index: number): string => `${capture[index] ?? ""}\n`;
    const hello = client.request("driver.hello", { core_version_range: { minimum: "1.0.0", maximum: "1.0.0" } });
    transport.serverSends(line(1));
    await hello;
    const prepare = client.request("driver.prepare", {
      approved_permissions: ["target-only-network"],
      capability_token: "ephemeral-test-token",
      resolved_plan_digest: "sha256:64879f7d6b960a01909762d911a32d4582c20010c5641ee90278b644a9e3b525",
    });
    transport.serverSends(line(5));
    await prepare;
    const invoke = client.request("driver.invoke", {
      attempt_id: "018f0000-0000-7000-8000-000000000004",
      ephemeral_exact_input_handle: { kind: "pipe", value: "invocation-scoped-handle" },
      invocation_id: "018f0000-0000-7000-8000-000000000003",
      operation: "responses.create",
    });
    transport.serverSends('{"id":3,"jsonrpc":"2.0","result":{}}\n');
    await invoke;
    const written = transport.written.length;
    let reset = false;
    const resetting = client.request("driver.reset").then(() => {
      reset = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(transport.written.length, written, "driver.reset waits: the state INVOKING refuses it until driver.completed");
    assert.equal(reset, false);
    transport.serverSends(line(16));
    assert.equal(client.state, "PREPARED");
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(transport.written[written], '{"id":4,"jsonrpc":"2.0","method":"driver.reset"}\n', "sent once the completion came");
    transport.serverSends('{"id":4,"jsonrpc":"2.0","result":{}}\n');
    await resetting;
    const invokeAgain = client.request("driver.invoke", {
      attempt_id: "018f0000-0000-7000-8000-000000000006",
      ephemeral_exact_input_handle: { kind: "pipe", value: "h" },
      invocation_id: "018f0000-0000-7000-8000-000000000005",
      operation: "responses.create",
    });
    transport.serverSends('{"id":5,"jsonrpc":"2.0","result":{}}\n');
    await invokeAgain;
    const waiting = client.request("driver.shutdown");
    transport.exit();
    const gone = await rejection(waiting);
    assert.ok(gone instanceof ServerExitedError, `a wait ends with the session: ${String(gone)}`);
  });

  it("notifications() is an async iterator: checked notifications in order, ending at the awaited completion or with the session", async () => {
    const transport = new FakeTransport();
    const client = new Client(transport, agentapiDriver, { onProtocolError: () => undefined });
    const capture = readFileSync(join(repoRoot(), "tests", "sessions", "agentapi-driver@1", "clean.ndjson"), "utf8").split("\n");
    const line = (index: number): string => `${capture[index] ?? ""}\n`;
    const untilNow = client.notifications({ untilCompletion: true });
    assert.deepEqual(await untilNow.next(), { value: undefined, done: true }, "no completion awaited: ends at once");
    const hello = client.request("driver.hello", { core_version_range: { minimum: "1.0.0", maximum: "1.0.0" } });
    transport.serverSends(line(1));
    await hello;
    const prepare = client.request("driver.prepare", {
      approved_permissions: ["target-only-network"],
      capability_token: "ephemeral-test-token",
      resolved_plan_digest: "sha256:64879f7d6b960a01909762d911a32d4582c20010c5641ee90278b644a9e3b525",
    });
    transport.serverSends(line(5));
    await prepare;
    const whole = client.notifications();
    const invoke = client.request("driver.invoke", {
      attempt_id: "018f0000-0000-7000-8000-000000000002",
      ephemeral_exact_input_handle: { kind: "pipe", value: "invocation-scoped-handle" },
      invocation_id: "018f0000-0000-7000-8000-000000000001",
      operation: "responses.create",
    });
    transport.serverSends(line(7));
    await invoke;
    const invocation = client.notifications({ untilCompletion: true });
    const seen: string[] = [];
    const reading = (async () => {
      for await (const n of invocation) {
        seen.push(n.method === "driver.observation" ? `observation ${n.params.sequence}` : `completed ${n.params.status}`);
      }
    })();
    transport.serverSends(line(8));
    transport.serverSends(line(9));
    transport.serverSends(line(9)); // sequence 2 again: refused by increasing_sequence, not delivered
    transport.serverSends(line(12));
    transport.serverSends(line(13));
    await reading;
    assert.deepEqual(seen, ["observation 0", "observation 2", "observation 5", "completed cancelled"], "ended after driver.completed");
    assert.equal(client.state, "PREPARED");
    const closing = client.close();
    transport.serverSends('{"jsonrpc":"2.0","id":4,"result":{}}\n');
    await closing;
    const all: string[] = [];
    for await (const n of whole) all.push(n.method);
    assert.deepEqual(all, ["driver.observation", "driver.observation", "driver.observation", "driver.completed"], "the plain iterator ends with the session");
    assert.deepEqual(await client.notifications().next(), { value: undefined, done: true }, "made after the end: ends at once");
  });

  it("a strict protocol's line with a bare CR is a BareCarriageReturn fault; the session goes on", async () => {
    const transport = new FakeTransport();
    const problems: ProtocolError[] = [];
    const client = new Client(transport, agentapiDriver, { onProtocolError: (e) => problems.push(e) });
    const hello = client.request("driver.hello", { core_version_range: { minimum: "1.0.0", maximum: "1.0.0" } });
    transport.serverSends('{"id":"e",\r"jsonrpc":"2.0","method":"driver.reset"}\n');
    transport.serverSends('{"id":1,"jsonrpc":"2.0","result":{}}\r\r\n');
    assert.deepEqual(problems.map((p) => p.reason?.kind), ["BareCarriageReturn", "BareCarriageReturn"]);
    assert.equal(client.pendingCount, 1, "the request still waits for a well-framed answer");
    const capture = readFileSync(join(repoRoot(), "tests", "sessions", "agentapi-driver@1", "clean.ndjson"), "utf8").split("\n");
    transport.serverSends(`${capture[1] ?? ""}\r\n`);
    assert.equal((await hello).identity.name, "openai-python", "CRLF still ends a strict line");
    transport.exit();
  });

  it("a lenient protocol keeps a CR inside a line as line bytes", async () => {
    const transport = new FakeTransport();
    const problems: ProtocolError[] = [];
    const client = new Client(transport, gazeAnalyzerV1_0_0, { onProtocolError: (e) => problems.push(e) });
    const init = client.request("initialize", { root_path: "/p" });
    transport.serverSends('{"jsonrpc":"2.0",\r"id":1,"result":{"capabilities":{"discover":false,"test_mapping":false,"classify_signals":false},"protocol_version":"1.0.0","analyzer_name":"a","language":"python"}}\r\r\n');
    assert.equal((await init).analyzer_name, "a");
    assert.deepEqual(problems, []);
    transport.exit();
  });

  it("after gzkit's -32099 version mismatch nothing more is sent, even while the server stays up", async () => {
    const transport = new FakeTransport();
    const client = new Client(transport, gzkitAuthoringGuide);
    const early = await rejection(client.request("analyze", { file_path: "/x" }));
    assert.ok(early instanceof LifecycleError && early.reason === "wrong-state", String(early));
    assert.match(early.message, /not allowed in state "uninitialized" \(only in "ready"\)/);
    const init = client.request("initialize", { clientVersion: "2.0" });
    transport.serverSends(frame('{"id":1,"error":{"code":-32099,"message":"VERSION_MISMATCH: client major version 2 is incompatible with server major version 1"}}'));
    const mismatch = await rejection(init);
    assert.ok(mismatch instanceof RpcError && mismatch.code === -32099);
    const sent = transport.written.length;
    const after = await rejection(client.request("analyze", { file_path: "/x" }));
    assert.ok(after instanceof LifecycleError && after.reason === "session-ended", String(after));
    const again = await rejection(client.request("initialize", { clientVersion: "1.0" }));
    assert.ok(again instanceof LifecycleError);
    assert.equal(client.sessionEnded, '"initialize" was answered VERSION_MISMATCH (-32099), which ends the session');
    await client.close();
    assert.equal(transport.written.length, sent, "neither analyze, initialize nor close's shutdown was sent");
  });

  it("refuses params that fail their schema before sending, and rejects results and error objects that fail theirs", async () => {
    const transport = new FakeTransport();
    const client = new Client(transport, agentapiDriver);
    const bad = await rejection(client.request("driver.hello", { core_version_range: { minimum: "1.0.0" } } as never));
    assert.ok(bad instanceof InvalidParamsError, String(bad));
    assert.deepEqual(bad.issues.map((i) => i.pointer), ["/params/core_version_range/maximum"]);
    assert.deepEqual(transport.written, []);
    const hello = client.request("driver.hello", { core_version_range: { minimum: "1.0.0", maximum: "1.0.0" } });
    transport.serverSends('{"id":1,"jsonrpc":"2.0","result":{"capabilities":{}}}\n');
    const invalid = await rejection(hello);
    assert.ok(invalid instanceof SchemaError && invalid.part === "result", String(invalid));
    assert.ok(invalid.issues.some((i) => i.pointer === "/result/identity" && i.keyword === "required"), JSON.stringify(invalid.issues));
    assert.equal(client.state, "HELLO", "the state moves on the answer, as the Rust host's does");
    const prepare = client.request("driver.prepare", {
      approved_permissions: [],
      capability_token: "t",
      resolved_plan_digest: "sha256:64879f7d6b960a01909762d911a32d4582c20010c5641ee90278b644a9e3b525",
    });
    transport.serverSends('{"error":{"code":-32602,"data":{"class":"no-such-class"},"message":"bad"},"id":2,"jsonrpc":"2.0"}\n');
    const data = await rejection(prepare);
    assert.ok(data instanceof SchemaError && data.part === "error", `the driver's error object (RPCError, data required) catches it: ${String(data)}`);
    assert.equal(data.answer?.code, -32602);
    assert.equal(data.issues[0]?.pointer, "/error/data/class");
    transport.exit();
  });

  it("reads a streamed answer's items, checked against the item schema, until the server closes its output", async () => {
    const transport = new FakeTransport();
    const client = new Client(transport, gazeAnalyzerV1_1_0);
    const init = client.request("initialize", { root_path: "/p" });
    transport.serverSends(
      '{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"discover":false,"test_mapping":false,"classify_signals":false,"streaming":true,"doc_coverage":false},"protocol_version":"1.1.0","analyzer_name":"a","language":"python"}}\n',
    );
    await init;
    const refused = await rejection(client.request("analyze/stream" as never, { root_path: "/p" } as never));
    assert.match(refused.message, /use requestStream/);
    const items = client.requestStream("analyze/stream", { root_path: "/p" });
    transport.serverSends('{"name":"add","package":"m","file":"m/ops.py","line":1,"side_effects":[]}\n');
    transport.serverSends('{"name":"mul","package":"m","file":"m/ops.py","line":9.0,"side_effects":[]}\n');
    transport.exit();
    const got = await items;
    assert.deepEqual(got.map((i) => (i as { name: string }).name), ["add", "mul"]);
    assert.equal(numberText(got[1] as object, "line"), "9.0", "items keep their numbers as written");
    assert.equal(client.state, "closed");
    assert.ok((await rejection(client.request("analyze", { root_path: "/p" }))) instanceof ClientError);
  });

  it("a stream ended by the serve loop's failure line ([<error response>]) rejects with the server's error", async () => {
    const transport = new FakeTransport();
    const client = new Client(transport, gazeAnalyzerV1_1_0);
    const init = client.request("initialize", { root_path: "/p" });
    transport.serverSends(
      '{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"discover":false,"test_mapping":false,"classify_signals":false,"streaming":true,"doc_coverage":false},"protocol_version":"1.1.0","analyzer_name":"a","language":"python"}}\n',
    );
    await init;
    const items = client.requestStream("analyze/stream", { root_path: "/p" });
    transport.serverSends('{"name":"add","package":"m","file":"m/ops.py","line":1,"side_effects":[]}\n');
    transport.serverSends('[{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"`analyze/stream` failed after 1 item, an incomplete result: disk full"}}]\n');
    const failed = await rejection(items);
    assert.ok(failed instanceof RpcError && failed.code === -32603, String(failed));
    assert.match(failed.message, /after 1 item, an incomplete result/);
  });

  it("an error answer that breaks the protocol's error object schema (gzkit's forbids data) is a SchemaError", async () => {
    const schema = JSON.parse(readFileSync(join(repoRoot(), "schemas", "gzkit-authoring-guide", "1.0", "authoring_guide_protocol.json"), "utf8")) as Record<string, unknown>;
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    ajv.addSchema(schema, "guide");
    const withErrorObject = {
      ...gzkitAuthoringGuide,
      errorObject: "ErrorObject",
      validators: { ...gzkitAuthoringGuide.validators, ErrorObject: ajv.compile({ $ref: "guide#/$defs/ErrorObject" }) as SchemaValidator },
    };
    const transport = new FakeTransport();
    const client = new Client(transport, withErrorObject);
    const plain = client.request("initialize", { clientVersion: "2.0" });
    transport.serverSends(frame('{"id":1,"error":{"code":-32602,"message":"clientVersion is absent"}}'));
    const plainError = await rejection(plain);
    assert.ok(plainError instanceof RpcError && !(plainError instanceof SchemaError), `an error object without data passes: ${String(plainError)}`);
    const withData = client.request("initialize", { clientVersion: "1.0" });
    transport.serverSends(frame('{"id":2,"error":{"code":-32602,"message":"bad","data":{"errors":[]}}}'));
    const refused = await rejection(withData);
    assert.ok(refused instanceof SchemaError && refused.part === "error", String(refused));
    assert.deepEqual(refused.issues.map((i) => i.pointer), ["/error/data"]);
    assert.equal(refused.answer?.code, -32602);
    transport.exit();
  });

  it("type-checks params and results against the generated method map", async () => {
    const transport = new FakeTransport();
    const client = new Client(transport, gzkitAuthoringGuide);
    const init = client.request("initialize", { clientVersion: "1.0" });
    transport.serverSends(frame('{"id":1,"result":{"version":"1.0","capabilities":["analyze"]}}'));
    await init;
    const pending = client.request("analyze", { file_path: "/x" });
    transport.serverSends(frame('{"id":2,"result":{"hints":[]}}'));
    const result: AnalyzeResult = await pending;
    assert.deepEqual(result.hints, []);
    const compileOnly = (): void => {
      // @ts-expect-error file_path is required
      void client.request("analyze", {});
      // @ts-expect-error file_path is a string
      void client.request("analyze", { file_path: 1 });
      // @ts-expect-error no such method
      void client.request("analyse", { file_path: "/x" });
      // @ts-expect-error the result is an AnalyzeResult, not an InitializeResult
      const wrong: Promise<InitializeResult> = client.request("analyze", { file_path: "/x" });
      void wrong;
    };
    void compileOnly;
    transport.exit();
  });
});

function frame(body: string): string {
  return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

describe("the exit sequence", () => {
  // A server that never reads its input; no shutdown request is sent, so
  // only the exit sequence ends it.
  const stubborn = ["-c", "import time\ntime.sleep(60)"];
  const gaze = { ...gazeAnalyzerV1_0_0, shutdown: undefined };

  it("sends SIGTERM after the grace where the protocol's host terminates servers", async () => {
    const protocol = { ...gaze, exit: { graceMs: 200, terminateGraceMs: 5000 } } as ProtocolDescriptor;
    const client = spawnServer("python3", stubborn, protocol);
    const started = Date.now();
    const end = await client.close();
    assert.equal(end.signal, "SIGTERM");
    assert.ok(Date.now() - started < 4000, "ended by SIGTERM, not at a timeout");
  });

  it("kills at once after the grace where it does not", async () => {
    const protocol = { ...gaze, exit: { graceMs: 200 } } as ProtocolDescriptor;
    const client = spawnServer("python3", stubborn, protocol);
    const end = await client.close();
    assert.equal(end.signal, "SIGKILL");
  });

  it("kills after SIGTERM's grace a server that ignores it", async () => {
    const deaf = ["-c", "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(60)"];
    const protocol = { ...gaze, exit: { graceMs: 300, terminateGraceMs: 200 } } as ProtocolDescriptor;
    const client = spawnServer("python3", deaf, protocol);
    const end = await client.close();
    assert.equal(end.signal, "SIGKILL");
  });
});

/** Lets every pending promise callback run (handlers, their answers). */
async function settled(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** The bodies the client wrote, decoded (Content-Length headers taken off). */
function sentBodies(transport: FakeTransport): Record<string, unknown>[] {
  return transport.written.map((frame) => JSON.parse(frame.includes("\r\n\r\n") ? bodyOf(frame) : frame) as Record<string, unknown>);
}

/** A Content-Length frame of `message`, as an LSP server writes it. */
function lspFrame(message: unknown): string {
  return new TextDecoder().decode(encoderFor("content-length").encode(JSON.stringify(message)));
}

/** A promise settled by the signal's abort: resolved with `value`, or rejected with the signal's reason when `value` is absent. */
function untilAborted<T>(signal: AbortSignal, value?: T): Promise<T> {
  return new Promise((resolve, reject) => {
    signal.addEventListener("abort", () => (value === undefined ? reject(signal.reason as Error) : resolve(value)), { once: true });
  });
}

const SAMPLING_PARAMS = { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 10 };
const SAMPLED = { role: "assistant", content: { type: "text", text: "hello" }, model: "fake" };

describe("client in memory: the request context of the server's requests (issue 34)", () => {
  it("a handler gets the request's id and method and a notify that sends checked client notifications", async () => {
    const transport = new FakeTransport();
    const problems: ProtocolError[] = [];
    const seen: RequestContext[] = [];
    let refused: unknown;
    new Client(transport, mcpV2025_06_18, {
      onProtocolError: (e) => problems.push(e),
      onRequest: {
        "roots/list": (_params, _method, context) => {
          seen.push(context);
          context.notify("notifications/progress", { progressToken: "tok", progress: 1, total: 2 });
          try {
            context.notify("notifications/progress", { progress: "half" });
          } catch (error) {
            refused = error;
          }
          return { roots: [] };
        },
      },
    });
    transport.serverSends('{"jsonrpc":"2.0","id":"r-5","method":"roots/list","params":{"_meta":{"progressToken":"tok"}}}\n');
    await settled();
    assert.deepEqual(problems, []);
    assert.equal(seen.length, 1);
    assert.equal(seen[0]?.id, "r-5");
    assert.equal(seen[0]?.method, "roots/list");
    assert.equal(seen[0]?.signal.aborted, false);
    assert.ok(refused instanceof InvalidParamsError, String(refused));
    assert.deepEqual(sentBodies(transport), [
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "tok", progress: 1, total: 2 } },
      { jsonrpc: "2.0", id: "r-5", result: { roots: [] } },
    ]);
  });

  it("MCP: the server cancelling its sampling/createMessage aborts the handler's signal, and no answer is written for that id", async () => {
    const transport = new FakeTransport();
    const problems: ProtocolError[] = [];
    const notes: string[] = [];
    const signals = new Map<string, AbortSignal>();
    const events: string[] = [];
    new Client(transport, mcpV2025_06_18, {
      onProtocolError: (e) => problems.push(e),
      onNotification: (n) => notes.push(n.method),
      onRequest: {
        "sampling/createMessage": (params, _method, { id, signal }) => {
          signals.set(String(id), signal);
          signal.addEventListener("abort", () => events.push(`abort ${String(id)}`));
          // Id 1 returns a (valid) result once aborted, id 2 rejects with the reason, id 3 is never cancelled.
          if (id === 1) return untilAborted(signal, SAMPLED);
          if (id === 2) return untilAborted<typeof SAMPLED>(signal);
          return new Promise((resolve) => setTimeout(() => resolve(SAMPLED), 5));
        },
      },
    });
    for (const id of [1, 2, 3]) {
      transport.serverSends(`${JSON.stringify({ jsonrpc: "2.0", id, method: "sampling/createMessage", params: SAMPLING_PARAMS })}\n`);
    }
    await settled();
    assert.deepEqual(transport.written, [], "nothing answered while the handlers run");
    transport.serverSends('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user stopped it"}}\n');
    transport.serverSends('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}\n');
    assert.deepEqual(events, ["abort 1", "abort 2"], "the abort event fires as the cancellation arrives");
    const first = signals.get("1");
    assert.ok(first?.aborted === true);
    assert.ok(first.reason instanceof RequestCancelledError);
    assert.equal(first.reason.id, 1);
    assert.equal(first.reason.method, "sampling/createMessage");
    assert.match(first.reason.message, /cancelled its request "sampling\/createMessage" \(id 1\): user stopped it/);
    assert.equal(signals.get("3")?.aborted, false);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await settled();
    assert.deepEqual(problems, [], "a late or abandoned answer to a cancelled request is no error");
    assert.deepEqual(notes, ["notifications/cancelled", "notifications/cancelled"], "the cancellation is still delivered");
    assert.deepEqual(sentBodies(transport), [{ jsonrpc: "2.0", id: 3, result: SAMPLED }], "only the uncancelled request is answered");
  });

  it("LSP: a cancelled request is still answered: the handler's result, or RequestCancelled (-32800) when it rejects because of the abort", async () => {
    const transport = new FakeTransport();
    const problems: ProtocolError[] = [];
    new Client(transport, lspProtocol, {
      onProtocolError: (e) => problems.push(e),
      onRequest: {
        "workspace/configuration": (_params, _method, { id, signal }) => {
          if (id === 1) return untilAborted(signal, [null]);
          if (id === 2) return untilAborted<JsonValueList>(signal);
          // Id 3 answers an error of its own choosing when cancelled.
          return untilAborted<JsonValueList>(signal).catch(() => {
            throw new RpcError("workspace/configuration", -32801, "content modified");
          });
        },
      },
    });
    const params = { items: [{ section: "editor" }] };
    for (const id of [1, 2, 3]) transport.serverSends(lspFrame({ jsonrpc: "2.0", id, method: "workspace/configuration", params }));
    for (const id of [1, 2, 3]) transport.serverSends(lspFrame({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id } }));
    await settled();
    assert.deepEqual(problems, []);
    assert.deepEqual(sentBodies(transport), [
      { jsonrpc: "2.0", id: 1, result: [null] },
      { jsonrpc: "2.0", id: 2, error: { code: -32800, message: "Request cancelled" } },
      { jsonrpc: "2.0", id: 3, error: { code: -32801, message: "content modified" } },
    ]);
  });

  it("a cancellation naming an unknown (or already answered) id is harmless", async () => {
    const transport = new FakeTransport();
    const problems: ProtocolError[] = [];
    let signal: AbortSignal | undefined;
    let finish: () => void = () => undefined;
    new Client(transport, mcpV2025_06_18, {
      onProtocolError: (e) => problems.push(e),
      onRequest: {
        "roots/list": (_params, _method, context) => {
          signal = context.signal;
          return new Promise((resolve) => {
            finish = () => resolve({ roots: [] });
          });
        },
      },
    });
    transport.serverSends('{"jsonrpc":"2.0","id":7,"method":"roots/list"}\n');
    transport.serverSends('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}\n');
    transport.serverSends('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"7"}}\n');
    await settled();
    assert.equal(signal?.aborted, false, "neither 99 nor the string \"7\" names request 7");
    finish();
    await settled();
    transport.serverSends('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}\n');
    await settled();
    assert.equal(signal?.aborted, false, "an answered request is no longer cancelled");
    assert.deepEqual(problems, []);
    assert.deepEqual(sentBodies(transport), [{ jsonrpc: "2.0", id: 7, result: { roots: [] } }]);
  });

  it("handlers of one and two arguments work as before", async () => {
    const transport = new FakeTransport();
    const problems: ProtocolError[] = [];
    const two: ServerRequestHandler = (params, method) => {
      assert.equal(method, "sampling/createMessage");
      assert.deepEqual(params, SAMPLING_PARAMS);
      return SAMPLED;
    };
    const one = async (): Promise<{ roots: never[] }> => ({ roots: [] });
    new Client(transport, mcpV2025_06_18, { onProtocolError: (e) => problems.push(e), onRequest: { "sampling/createMessage": two, "roots/list": one } });
    transport.serverSends(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "sampling/createMessage", params: SAMPLING_PARAMS })}\n`);
    transport.serverSends('{"jsonrpc":"2.0","id":2,"method":"roots/list"}\n');
    await settled();
    assert.deepEqual(problems, []);
    assert.deepEqual(sentBodies(transport), [
      { jsonrpc: "2.0", id: 1, result: SAMPLED },
      { jsonrpc: "2.0", id: 2, result: { roots: [] } },
    ]);
  });

  it("the handlers still running when the server is gone are aborted, and nothing is reported for them", async () => {
    const transport = new FakeTransport();
    const problems: ProtocolError[] = [];
    let signal: AbortSignal | undefined;
    new Client(transport, mcpV2025_06_18, {
      onProtocolError: (e) => problems.push(e),
      onRequest: {
        "roots/list": (_params, _method, context) => {
          signal = context.signal;
          return untilAborted<{ roots: never[] }>(context.signal);
        },
      },
    });
    transport.serverSends('{"jsonrpc":"2.0","id":1,"method":"roots/list"}\n');
    transport.exit();
    await settled();
    assert.ok(signal?.reason instanceof ServerExitedError);
    assert.deepEqual(problems, []);
    assert.deepEqual(transport.written, []);
  });
});

type JsonValueList = (string | number | boolean | null)[];
