/**
 * The TypeScript server (`src/runtime/server.ts`): byte-level answers over
 * an in-memory transport (a protocol of one's own from `protocolFromFiles`,
 * the generated Gaze descriptors, gzkit's Content-Length framing, the
 * driver's strict canonical envelopes), and the real judge: `wirekit
 * conformance` against small servers under `test/servers/` (gzkit authoring
 * guide 1.0, Gaze analyzer 1.0.0, AgentAPI driver 1).
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

import {
  gazeAnalyzerV1_0_0,
  gazeAnalyzerV1_1_0,
  NotificationError,
  protocolFromFiles,
  ResponseError,
  Server,
  serveBytes,
  type ServerHandlers,
  type ServerIo,
  type gaze_analyzer_v1_1_0 as gaze11,
} from "../src/index.js";
import { kvFiles, type KvNotifications, type KvRequests, type KvServerNotifications } from "./kv.js";
import { repoRoot } from "./support.js";

const kv = protocolFromFiles<KvRequests, KvNotifications, KvServerNotifications>(kvFiles());
type KvHandlers = ServerHandlers<KvRequests, KvNotifications, KvServerNotifications>;

/** A fresh store's handlers; `seen` collects what the notification handler saw. */
function kvHandlers(seen: string[] = []): KvHandlers {
  const store = new Map<string, number>();
  return {
    initialize: (_params, context) => ({ capabilities: context.capabilities<{ watch: boolean }>() }),
    put: ({ key, value }, context) => {
      const previous = store.get(key) ?? null;
      store.set(key, value);
      context.notify("changed", { key, value });
      return { previous };
    },
    get: ({ key }) => {
      if (key === "boom") throw new Error("boom");
      if (key === "bad") return { value: "x" } as unknown as { value: number };
      if (key === "err") throw new ResponseError(-32050, "no such key", { key });
      return { value: store.get(key) ?? null };
    },
    ping: ({ n }, context) => {
      seen.push(`ping ${n}`);
      try {
        context.notify("changed", { key: 1 } as unknown as { key: string; value: number });
      } catch (error) {
        assert.ok(error instanceof NotificationError);
        seen.push(`${error.reason} ${error.pointer} ${error.issues.map((i) => i.pointer).join(",")}`);
      }
    },
    shutdown: () => ({}),
  };
}

const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString("utf8");
const lines = (...messages: string[]): string => messages.map((m) => `${m}\n`).join("");
const rpc = (body: string): string => `{"jsonrpc":"2.0",${body}}`;

