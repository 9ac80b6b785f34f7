/**
 * The captured sessions of tests/sessions (the Rust monitor's, checked by
 * `wirekit validate` against their .expect.json) replayed through the
 * TypeScript client: the client side of each capture is sent through
 * `Client.request`/`requestStream`, an in-test peer answers with the
 * capture's server side (ids mapped to the client's), and the test checks
 * that every answer the client accepts validates against the protocol's
 * result and error schemas, and that the client finds exactly the problems
 * the monitor finds: a lifecycle or capability violation, invalid params or
 * a broken scope rule in a call is refused locally (nothing sent); an
 * invalid result or streamed item (schema, or a rule such as gzkit's
 * `not_before`) is a SchemaError; a notification breaking a scope rule a
 * ServerRuleError; an answer to no pending request a ProtocolError. The
 * monitor's judgements of answers to messages a client never sends (it
 * refuses them first) are not a client's to see, and the monitor's finer
 * kinds of unpaired answers are one kind to a client.
 *
 * Then the same client side, faulty frames included, goes to the servers
 * on the Rust serve loop, and every answer they send must validate.
 */

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";

import { agentapiDriver, gazeAnalyzerV1_0_0, gazeAnalyzerV1_1_0, gzkitAuthoringGuide } from "../src/index.js";
import {
  CapabilityError,
  Client,
  InvalidParamsError,
  LifecycleError,
  ProtocolError,
  RpcError,
  RuleViolationError,
  SchemaError,
  ServerExitedError,
  ServerRuleError,
  spawnServer,
} from "../src/runtime/client.js";
import { decodeMessage, encodeCanonical, encodeMessage, type Id, type Message } from "../src/runtime/envelope.js";
import { decoderFor, encoderFor, FramingError } from "../src/runtime/framing.js";
import type { JsonValue } from "../src/runtime/json.js";
import type { ProtocolDescriptor } from "../src/runtime/protocol.js";
import { SESSION_RULES } from "../src/runtime/rules.js";
import type { Transport, TransportEnd } from "../src/runtime/transport.js";
import { validate } from "../src/runtime/validation.js";
import { repoRoot } from "./support.js";

type Descriptor = ProtocolDescriptor;

const DESCRIPTORS: Record<string, Descriptor> = {
  "gzkit-authoring-guide@1.0": gzkitAuthoringGuide as unknown as Descriptor,
  "gaze-analyzer@1.0.0": gazeAnalyzerV1_0_0 as unknown as Descriptor,
  "gaze-analyzer@1.1.0": gazeAnalyzerV1_1_0 as unknown as Descriptor,
  "agentapi-driver@1": agentapiDriver as unknown as Descriptor,
};

/**
 * Captures of frames no client writes (a truncated line, a bare CR, a wrong `jsonrpc`, a duplicated id):
 * they show a server's answers to broken input, and the Rust serve loop replays them
 * (bindings/rust/tests/session_replay.rs); a client cannot send them.
 */
const MALFORMED_INPUT = new Set([
  "agentapi-driver@1/malformed-frames",
  "gaze-analyzer@1.0.0/parse-error-answered", // a truncated line
  "gaze-analyzer@1.0.0/result-for-invalid-id", // an object as a request id
  "gaze-analyzer@1.0.0/answered-notification", // a notification the protocol does not define
]);

/**
 * Captures where the server accepted what a client refuses before sending (an initialize
 * with invalid params): the monitor follows the server into the state it chose, a client
 * that refused never gets there and refuses the calls after it as well.
 */
const SERVER_WENT_ELSEWHERE = new Set(["gaze-analyzer@1.0.0/initialize-invalid-params-accepted"]);

/**
 * The monitor's judgements of the server's answer to a message a client refuses before
 * sending (accepted_invalid, wrong_error, result_for_invalid_id), and of what only a
 * monitor reads (a declared protocol version): a client that refused sees none of them.
 */
const UNSEEN_BY_A_CLIENT = new Set(["accepted_invalid", "wrong_error", "result_for_invalid_id", "version_mismatch"]);

/** An answer a client cannot pair: the monitor tells which (a second answer, an answer to a notification, an id never sent). */
const UNPAIRED = new Set(["duplicate_answer", "answered_notification", "unknown_id"]);

interface Problem {
  frame: number;
  kind: string;
  pointer: string;
}