describe("the server over bytes in memory (a protocol of one's own, NDJSON)", () => {
  it("answers each fault as the core does, in order, and the session goes on", async () => {
    const logs: string[] = [];
    const seen: string[] = [];
    const out = await serveBytes(
      kv,
      kvHandlers(seen),
      lines(
        rpc('"id":1,"method":"put","params":{"key":"a","value":1}'),
        rpc('"id":2,"method":"initialize","params":{"client":"t"}'),
        "{not json",
        "[1]",
        rpc('"id":3,"method":"nope"'),
        rpc('"id":4,"method":"put","params":{"key":"A","value":"x"}'),
        rpc('"id":5,"method":"put","params":{"key":"a","value":2}'),
        rpc('"id":6,"method":"get","params":{"key":"boom"}'),
        rpc('"id":7,"method":"get","params":{"key":"bad"}'),
        rpc('"id":8,"method":"get","params":{"key":"err"}'),
        rpc('"method":"ping","params":{"n":1}'),
        rpc('"method":"ping","params":{"n":"one"}'),
        rpc('"id":9,"method":"watch","params":{"key":"a"}'),
        rpc('"id":10,"method":"initialize","params":{"client":"t"}'),
        rpc('"id":11,"method":"get","params":{"key":"a"}'),
        rpc('"id":12,"method":"shutdown"'),
        rpc('"id":13,"method":"get","params":{"key":"a"}'),
      ),
      { log: (line) => logs.push(line) },
    );
    assert.equal(
      text(out),
      lines(
        // Before initialize: the manifest's violation, its placeholders filled.
        rpc('"id":1,"error":{"code":-32002,"message":"put needs ready, not new"}'),
        // The capabilities derived from the handlers: no handler for `watch`.
        rpc('"id":2,"result":{"capabilities":{"watch":false}}'),
        rpc('"id":null,"error":{"code":-32700,"message":"Parse error: not valid JSON: key must be a string at line 1 column 2","data":{"kind":"Parse","pointer":""}}'),
        rpc('"id":null,"error":{"code":-32600,"message":"Invalid Request: a message must be a JSON object, not an array (batches are not supported)","data":{"kind":"NotAnObject","pointer":""}}'),
        rpc('"id":3,"error":{"code":-32601,"message":"Method not found: nope"}'),
        // Every issue with its pointer, in the `data` the manifest's server_errors.invalid_params declares.
        rpc(
          '"id":4,"error":{"code":-32602,"message":"invalid params for `put`: /key: must match pattern \\"^[a-z]+$\\" [pattern]; /value: must be number [type]","data":{"errors":[{"pointer":"/key","keyword":"pattern","schema_path":"/$defs/Key/pattern","message":"must match pattern \\"^[a-z]+$\\""},{"pointer":"/value","keyword":"type","schema_path":"/properties/value/type","message":"must be number"}],"method":"put"}}',
        ),
        rpc('"id":5,"result":{"previous":null}'),
        // A notification the handler sent goes out right after its request's answer.
        rpc('"method":"changed","params":{"key":"a","value":2}'),
        rpc('"id":6,"error":{"code":-32603,"message":"Internal error in `get`: boom","data":{"part":"result","errors":[]}}'),
        // An invalid result is never sent.
        rpc(
          '"id":7,"error":{"code":-32603,"message":"the server produced an invalid result for `get`: /value: must be number,null [type]","data":{"part":"result","errors":[{"pointer":"/value","keyword":"type","schema_path":"/$defs/GetResult/properties/value/type","message":"must be number,null"}]}}',
        ),
        rpc('"id":8,"error":{"code":-32050,"message":"no such key","data":{"key":"err"}}'),
        rpc('"id":9,"error":{"code":-32601,"message":"`watch` needs the capability `watch`, which the server did not declare"}'),
        rpc('"id":10,"error":{"code":-32002,"message":"initialize needs new, not ready"}'),
        rpc('"id":11,"result":{"value":2}'),
        rpc('"id":12,"result":{}'),
        // Nothing after the method that ends the session.
      ),
    );
    assert.deepEqual(seen, ["ping 1", "params /params/value /params/value,/params/key"]);
    assert.ok(logs.some((l) => l.includes("the handler of `get` failed: boom")), logs.join("\n"));
    assert.ok(logs.some((l) => l.includes("the handler's result for `get` is invalid")), logs.join("\n"));
    assert.ok(logs.some((l) => l.startsWith("ignored notification `ping` with invalid params: /n")), logs.join("\n"));
  });

  it("context.notify checks at once: an unknown notification and invalid params throw with the pointer, a valid one is sent", async () => {
    const thrown: NotificationError[] = [];
    const handlers: KvHandlers = {
      ...kvHandlers(),
      get: (_params, context) => {
        for (const attempt of [
          () => context.notify("changed", { key: "a", value: "x" } as unknown as { key: string; value: number }),
          () => (context.notify as (method: string, params: unknown) => void)("nope", {}),
        ]) {
          try {
            attempt();
          } catch (error) {
            if (error instanceof NotificationError) thrown.push(error);
          }
        }
        context.notify("changed", { key: "a", value: 3 });
        return { value: 3 };
      },
    };
    const out = await serveBytes(kv, handlers, lines(rpc('"id":1,"method":"initialize","params":{"client":"t"}'), rpc('"id":2,"method":"get","params":{"key":"a"}')));
    assert.deepEqual(
      thrown.map((e) => [e.reason, e.pointer, e.message]),
      [
        ["params", "/params/value", "`changed` was not sent: its params fail the schema: /params/value: must be number [type]"],
        ["unknown", "", "`nope` is not a notification the server of kv@1.0 sends"],
      ],
    );
    assert.equal(
      text(out),
      lines(rpc('"id":1,"result":{"capabilities":{"watch":false}}'), rpc('"id":2,"result":{"value":3}'), rpc('"method":"changed","params":{"key":"a","value":3}')),
    );
  });

  it("asynchronous handlers are answered in the order the requests came, over a ServerIo", async () => {
    let onData: (chunk: Uint8Array) => void = () => undefined;
    let onEnd: () => void = () => undefined;
    const written: string[] = [];
    let closed = false;
    const io: ServerIo = {
      write: (bytes) => written.push(text(bytes)),
      onData: (listener) => (onData = listener),
      onEnd: (listener) => (onEnd = listener),
      endInput: () => (closed = true),
    };
    const handlers: KvHandlers = {
      ...kvHandlers(),
      get: async ({ key }) => {
        await new Promise((resolve) => setTimeout(resolve, key === "slow" ? 30 : 0));
        return { value: key.length };
      },
    };
    const server = new Server(kv, handlers, { log: () => undefined });
    const served = server.serve(io);
    onData(new TextEncoder().encode(rpc('"id":1,"method":"initialize","params":{"client":"t"}') + "\n" + rpc('"id":2,"method":"get","params":{"key":"slow"}') + "\n"));
    onData(new TextEncoder().encode(rpc('"id":3,"method":"get","params":{"key":"ab"}') + "\n"));
    onEnd();
    assert.deepEqual(await served, { reason: "end-of-input" });
    assert.equal(closed, true);
    assert.deepEqual(written, [
      `${rpc('"id":1,"result":{"capabilities":{"watch":false}}')}\n`,
      `${rpc('"id":2,"result":{"value":4}')}\n`,
      `${rpc('"id":3,"result":{"value":2}')}\n`,
    ]);
  });

  it("a line over the protocol's bound is refused before it is buffered; the session goes on (NDJSON)", async () => {
    const server = new Server(kv, kvHandlers(), { log: () => undefined });
    const out: string[] = [];
    server.onOutput((bytes) => out.push(text(bytes)));
    // The line comes in pieces: refused as soon as it is known to be too long, nothing of it held.
    server.push(new TextEncoder().encode("x".repeat(3000)));
    server.push(new TextEncoder().encode("x".repeat(3000)));
    assert.deepEqual(out, [`${rpc('"id":null,"error":{"code":-32600,"message":"FrameTooLong at byte 0: line exceeds the frame bound of 4096 bytes; skipping to the next LF"}')}\n`]);
    server.push(new TextEncoder().encode(`xxx\n${rpc('"id":1,"method":"shutdown"')}\n`));
    assert.deepEqual(await server.done, { reason: "ended" });
    assert.equal(out[1], `${rpc('"id":1,"result":{}')}\n`);
  });

  it("the generated Gaze descriptor carries the manifest's serving details: its violation answer", async () => {
    const out = await serveBytes(gazeAnalyzerV1_0_0, {}, lines(rpc('"id":1,"method":"complexity","params":{"root_path":"/"}')), { log: () => undefined });
    assert.equal(text(out), lines(rpc('"id":1,"error":{"code":-32600,"message":"complexity is not allowed before initialize"}')));
  });

  it("without the manifest's serving details (a descriptor without them), wirekit's defaults", async () => {
    const { serving: _serving, ...withoutServing } = gazeAnalyzerV1_0_0;
    const out = await serveBytes(
      withoutServing,
      { initialize: (_p, context) => ({ capabilities: context.capabilities<{ discover: boolean; test_mapping: boolean; classify_signals: boolean }>(), protocol_version: "1.0.0", analyzer_name: "t", language: "ts" }), discover: () => ({ source_files: [], test_files: [], framework: "t" }) },
      lines(
        rpc('"id":1,"method":"complexity","params":{"root_path":"/"}'),
        rpc('"id":2,"method":"initialize","params":{"root_path":"/"}'),
        rpc('"id":3,"method":"complexity","params":{"root_path":5}'),
        rpc('"id":4,"method":"complexity","params":{"root_path":"/"}'),
      ),
      { log: () => undefined },
    );
    assert.equal(
      text(out),
      lines(
        rpc('"id":1,"error":{"code":-32600,"message":"`complexity` is not allowed now"}'),
        rpc('"id":2,"result":{"capabilities":{"discover":true,"test_mapping":false,"classify_signals":false},"protocol_version":"1.0.0","analyzer_name":"t","language":"ts"}'),
        rpc(
          '"id":3,"error":{"code":-32602,"message":"invalid params for `complexity`: /root_path: must be string [type]","data":{"part":"params","errors":[{"pointer":"/root_path","keyword":"type","schema_path":"/properties/root_path/type","message":"must be string"}]}}',
        ),
        // No handler: -32601.
        rpc('"id":4,"error":{"code":-32601,"message":"Method not found: complexity"}'),
      ),
    );
  });
});

describe("a streamed result (Gaze 1.1.0's analyze/stream)", () => {
  it("each item checked and sent as a line; an invalid one ends the stream with its failure line and the session", async () => {
    const item = { name: "f", package: "p", file: "a.py", line: 1, side_effects: [] };
    const out = await serveBytes(
      gazeAnalyzerV1_1_0,
      {
        initialize: (_p, context) => ({ capabilities: context.capabilities<gaze11.Capabilities>(), protocol_version: "1.1.0", analyzer_name: "t", language: "ts" }),
        "analyze/stream": function* () {
          yield item;
          yield { ...item, line: "two" } as unknown as typeof item;
        },
      },
      lines(rpc('"id":1,"method":"initialize","params":{"root_path":"/"}'), rpc('"id":2,"method":"analyze/stream","params":{"root_path":"/"}'), rpc('"id":3,"method":"shutdown"')),
      { log: () => undefined },
    );
    const [init, first, failure, ...rest] = text(out).trimEnd().split("\n");
    assert.match(init ?? "", /"capabilities":\{"streaming":true,"discover":false,/);
    assert.equal(first, JSON.stringify(item));
    assert.equal(
      failure,
      `[${rpc('"id":2,"error":{"code":-32603,"message":"`analyze/stream` failed after 1 item, an incomplete result: item 1 was refused: the server produced an invalid item for `analyze/stream`: /line: must be integer [type]","data":{"part":"item","errors":[{"pointer":"/line","keyword":"type","schema_path":"/properties/line/type","message":"must be integer"}]}}')}]`,
    );
    assert.deepEqual(rest, [], "the session ended with the stream");
  });
});

describe("the server over Content-Length (gzkit authoring guide 1.0 from its files)", () => {
  const folder = join(repoRoot(), "schemas", "gzkit-authoring-guide", "1.0");
  const files: Record<string, string> = {};
  for (const name of ["protocol.json", "authoring_guide_protocol.json", "authoring_hint.json"]) files[name] = readFileSync(join(folder, name), "utf8");
  const gzkit = protocolFromFiles(files);
  const frame = (body: string): string => `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const handlers = {
    initialize: () => ({ version: "1.0", capabilities: ["analyze"] }),
    analyze: () => ({ hints: [] }),
    shutdown: () => ({}),
  };

  it("a parse error ends the session (PARSE_ERROR ends_session), its answer without data as the error object demands", async () => {
    const out = await serveBytes(gzkit, handlers, frame('{"id":1,"method":"initialize","params":{"clientVersion":"1.0"}}') + frame("{bad") + frame('{"id":2,"method":"shutdown","params":{}}'));
    assert.equal(
      text(out),
      frame('{"id":1,"result":{"version":"1.0","capabilities":["analyze"]}}') + frame('{"id":null,"error":{"code":-32700,"message":"Parse error: not valid JSON: key must be a string at line 1 column 2"}}'),
    );
  });

  it("the version negotiation refuses another major version (-32099) and ends the session", async () => {
    const out = await serveBytes(gzkit, handlers, frame('{"id":1,"method":"initialize","params":{"clientVersion":"2.0"}}') + frame('{"id":2,"method":"shutdown","params":{}}'));
    assert.equal(text(out), frame('{"id":1,"error":{"code":-32099,"message":"VERSION_MISMATCH: client major version 2 is incompatible with server major version 1"}}'));
  });

  it("a frame over the bound is refused on its header, and the stream is lost", async () => {
    const server = new Server(gzkit, handlers, { log: () => undefined });
    const out: string[] = [];
    server.onOutput((bytes) => out.push(text(bytes)));
    server.push(new TextEncoder().encode(`Content-Length: ${16 * 1024 * 1024 + 1}\r\n\r\n{"id":1`));
    const outcome = await server.done;
    assert.equal(outcome.reason, "framing-lost");
    assert.deepEqual(out, [frame('{"id":null,"error":{"code":-32700,"message":"FrameTooLong at byte 0: declared Content-Length 16777217 exceeds the frame bound of 16777216 bytes"}}')]);
  });
});

describe("a strict, canonical, silent protocol (the AgentAPI driver's, from its files)", () => {
  const folder = join(repoRoot(), "schemas", "agentapi-driver", "1");
  const files: Record<string, string> = {};
  for (const name of ["protocol.json", "driver.schema.json"]) files[name] = readFileSync(join(folder, name), "utf8");
  const driver = protocolFromFiles(files);

  it("recovers the id of a refused frame as the reference does, or leaves the frame unanswered", async () => {
    const logs: string[] = [];
    const over = `{"jsonrpc":"2.0", "id" : 13,"method":"driver.hello","params":{"pad":"${"x".repeat(1024 * 1024)}"}}`;
    const out = await serveBytes(
      driver,
      {},
      lines('{"jsonrpc":"2.0","id":11,"method":"m"} {}', '{"jsonrpc":"2.0","method""', '{"id":1e3,"jsonrpc":"2.0"', over, '{"jsonrpc":"2.0","id":1,"id":2,"method":"driver.hello"}'),
      { log: (line) => logs.push(line) },
    );
    const answers = text(out)
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: unknown; error: { code: number; data: { class: string } } });
    assert.deepEqual(
      answers.map((a) => [a.id, a.error.code, a.error.data.class]),
      [
        [11, -32700, "invalid_request"],
        [13, -32600, "budget_exceeded"],
        [2, -32600, "invalid_request"],
      ],
    );
    // Canonical output: members sorted at every depth.
    assert.match(text(out), /^\{"error":\{"code":-32700,"data":\{"class":"invalid_request","details":\{"kind":"TrailingData","pointer":""\}\},"message":/);
    assert.equal(logs.filter((l) => l.startsWith("left a frame unanswered")).length, 2, logs.join("\n"));
  });
});

describe("wirekit conformance judges the TypeScript servers", () => {
  const wirekit = join(repoRoot(), "target", "debug", "wirekit");
  const servers = join(dirname(fileURLToPath(import.meta.url)), "servers");
  const judge = (protocol: string, server: string): { status: number | null; output: string } => {
    assert.ok(existsSync(wirekit), `${wirekit} is missing: cargo build -p wirekit-cli`);
    const run = spawnSync(wirekit, ["conformance", "--protocol", protocol, "--", process.execPath, join(servers, server)], {
      cwd: repoRoot(),
      encoding: "utf8",
      timeout: 300_000,
    });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  };
  for (const [protocol, server] of [
    ["gzkit-authoring-guide@1.0", "gzkit_server.js"],
    ["gaze-analyzer@1.0.0", "gaze_server.js"],
    ["agentapi-driver@1", "driver_server.js"],
  ] as const) {
    it(`${protocol}: ${server} conforms (exit 0)`, () => {
      const { status, output } = judge(protocol, server);
      assert.equal(status, 0, output);
      assert.match(output, /conforms: \d+ passed, 0 warned, 0 failed/);
    });
  }
});