/** The peer's end of an in-memory pipe. */
class PeerTransport implements Transport {
  written: Uint8Array[] = [];
  private data: ((chunk: Uint8Array) => void) | undefined;
  private end: ((end: TransportEnd) => void) | undefined;
  write(bytes: Uint8Array): void {
    this.written.push(bytes);
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
  send(bytes: Uint8Array): void {
    this.data?.(bytes);
  }
  exit(): void {
    const end = this.end;
    this.end = undefined;
    end?.({ code: 0, signal: null, stderr: "" });
  }
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function idKey(id: Id | null): string {
  return id === null ? "null" : typeof id === "string" ? `s:${id}` : `n:${id.toString()}`;
}

/** The frames of a capture, decoded as far as they decode. */
function framesOf(protocol: Descriptor, bytes: Uint8Array): { body: string; message: Message | undefined }[] {
  const decoder = decoderFor(protocol.framing, { maxFrameBytes: protocol.maxFrameBytes, maxHeaderBytes: 8192 });
  decoder.push(bytes);
  decoder.finish();
  return decoder.drain().map((item) => {
    assert.ok(!(item instanceof FramingError), `the capture frames: ${String(item)}`);
    let message: Message | undefined;
    try {
      message = decodeMessage(item.body, { dialect: protocol.dialect, strict: false });
    } catch {
      message = undefined; // a streamed item
    }
    return { body: item.body, message };
  });
}

interface Replay {
  problems: Problem[];
  results: number;
  errors: number;
}

/** Replays one capture through a Client against a peer playing its server side. */
async function replay(protocol: Descriptor, bytes: Uint8Array): Promise<Replay> {
  const frames = framesOf(protocol, bytes);
  const peer = new PeerTransport();
  const problems: Problem[] = [];
  let at = 0;
  // The capture's client frames go out in the capture's order, as its client sent them (a capture may pipeline
  // even where the protocol says one request at a time; the monitor judges that, not this replay).
  const client = new Client(peer, { ...protocol, oneRequestAtATime: false }, {
    defaultTimeoutMs: 0,
    onProtocolError: (error) => {
      if (error instanceof SchemaError) return; // reported through the request it answers
      if (error instanceof ServerRuleError) {
        problems.push({ frame: at, kind: "rule", pointer: error.pointer });
        return;
      }
      if (/answers no pending request/.test(error.message)) problems.push({ frame: at, kind: "unpaired", pointer: "/id" });
      else if (/after the server had already sent what only its success allows/.test(error.message)) problems.push({ frame: at, kind: "lifecycle", pointer: "/error" });
      else problems.push({ frame: at, kind: "protocol", pointer: error.message });
    },
  }) as unknown as Client;
  const call = client as unknown as {
    request(method: string, params?: JsonValue): Promise<unknown>;
    requestStream(method: string, params?: JsonValue): Promise<JsonValue[]>;
  };
  const ids = new Map<string, Id | null>(); // the capture's request id to the client's
  const skipped = new Set<string>(); // capture ids of requests the client refused
  const settled: Promise<void>[] = [];
  let results = 0;
  let errors = 0;
  const encoder = encoderFor(protocol.framing, { maxFrameBytes: protocol.maxFrameBytes, maxHeaderBytes: 8192 });
  const encode = (message: Message): string =>
    protocol.canonical ? encodeCanonical(message, protocol.dialect) : encodeMessage(message, protocol.dialect);
  const checkError = (method: string, error: { code: number; message: string; data?: JsonValue | undefined }): void => {
    const whole = protocol.errorObject === undefined ? undefined : protocol.validators?.[protocol.errorObject];
    if (whole !== undefined) {
      const object: Record<string, JsonValue> = { code: error.code, message: error.message };
      if (error.data !== undefined) object["data"] = error.data;
      assert.deepEqual(validate(whole, object, "error"), [], `the error object answering ${method} validates`);
    }
    const validator = protocol.errorData === undefined ? undefined : protocol.validators?.[protocol.errorData];
    if (validator !== undefined && error.data !== undefined) {
      assert.deepEqual(validate(validator, error.data, "error-data"), [], `the error data answering ${method} validates`);
    }
  };
  for (const [index, frame] of frames.entries()) {
    at = index;
    const message = frame.message;
    const fromClient =
      message !== undefined &&
      (message.kind === "request" || (message.kind === "notification" && protocol.methods[message.method]?.direction !== "server-to-client"));
    if (fromClient && message.kind === "request") {
      const before = peer.written.length;
      const info = protocol.methods[message.method];
      const frameIndex = index;
      const outcome = info?.stream === true ? call.requestStream(message.method, message.params) : call.request(message.method, message.params);
      const sent = peer.written.length > before;
      if (sent) {
        const written = decodeMessage(new TextDecoder().decode(peer.written[peer.written.length - 1]).replace(/^Content-Length: \d+\r\n\r\n/, "").trim(), {
          dialect: protocol.dialect,
          strict: false,
        });
        assert.equal(written.kind, "request");
        if (written.kind === "request") ids.set(idKey(message.id), written.id);
      } else {
        skipped.add(idKey(message.id));
      }
      settled.push(
        outcome.then(
          (value) => {
            if (info?.stream !== true) results += 1;
            else results += (value as JsonValue[]).length;
          },
          (error: unknown) => {
            // A call the state refuses is refused at once, or (while a completion such as
            // driver.completed is due) held until the session ends: never sent either way.
            if (error instanceof LifecycleError || (!sent && error instanceof ServerExitedError)) {
              problems.push({ frame: frameIndex, kind: "lifecycle", pointer: "/method" });
            }
            else if (sent && error instanceof ServerExitedError) problems.push({ frame: frameIndex, kind: "unanswered", pointer: "/id" });
            else if (error instanceof RuleViolationError) problems.push({ frame: frameIndex, kind: "rule", pointer: error.pointer });
            else if (error instanceof CapabilityError) problems.push({ frame: frameIndex, kind: "capability", pointer: "/method" });
            else if (error instanceof InvalidParamsError) problems.push({ frame: frameIndex, kind: "invalid_params", pointer: error.issues[0]?.pointer ?? "" });
            else if (error instanceof SchemaError) problems.push({ frame: at, kind: "invalid_result", pointer: error.issues[0]?.pointer ?? "" });
            else if (error instanceof RpcError) {
              errors += 1;
              checkError(error.method ?? "", error);
            } else problems.push({ frame: at, kind: "protocol", pointer: String(error) });
          },
        ),
      );
      await tick();
      continue;
    }
    if (message !== undefined && (message.kind === "success_response" || message.kind === "error_response")) {
      const key = idKey(message.id);
      if (skipped.has(key)) {
        // The answer to a request the client refused locally: still an answer that must validate.
        if (message.kind === "error_response") {
          errors += 1;
          checkError("a refused request", message.error);
        }
        continue;
      }
      const mapped = ids.get(key);
      const answer: Message = mapped === undefined ? message : { ...message, id: mapped };
      peer.send(encoder.encode(encode(answer)));
    } else {
      peer.send(encoder.encode(frame.body));
    }
    await tick();
  }
  at = frames.length;
  peer.exit();
  await Promise.all(settled);
  return { problems: problems.sort((a, b) => a.frame - b.frame), results, errors };
}

const sessions = join(repoRoot(), "tests", "sessions");

/**
 * Protocols whose captures this client replay cannot play: it sends a capture's client requests and hands
 * everything else to the client as the server's. LSP captures also hold the client's notifications, the
 * server's requests and the client's answers to them (and the client sends `initialized` and `exit`
 * itself, `followed_by`), so they are judged by the Rust monitor (schemas/check.py, sessions.rs) and the
 * serve-loop replay (session_replay.rs) instead; the LSP lifecycle of this client is tested against pygls
 * in peers.test.ts. MCP captures are alike (the server's `ping`, `roots/list` and `sampling/createMessage`
 * with the client's answers, the client's `notifications/initialized` and `notifications/cancelled`).
 */
const NOT_CLIENT_REPLAYABLE = new Set(["lsp@3.17", "mcp@2025-06-18", "mcp@2025-11-25"]);

describe("captured sessions replayed through the TypeScript client", () => {
  for (const folder of readdirSync(sessions).sort().filter((f) => !NOT_CLIENT_REPLAYABLE.has(f))) {
    const protocol = DESCRIPTORS[folder];
    it(`${folder}: every capture's client side through the client; answers validate against the result and error schemas; the monitor's problems found`, async (t) => {
      assert.ok(protocol !== undefined, `a generated descriptor for ${folder}`);
      const captures = readdirSync(join(sessions, folder)).filter((n) => n.endsWith(".ndjson") || n.endsWith(".bin")).sort();
      assert.ok(captures.length > 0);
      let results = 0;
      let errors = 0;
      const mismatches: string[] = [];
      for (const capture of captures) {
        const name = capture.replace(/\.(ndjson|bin)$/, "");
        if (MALFORMED_INPUT.has(`${folder}/${name}`) || SERVER_WENT_ELSEWHERE.has(`${folder}/${name}`)) continue;
        const expect = JSON.parse(readFileSync(join(sessions, folder, `${name}.expect.json`), "utf8")) as { problems: Problem[] };
        const outcome = await replay(protocol, new Uint8Array(readFileSync(join(sessions, folder, capture))));
        results += outcome.results;
        errors += outcome.errors;
        const wanted = expect.problems
          .filter(({ kind }) => !UNSEEN_BY_A_CLIENT.has(kind))
          .map(({ frame, kind, pointer }) => ({ frame, kind: UNPAIRED.has(kind) ? "unpaired" : kind, pointer }));
        try {
          assert.deepEqual(outcome.problems, wanted);
        } catch {
          mismatches.push(`${name}: client found ${JSON.stringify(outcome.problems)}, monitor ${JSON.stringify(wanted)}`);
        }
      }
      assert.deepEqual(mismatches, []);
      assert.ok(results > 0, "some answers were results");
      t.diagnostic(`${folder}: ${captures.length} captures, ${results} results and items and ${errors} error answers validated`);
    });
  }
});

/** A descriptor that checks what the server sends but lets the client send anything (no lifecycle, capability, params or scope rule checks): the server's own refusals get answered. */
function permissive(protocol: Descriptor): Descriptor {
  const methods = Object.fromEntries(
    Object.entries(protocol.methods).map(([name, info]) => {
      const { lifecycle: _l, capability: _c, params: _p, ...rest } = info;
      return [name, rest];
    }),
  );
  const { lifecycle: _lifecycle, rules, ...rest } = protocol;
  return { ...rest, methods, rules: (rules ?? []).filter((rule) => !SESSION_RULES.includes(rule.rule)) };
}

/** The servers on the Rust serve loop built from this repository, by protocol. */
const SERVE_LOOP: Record<string, string> = {
  "gaze-analyzer@1.0.0": join(repoRoot(), "target", "debug", "gaze-analyzer-rust"),
  "agentapi-driver@1": join(repoRoot(), "target", "debug", "examples", "rust_driver"),
};

describe("captured sessions' client side sent to the Rust serve loop (every frame, faulty ones too)", () => {
  for (const [folder, server] of Object.entries(SERVE_LOOP)) {
    it(`${folder}: every answer of ${server.split("/").slice(-1)[0]} validates against the result and error schemas`, async (t) => {
      const protocol = DESCRIPTORS[folder];
      assert.ok(protocol !== undefined);
      const loose = permissive(protocol);
      const captures = readdirSync(join(sessions, folder)).filter((n) => n.endsWith(".ndjson") || n.endsWith(".bin")).sort();
      let results = 0;
      const codes = new Map<number, number>();
      const bad: string[] = [];
      for (const capture of captures) {
        const problems: string[] = [];
        const client = spawnServer(server, [], loose, { defaultTimeoutMs: 5000, onProtocolError: (e) => problems.push(e.message) }) as unknown as {
          request(method: string, params?: JsonValue): Promise<unknown>;
          close(): Promise<TransportEnd>;
        };
        for (const frame of framesOf(protocol, new Uint8Array(readFileSync(join(sessions, folder, capture))))) {
          const m = frame.message;
          if (m?.kind !== "request" || protocol.methods[m.method]?.stream === true) continue;
          try {
            await client.request(m.method, m.params);
            results += 1;
          } catch (error) {
            if (error instanceof RpcError) codes.set(error.code, (codes.get(error.code) ?? 0) + 1);
            else if (!(error instanceof LifecycleError)) problems.push(`${m.method}: ${String(error)}`);
          }
        }
        await client.close();
        bad.push(...problems.map((p) => `${capture}: ${p}`));
      }
      assert.deepEqual(bad, []);
      const errors = [...codes.entries()].map(([code, n]) => `${n}x ${code}`).join(", ");
      t.diagnostic(`${folder}: ${captures.length} captures sent to the serve loop, ${results} results and ${errors} error answers validated`);
      assert.ok(results > 0 && codes.size > 0, "both results and error answers were checked");
    });
  }
});
