/**
 * A typed JSON-RPC server for a protocol descriptor: the TypeScript
 * counterpart of the Rust core's serve loop (`bindings/rust/src/serve/server.rs`),
 * built on this runtime's framing decoders (with the protocol's bounds), the
 * envelope, the descriptor's validators, its lifecycle and capabilities, and
 * the manifest's rules (`rules.ts`).
 *
 * ```ts
 * import { serveStdio, gazeAnalyzerV1_0_0, type ServerHandlers, type gaze_analyzer_v1_0_0 as gaze } from "@wirekit/protocols";
 *
 * const handlers: ServerHandlers<gaze.GazeAnalyzerRequests, gaze.GazeAnalyzerNotifications, gaze.GazeAnalyzerServerNotifications> = {
 *   initialize: (params, context) => ({ protocol_version: "1.0.0", analyzer_name: "mine", analyzer_version: "0.1.0", capabilities: context.capabilities() as never }),
 *   complexity: () => ({ functions: [] }),
 *   shutdown: () => ({}),
 * };
 * await serveStdio(gazeAnalyzerV1_0_0, handlers);
 * ```
 *
 * Each frame is handled in turn, in the core's order of checks: framing
 * (a frame over the bound refused before it is buffered), envelope (a body
 * that is not JSON answered as the protocol says), method (-32601), params
 * against their schema before the lifecycle in a strict protocol and after
 * it otherwise (-32602 with the failing pointers in `data.errors`, shaped by
 * the manifest's `server_errors`), the lifecycle (the manifest's violation
 * code and message), an undeclared capability, the version negotiation and
 * the scope rules, then the handler. Its result is checked against the
 * result schema and the manifest's rules before it is sent: an invalid one
 * is never sent (-32603 instead, every issue logged). A handler that throws
 * a {@link ResponseError} answers that error (checked against the
 * protocol's error schemas); any other throw answers -32603 and the session
 * goes on. The method that `ends_session` ends it once answered; so does an
 * error the protocol says ends the session. Answers go out in the order the
 * requests came, one request at a time.
 *
 * What the loop cannot do without the manifest (descriptors from
 * {@link loadProtocol} and {@link protocolFromFiles} carry it in
 * {@link ProtocolDescriptor.serving}; the generated descriptors of the
 * shipped protocols do not yet): without it, self-produced errors take
 * wirekit's default shapes and lifecycle violations -32600, and an error
 * that would then break the protocol's error schemas is sent without its
 * `data`.
 *
 * @module
 */

import type { Readable, Writable } from "node:stream";

import { decodeMessage, encodeCanonical, encodeMessage, EnvelopeError, ErrorCode, type Dialect, type ErrorObject, type Id, type Message, type Notification, type Request } from "./envelope.js";
import { decoderFor, encoderFor, type FrameDecoder, type FrameEncoder, FramingError } from "./framing.js";
import { canonicalizeJson, copyNumberText, numberText, parseJson, stringifyJson, type JsonValue } from "./json.js";
import { RpcError } from "./client.js";
import {
  UNSTATED_FRAME_BOUND,
  type ErrorShape,
  type MethodInfo,
  type NotificationMap,
  type ProtocolDescriptor,
  type RequestMap,
  type ServerErrorCase,
  type ViolationSpec,
} from "./protocol.js";
import { checkMessageRules, lookup, ScopeRules, type RuleFault } from "./rules.js";
import { detailedIssues, type MessagePart, type SchemaIssue } from "./validation.js";

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The params type of an entry of a method map. */
type ParamsIn<E> = E extends { params: infer P } ? P : never;
/** The result type of an entry of a request map. */
type ResultIn<E> = E extends { result: infer T } ? T : never;

/** What a request handler returns: its result, or for a streamed method (`stream` in the map) its items. */
export type HandlerResult<E> = E extends { stream: infer I }
  ? Iterable<I> | AsyncIterable<I> | Promise<Iterable<I> | AsyncIterable<I>>
  : ResultIn<E> | Promise<ResultIn<E>>;

/** The arguments of {@link HandlerContext.notify} after the method: params, optional when they may be `undefined`. */
export type NotifyArgs<P> = undefined extends P ? [params?: P] : [params: P];

/** What a handler may use while it runs: the notifications it sends, the session's state, the capabilities to declare. */
export interface HandlerContext<SN> {
  /** The method being handled. */
  readonly method: string;
  /** The request's id (`undefined` for a notification). */
  readonly id: Id | null | undefined;
  /** The session's state when the handler was called (`""` without a lifecycle). */
  readonly state: string;
  /**
   * Sends a notification of the server's, typed by the map `SN`: checked at
   * once (a method the protocol does not let the server send, or params that
   * fail their schema, throw a {@link NotificationError} naming the JSON
   * pointer, and nothing is sent). Sent while a request is being handled, it
   * goes out right after that request's answer (as the core sends a
   * handler's queued notifications), where the lifecycle then allows it;
   * after the answer, at once.
   */
  notify<M extends keyof SN & string>(method: M, ...params: NotifyArgs<ParamsIn<SN[M]>>): void;
  /**
   * The capabilities the handlers declare (see {@link Server.capabilities}),
   * typed as the caller says (`context.capabilities<Capabilities>()`): the
   * value is derived from the descriptor, not checked against `T`.
   */
  capabilities<T = JsonValue | undefined>(): T;
}

/**
 * The handlers of a server, typed by the generated method maps: for each
 * request of `R` an optional `(params, context) => result` (or a promise,
 * or for a streamed method an iterable of items), for each notification of
 * `N` an optional `(params, context) => void`. A request without a handler
 * is answered -32601; a notification without one is ignored.
 */
export type ServerHandlers<
  R extends RequestMap<R> = Record<string, { params: unknown; result: unknown }>,
  N extends NotificationMap<N> = Record<string, { params: unknown }>,
  SN extends NotificationMap<SN> = Record<string, { params: unknown }>,
> = {
  readonly [M in keyof R | keyof N]?: M extends keyof R
    ? (params: ParamsIn<R[M]>, context: HandlerContext<SN>) => HandlerResult<R[M]>
    : M extends keyof N
      ? (params: ParamsIn<N[M]>, context: HandlerContext<SN>) => void | Promise<void>
      : never;
};

/** Thrown by a handler to answer with this error (code, message, data); checked against the protocol's error schemas first. */
export class ResponseError extends Error {
  /** The error code. */
  readonly code: number;
  /** The error's `data`, when there is one. */
  readonly data: JsonValue | undefined;

  /** An error answer. */
  constructor(code: number, message: string, data?: JsonValue) {
    super(message);
    this.name = "ResponseError";
    this.code = code;
    this.data = data;
  }
}

/** A notification {@link HandlerContext.notify} refused: nothing was sent. */
export class NotificationError extends Error {
  /** The notification's method. */
  readonly method: string;
  /** `unknown`: not a notification the server may send; `params`: they fail the schema; `lifecycle`: the session does not allow it now (or a scope rule refuses it). */
  readonly reason: "unknown" | "params" | "lifecycle";
  /** JSON pointer into the notification of the first fault (`/params/sequence`; `""` for the whole). */
  readonly pointer: string;
  /** Every schema issue (pointers from `/params`). */
  readonly issues: readonly SchemaIssue[];

  /** `method` refused for `reason`. */
  constructor(method: string, reason: "unknown" | "params" | "lifecycle", message: string, pointer = "", issues: readonly SchemaIssue[] = []) {
    super(message);
    this.name = "NotificationError";
    this.method = method;
    this.reason = reason;
    this.pointer = pointer;
    this.issues = issues;
  }
}

/** Options of a {@link Server}. */
export interface ServerOptions {
  /** Receives the loop's log lines (refused results, ignored messages); default: stderr, prefixed `wirekit: `. */
  log?: (line: string) => void;
  /** An invalid result (or item, or notification): `reject` (the default) answers -32603 / drops it; `warn` sends it and logs. */
  resultCheck?: "reject" | "warn";
}

/** How a serve loop ended. */
export interface ServeOutcome {
  /** `ended`: as the protocol says (shutdown answered, a fatal error, a stream sent); `end-of-input`: the input closed first; `framing-lost`: a framing fault lost the stream. */
  readonly reason: "ended" | "end-of-input" | "framing-lost";
  /** The fault, for `framing-lost`. */
  readonly detail?: string;
}

/** The byte pipe a server serves: bytes from the client in, answers out. A client-side {@link Transport} fits as well. */
export interface ServerIo {
  /** Sends bytes to the client. */
  write(bytes: Uint8Array): void;
  /** Registers the listener of bytes from the client. */
  onData(listener: (chunk: Uint8Array) => void): void;
  /** Registers the listener of the end of the client's input. */
  onEnd(listener: () => void): void;
  /** Closes the output and stops reading (the session is over). */
  endInput?(): void;
}

/** One issue as the core lists it in `data.errors`: pointer within the part, keyword, schema path, sentence. */
interface WireIssue {
  readonly pointer: string;
  readonly keyword: string;
  readonly schemaPath: string;
  readonly message: string;
}

function issueJson(issue: WireIssue): JsonValue {
  return { pointer: issue.pointer, keyword: issue.keyword, schema_path: issue.schemaPath, message: issue.message };
}

function issueLine(issue: WireIssue): string {
  return `${issue.pointer === "" ? "(root)" : issue.pointer}: ${issue.message} [${issue.keyword}]`;
}

const PART_BASE: Record<MessagePart, string> = { params: "/params", result: "/result", error: "/error", "error-data": "/error/data", item: "" };
const PART_NAME: Record<MessagePart, string> = { params: "params", result: "result", error: "error", "error-data": "error_data", item: "item" };

/** `first three issues; and N more`, as the core's answers say it. */
function describe(what: string, issues: readonly WireIssue[]): string {
  let message = what;
  issues.slice(0, 3).forEach((issue, index) => {
    message += `${index === 0 ? ": " : "; "}${issueLine(issue)}`;
  });
  if (issues.length > 3) message += `; and ${issues.length - 3} more`;
  return message;
}

/** wirekit's `data` template of a case the manifest does not declare. */
function defaultData(kase: ServerErrorCase): JsonValue | undefined {
  switch (kase) {
    case "parse_error":
    case "invalid_request":
      return { kind: "{kind}", pointer: "{pointer}" };
    case "invalid_params":
      return { part: "params", errors: "{errors}" };
    case "internal_error":
      return { part: "{part}", errors: "{errors}" };
    case "rule":
      return { rule: "{rule}" };
    case "answer_too_long":
      return { bytes: "{bytes}", max_frame_bytes: "{limit}" };
    default:
      return undefined;
  }
}

/** The standard code of a case (a framing fault that is not UTF-8 is a parse error). */
function standardCode(kase: ServerErrorCase, kind: string | undefined): number {
  switch (kase) {
    case "parse_error":
      return ErrorCode.ParseError;
    case "framing":
      return kind === "BodyNotUtf8" ? ErrorCode.ParseError : ErrorCode.InvalidRequest;
    case "invalid_request":
      return ErrorCode.InvalidRequest;
    case "method_not_found":
    case "capability_not_declared":
      return ErrorCode.MethodNotFound;
    case "invalid_params":
    case "rule":
      return ErrorCode.InvalidParams;
    default:
      return ErrorCode.InternalError;
  }
}

/** A template filled: a string that is exactly `{name}` becomes that value (dropped from an object when unknown); other strings get placeholders replaced as text. */
function fill(template: JsonValue, values: ReadonlyMap<string, JsonValue>): JsonValue | undefined {
  if (typeof template === "string") {
    const whole = /^\{([^{}]*)\}$/.exec(template);
    if (whole !== null) return values.get(whole[1]!);
    let text = template;
    for (const [name, value] of values) text = text.split(`{${name}}`).join(typeof value === "string" ? value : stringifyJson(value));
    return text;
  }
  if (Array.isArray(template)) return template.map((item) => fill(item, values) ?? null);
  if (isObj(template)) {
    const out: Record<string, JsonValue> = {};
    for (const key of Object.keys(template)) {
      const value = fill(template[key] as JsonValue, values);
      if (value !== undefined) Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
    }
    return out;
  }
  return template;
}

/** Fills `{name}` placeholders of a manifest message. */
function fillText(template: string, values: Record<string, string>): string {
  let text = template;
  for (const [name, value] of Object.entries(values)) text = text.split(`{${name}}`).join(value);
  return text;
}

/**
 * The capabilities a server with `handles` declares, in the protocol's
 * style (the core's `capabilities_for`, as Python's `Service.capabilities()`):
 * `boolean-object`, each capability true exactly when one of its methods has
 * a handler; `string-array`, the capabilities and the ungated working
 * methods that have one (not the declaring method, not the one that ends the
 * session); `provider` (LSP), each handled method's provider path set to
 * `true`. `undefined` when the protocol declares no capabilities.
 */
export function capabilitiesFor(descriptor: ProtocolDescriptor<never, never, never> | ProtocolDescriptor, handles: (method: string) => boolean): JsonValue | undefined {
  const spec = descriptor.capabilities;
  if (spec === undefined) return undefined;
  const methods = Object.entries(descriptor.methods as Readonly<Record<string, MethodInfo>>);
  switch (spec.style) {
    case "boolean-object": {
      const flags: Record<string, JsonValue> = {};
      for (const [name, info] of methods) {
        if (info.capability === undefined) continue;
        flags[info.capability] = handles(name) || flags[info.capability] === true;
      }
      return flags;
    }
    case "string-array": {
      const names: string[] = [];
      for (const [name, info] of methods) {
        const served = info.kind === "request" && info.direction !== "server-to-client";
        if (name === spec.method || info.lifecycle?.endsSession === true || !served || !handles(name)) continue;
        const declared = info.capability ?? name;
        if (!names.includes(declared)) names.push(declared);
      }
      return names;
    }
    case "provider": {
      const providers: Record<string, JsonValue> = {};
      for (const [name, info] of methods) {
        if (info.capability === undefined || !handles(name)) continue;
        const path = info.capability.split("/").map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"));
        const last = path.pop()!;
        let at = providers;
        for (const part of path) {
          if (!isObj(at[part])) at[part] = {};
          at = at[part] as Record<string, JsonValue>;
        }
        if (!isObj(at[last])) at[last] = true;
      }
      return providers;
    }
  }
}

/** A lifecycle (or rule, or version) refusal: the answer, and whether it ends the session. */
interface Violation {
  readonly answer: ErrorObject;
  readonly endsSession: boolean;
}

/** The session as the server keeps it (the core's `Session`). */
class ServerSession {
  state: string;
  ended = false;
  endedBy: string | undefined;
  declared: Set<string> | undefined;
  readonly rules: ScopeRules;

  constructor(
    private readonly protocol: ProtocolDescriptor,
    private readonly answers: Answers,
  ) {
    this.state = protocol.lifecycle?.initial ?? "";
    this.rules = new ScopeRules(protocol.rules);
  }

  /** Whether `method` may come now: the session goes on, the state allows it, its capability (once declared) is. */
  check(method: string): Violation | undefined {
    const info = this.protocol.methods[method];
    if (info === undefined) return undefined;
    if (this.ended) return this.stateViolation(method, "session-ended");
    const allowed = info.lifecycle?.allowedIn;
    if (allowed !== undefined && allowed.length > 0 && !allowed.includes("*") && !allowed.includes(this.state)) {
      return this.stateViolation(method, "wrong-state");
    }
    if (info.capability !== undefined && this.declared !== undefined && !this.declared.has(info.capability)) {
      return { answer: this.answers.capability(method, info.capability), endsSession: false };
    }
    return undefined;
  }

  /** Version negotiation, then the scope rules, for a request whose params passed. */
  admit(method: string, params: unknown): Violation | undefined {
    const negotiation = this.protocol.serving?.versionNegotiation;
    if (negotiation !== undefined && negotiation.method === method) {
      const client = lookup(params, negotiation.clientPointer);
      if (typeof client === "string") {
        const major = (version: string): string => {
          const text = (version.split(".")[0] ?? "").trim();
          return /^\d+$/.test(text) ? BigInt(text).toString() : text;
        };
        const [clientMajor, serverMajor] = [major(client), major(negotiation.serverVersion)];
        if (clientMajor !== serverMajor) {
          const error = this.protocol.errors?.find((e) => e.name === negotiation.error);
          const message = fillText(negotiation.message, { client, server: negotiation.serverVersion, client_major: clientMajor, server_major: serverMajor });
          return { answer: { code: error?.code ?? ErrorCode.InvalidRequest, message }, endsSession: error === undefined || error.endsSession === true };
        }
      }
    }
    const fault = this.rules.check(method, params);
    return fault === undefined ? undefined : { answer: this.answers.ruleViolation(fault), endsSession: false };
  }

  /** The answer to `method` was sent: a success moves the state and records capabilities; a fatal error ends the session. */
  answered(method: string, outcome: { result: JsonValue } | { error: ErrorObject }): void {
    const info = this.protocol.methods[method];
    if (info === undefined) return;
    if ("result" in outcome) {
      const spec = this.protocol.capabilities;
      if (spec !== undefined && spec.method === method) this.declared = declaredCapabilities(this.protocol, outcome.result);
      this.rules.opened(method);
      const life = info.lifecycle;
      if (life?.onSuccess !== undefined) this.state = life.onSuccess;
      if (life?.endsSession === true) this.ended = true;
      this.endIfTerminal();
      if (this.ended) this.endedBy ??= `\`${method}\` was answered`;
      return;
    }
    const fatal = this.protocol.errors?.find((e) => e.code === outcome.error.code && e.endsSession === true);
    if (fatal !== undefined) {
      if (!this.ended) this.endedBy = `\`${method}\` was refused with ${fatal.code} (${fatal.name})`;
      this.ended = true;
    }
  }

  /** A notification passes (either way): the state and the scope rules allow it; then it moves the state. */
  notify(method: string, params: unknown): Violation | undefined {
    const refused = this.check(method);
    if (refused !== undefined) return refused;
    const fault = this.rules.check(method, params);
    if (fault !== undefined) return { answer: this.answers.ruleViolation(fault), endsSession: false };
    this.rules.record(method, params);
    const next = this.protocol.methods[method]?.lifecycle?.onSuccess;
    if (next !== undefined) this.state = next;
    this.endIfTerminal();
    if (this.ended) this.endedBy ??= `\`${method}\` arrived`;
    return undefined;
  }

  end(): void {
    this.ended = true;
  }

  private endIfTerminal(): void {
    if (this.protocol.lifecycle?.terminal.includes(this.state) === true) this.ended = true;
  }

  private stateViolation(method: string, kind: "wrong-state" | "session-ended"): Violation {
    const serving = this.protocol.serving;
    const spec: ViolationSpec | undefined = serving?.methodViolations?.[method] ?? serving?.violation;
    const ended =
      kind === "session-ended"
        ? this.endedBy === undefined
          ? `\`${method}\` comes after the end of the session`
          : `\`${method}\` comes after the end of the session: it ended when ${this.endedBy}`
        : undefined;
    if (spec === undefined) return { answer: { code: ErrorCode.InvalidRequest, message: ended ?? `\`${method}\` is not allowed now` }, endsSession: false };
    const allowed = (this.protocol.methods[method]?.lifecycle?.allowedIn ?? []).join(" or ");
    const message = ended ?? fillText(spec.message, { method, state: this.state, allowed });
    const answer: ErrorObject = { code: spec.code, message };
    if (spec.data !== undefined && spec.data !== null) answer.data = spec.data;
    return { answer, endsSession: false };
  }
}

/** The capabilities a result of the declaring method declares, in the protocol's style. */
function declaredCapabilities(protocol: ProtocolDescriptor, result: JsonValue): Set<string> {
  const spec = protocol.capabilities!;
  const at = lookup(result, spec.pointer);
  const names = new Set<string>();
  if (spec.style === "string-array" && Array.isArray(at)) {
    for (const name of at) if (typeof name === "string") names.add(name);
  } else if (spec.style === "boolean-object" && isObj(at)) {
    for (const [name, on] of Object.entries(at)) if (on === true) names.add(name);
  } else if (spec.style === "provider" && at !== undefined) {
    for (const info of Object.values(protocol.methods)) {
      if (info.capability === undefined) continue;
      const provider = lookup(at, `/${info.capability}`);
      if (provider === true || isObj(provider)) names.add(info.capability);
    }
  }
  return names;
}

/** The errors the server produces itself, shaped as the protocol declares (the core's `validate/answer.rs`). */
class Answers {
  constructor(private readonly protocol: ProtocolDescriptor) {}

  build(kase: ServerErrorCase, kind: string | undefined, message: string, values: [string, JsonValue][]): ErrorObject {
    const shape: ErrorShape | undefined = this.protocol.serving?.serverErrors?.[kase];
    const chosen = kind === undefined ? shape : (shape?.byKind?.[kind] ?? shape);
    const code = chosen?.code ?? shape?.code ?? standardCode(kase, kind);
    const template = shape === undefined ? defaultData(kase) : chosen?.data;
    const filled = new Map(values);
    if (kind !== undefined) filled.set("kind", kind);
    const error: ErrorObject = { code, message };
    const data = template === undefined || template === null ? undefined : fill(template, filled);
    if (data !== undefined) error.data = data;
    return error;
  }

  declares(kase: ServerErrorCase): boolean {
    return this.protocol.serving?.serverErrors?.[kase] !== undefined;
  }

  framing(fault: FramingError): ErrorObject {
    return this.build("framing", fault.kind, `${fault.kind} at byte ${fault.offset}: ${fault.detail}`, [["offset", fault.offset]]);
  }

  envelope(error: EnvelopeError): ErrorObject {
    const kase: ServerErrorCase = error.code === ErrorCode.ParseError ? "parse_error" : "invalid_request";
    const values: [string, JsonValue][] = Buffer.byteLength(error.pointer) <= 256 ? [["pointer", error.pointer]] : [];
    const answer = this.build(kase, error.kind, error.toResponse().error.message, values);
    // wirekit's default keeps the kind's own code.
    if (!this.declares(kase)) answer.code = error.code;
    return answer;
  }

  methodNotFound(method: string): ErrorObject {
    return this.build("method_not_found", undefined, `Method not found: ${method}`, [["method", method]]);
  }

  capability(method: string, capability: string): ErrorObject {
    return this.build("capability_not_declared", undefined, `\`${method}\` needs the capability \`${capability}\`, which the server did not declare`, [
      ["method", method],
      ["capability", capability],
    ]);
  }

  invalidParams(method: string, issues: readonly WireIssue[]): ErrorObject {
    return this.build("invalid_params", undefined, describe(`invalid params for \`${method}\``, issues), [
      ["method", method],
      ["errors", issues.map(issueJson)],
    ]);
  }

  invalidResult(method: string, part: MessagePart, issues: readonly WireIssue[]): ErrorObject {
    return this.build("internal_error", undefined, describe(`the server produced an invalid ${PART_NAME[part]} for \`${method}\``, issues), [
      ["method", method],
      ["part", PART_NAME[part]],
      ["errors", issues.map(issueJson)],
    ]);
  }

  internal(method: string, detail: string): ErrorObject {
    return this.build("internal_error", undefined, `Internal error in \`${method}\`: ${detail}`, [
      ["method", method],
      ["part", "result"],
      ["errors", []],
    ]);
  }

  overBound(method: string, what: string, length: number): ErrorObject {
    const bound = this.protocol.maxFrameBytes;
    const id = `${this.protocol.name}@${this.protocol.version}`;
    let message =
      bound !== UNSTATED_FRAME_BOUND
        ? `${what} of \`${method}\` is ${length} bytes, over the ${bound}-byte frame bound of ${id} (the longest line its host reads); it was not sent`
        : `${what} of \`${method}\` is ${length} bytes, over wirekit's own ${bound}-byte frame bound (${id} states none); it was not sent`;
    const stream = Object.entries(this.protocol.methods).find(([name, info]) => name.startsWith(`${method}/`) && info.stream === true);
    if (stream !== undefined) {
      const [name, info] = stream;
      message +=
        info.capability === undefined
          ? `; answer \`${name}\` instead, which sends one item a line`
          : `; answer \`${name}\` instead (declare the \`${info.capability}\` capability), which sends one item a line`;
    }
    return this.build("answer_too_long", undefined, message, [
      ["method", method],
      ["bytes", length],
      ["limit", bound],
    ]);
  }

  ruleViolation(fault: RuleFault): ErrorObject {
    const spec = this.protocol.rules?.find((r) => r.rule === fault.rule);
    const pointer = `/params${fault.pointer}`;
    const own = spec?.["error"];
    if (isObj(own)) {
      const error: ErrorObject = { code: typeof own["code"] === "number" ? own["code"] : ErrorCode.InvalidParams, message: fault.message };
      if (own["data"] !== undefined && own["data"] !== null) error.data = own["data"] as JsonValue;
      return error;
    }
    return this.build("rule", undefined, fault.message, [
      ["rule", fault.rule],
      ["pointer", pointer],
    ]);
  }
}

/** The index after the JSON whitespace at `at`. */
function skipWhitespace(text: string, at: number): number {
  while (at < text.length && " \t\n\r".includes(text[at]!)) at += 1;
  return at;
}

/** The end of the JSON string starting at `at` (its opening quote), or -1 when it does not end in `text`. */
function stringEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i += 1;
    else if (c === '"') return i + 1;
  }
  return -1;
}

/** The end of the JSON value starting at `at` (scanned, not judged), or -1 when it does not end in `text`. */
function valueEnd(text: string, at: number): number {
  const c = text[at];
  if (c === undefined) return -1;
  if (c === '"') return stringEnd(text, at);
  if (c === "{" || c === "[") {
    let depth = 0;
    for (let i = at; i < text.length; i++) {
      const d = text[i];
      if (d === '"') {
        const end = stringEnd(text, i);
        if (end < 0) return -1;
        i = end - 1;
      } else if (d === "{" || d === "[") depth += 1;
      else if (d === "}" || d === "]") {
        depth -= 1;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
  let i = at;
  while (i < text.length && !" \t\n\r,]}".includes(text[i]!)) i += 1;
  return i === at ? -1 : i;
}

/** An id as the driver protocol's reference reads it: a string, or a number whose canonical form is an integer. */
function canonicalId(value: unknown, written: string | undefined): Id | undefined {
  if (typeof value === "string") return value;
  if (typeof value !== "number" && typeof value !== "bigint") return undefined;
  const double = Number(written ?? String(value));
  if (!Number.isFinite(double)) return undefined;
  const canonical = String(double);
  if (/[.eE]/.test(canonical)) return undefined;
  const n = BigInt(canonical);
  return Number.isSafeInteger(Number(n)) ? Number(n) : n;
}

/** A JSON value read from `text` (the runtime's parser), or `undefined`. */
function jsonValue(text: string): { value: unknown; written: string | undefined } | undefined {
  try {
    const parsed = parseJson(text);
    return { value: parsed.value, written: parsed.numberText };
  } catch {
    return undefined;
  }
}

/**
 * The id of a refused frame, recovered as the driver protocol's reference
 * recovers it (the core's `envelope::recover_id`): for a complete frame, the
 * `id` of its first JSON value when that is an object; for the first bytes
 * of a frame over the bound (`complete` false), the last `id` member
 * written before the bytes run out, its value complete.
 */
function recoverId(line: Uint8Array, complete: boolean): Id | undefined {
  const text = new TextDecoder().decode(line);
  const first = skipWhitespace(text, 0);
  if (complete) {
    const end = valueEnd(text, first);
    const read = end < 0 ? undefined : jsonValue(text.slice(first, end));
    if (read === undefined || !isObj(read.value)) return undefined;
    return canonicalId(read.value["id"], numberText(read.value, "id"));
  }
  if (text[first] !== "{") return undefined;
  let at = first + 1;
  let found: Id | undefined;
  for (;;) {
    at = skipWhitespace(text, at);
    if (text[at] !== '"') return found;
    const keyEnd = stringEnd(text, at);
    const key = keyEnd < 0 ? undefined : jsonValue(text.slice(at, keyEnd))?.value;
    if (typeof key !== "string") return found;
    at = skipWhitespace(text, keyEnd);
    if (text[at] !== ":") return found;
    at = skipWhitespace(text, at + 1);
    const end = valueEnd(text, at);
    if (end < 0) return found;
    if (key === "id") {
      // A value that reaches the end of the bytes may go on beyond them.
      if (end >= text.length) return found;
      const read = jsonValue(text.slice(at, end));
      if (read === undefined) return found;
      found = canonicalId(read.value, read.written);
    } else if (jsonValue(text.slice(at, end)) === undefined) {
      return found;
    }
    at = skipWhitespace(text, end);
    if (text[at] !== ",") return found;
    at += 1;
  }
}

type Flow = "continue" | "stop";

/** A promise-like value. */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as { then?: unknown }).then === "function";
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A protocol server: feed it the client's bytes ({@link Server.push},
 * {@link Server.end}) and it writes the answers through its output, or
 * let it serve a {@link ServerIo} or node streams ({@link Server.serve},
 * {@link serveStdio}).
 */
export class Server<
  R extends RequestMap<R> = Record<string, { params: unknown; result: unknown }>,
  N extends NotificationMap<N> = Record<string, { params: unknown }>,
  SN extends NotificationMap<SN> = Record<string, { params: unknown }>,
> {
  private readonly protocol: ProtocolDescriptor;
  private readonly handlers: Readonly<Record<string, ((params: unknown, context: HandlerContext<SN>) => unknown) | undefined>>;
  private readonly decoder: FrameDecoder;
  private readonly encoder: FrameEncoder;
  private readonly answers: Answers;
  private readonly session: ServerSession;
  private readonly log: (line: string) => void;
  private readonly resultCheck: "reject" | "warn";
  private output: ((bytes: Uint8Array) => void) | undefined;
  private pumping = false;
  private inputEnded = false;
  private outcome: ServeOutcome | undefined;
  private settle!: (outcome: ServeOutcome) => void;
  /** Resolves with how the session ended, once it has (nothing is read after). */
  readonly done: Promise<ServeOutcome>;

  /** A server of `descriptor` with `handlers`. */
  constructor(descriptor: ProtocolDescriptor<R, N, SN>, handlers: ServerHandlers<R, N, SN>, options: ServerOptions = {}) {
    this.protocol = descriptor as unknown as ProtocolDescriptor;
    this.handlers = handlers as unknown as Server<R, N, SN>["handlers"];
    const limits = {
      maxFrameBytes: descriptor.maxFrameBytes,
      maxHeaderBytes: 8192,
      strictLineEndings: descriptor.strict && descriptor.framing === "ndjson",
    };
    this.decoder = decoderFor(descriptor.framing, limits);
    this.encoder = encoderFor(descriptor.framing, limits);
    this.answers = new Answers(this.protocol);
    this.session = new ServerSession(this.protocol, this.answers);
    this.log = options.log ?? ((line) => process.stderr.write(`wirekit: ${line}\n`));
    this.resultCheck = options.resultCheck ?? "reject";
    this.done = new Promise((resolve) => {
      this.settle = resolve;
    });
  }

  /** The session's state (`""` without a lifecycle). */
  get state(): string {
    return this.session.state;
  }

  /** Whether the session is over. */
  get ended(): boolean {
    return this.outcome !== undefined;
  }

  /**
   * The capabilities to declare, derived from the handlers in the protocol's
   * style ({@link capabilitiesFor}); `undefined` when the protocol has no
   * capabilities. The declaring method's result gets them at the
   * declaration's pointer when its handler leaves that member out.
   */
  capabilities(): JsonValue | undefined {
    return capabilitiesFor(this.protocol, (method) => typeof this.handlers[method] === "function");
  }

  /** Where the answers go (bytes of whole frames). */
  onOutput(listener: (bytes: Uint8Array) => void): void {
    this.output = listener;
  }

  /** Bytes from the client. Ignored once the session is over. */
  push(chunk: Uint8Array): void {
    if (this.outcome !== undefined) return;
    this.decoder.push(chunk);
    this.pump();
  }

  /** The end of the client's input: a partial frame is a fault (Content-Length) or a last line (NDJSON). */
  end(): void {
    if (this.outcome !== undefined || this.inputEnded) return;
    this.inputEnded = true;
    this.decoder.finish();
    this.pump();
  }

  /** Serves `io` until the session ends or its input does; closes its output at the end. */
  serve(io: ServerIo): Promise<ServeOutcome> {
    this.onOutput((bytes) => io.write(bytes));
    io.onData((chunk) => this.push(chunk));
    io.onEnd(() => this.end());
    return this.done.then((outcome) => {
      io.endInput?.();
      return outcome;
    });
  }

  /** Serves node streams (default: this process's stdin and stdout). */
  serveStreams(input: Readable = process.stdin, output: Writable = process.stdout): Promise<ServeOutcome> {
    const onData = (chunk: Buffer | string): void => this.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    const onEnd = (): void => this.end();
    input.on("data", onData);
    input.on("end", onEnd);
    input.on("error", onEnd);
    output.on("error", () => undefined);
    this.onOutput((bytes) => {
      if (!output.destroyed && !output.writableEnded) output.write(bytes);
    });
    return this.done.then((outcome) => {
      input.off("data", onData);
      input.off("end", onEnd);
      // Stop reading, so the process can exit once the session is over.
      input.pause();
      if ("unref" in input && typeof (input as { unref?: unknown }).unref === "function") (input as unknown as { unref(): void }).unref();
      if (input !== process.stdin) input.destroy();
      return outcome;
    });
  }

  private finishWith(outcome: ServeOutcome): void {
    if (this.outcome !== undefined) return;
    this.outcome = outcome;
    this.session.end();
    this.settle(outcome);
  }

  /** Handles queued frames in turn; an asynchronous handler holds the next frame until it is answered. */
  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    const loop = (): void => {
      for (;;) {
        if (this.outcome !== undefined) break;
        const item = this.decoder.next();
        if (item === undefined) {
          if (this.inputEnded) this.finishWith({ reason: "end-of-input" });
          break;
        }
        let flow: Flow | Promise<Flow>;
        try {
          flow = this.onFrame(item);
        } catch (error) {
          // A fault of the loop itself (never the peer's input): the session cannot go on.
          this.log(`the serve loop failed: ${errorText(error)}`);
          this.finishWith({ reason: "ended" });
          break;
        }
        if (isThenable(flow)) {
          flow.then(
            (next) => {
              this.afterFrame(item, next);
              loop();
            },
            (error: unknown) => {
              this.log(`the serve loop failed: ${errorText(error)}`);
              this.finishWith({ reason: "ended" });
              this.pumping = false;
            },
          );
          return;
        }
        this.afterFrame(item, flow);
      }
      this.pumping = false;
    };
    loop();
  }

  private afterFrame(item: FramingError | { body: string }, flow: Flow): void {
    if (item instanceof FramingError && item.endsStream) {
      this.finishWith({ reason: "framing-lost", detail: item.message });
      return;
    }
    if (flow === "stop" || this.session.ended) this.finishWith({ reason: "ended" });
  }

  private write(bytes: Uint8Array): void {
    this.output?.(bytes);
  }

  /** A message's body as the transport writes it (canonical where the protocol is). */
  private body(message: Message): string {
    const dialect: Dialect = this.protocol.dialect;
    return this.protocol.canonical ? encodeCanonical(message, dialect) : encodeMessage(message, dialect);
  }

  /** Sends a message the loop made itself; one that cannot be framed is dropped with a log line. */
  private sendMessage(message: Message): void {
    try {
      this.write(this.encoder.encode(this.body(message)));
    } catch (error) {
      this.log(`dropped an answer that cannot be framed: ${errorText(error)}`);
    }
  }

  private endsSession(code: number): boolean {
    return this.protocol.errors?.some((e) => e.code === code && e.endsSession === true) === true;
  }

  /**
   * An error the server made itself, checked against the protocol's error
   * schemas: one that breaks them (a descriptor without the manifest's
   * `server_errors`) is sent without its `data`.
   */
  private ownError(method: string | undefined, error: ErrorObject): ErrorObject {
    if (error.data === undefined || this.errorIssues(method, error).length === 0) return error;
    const bare: ErrorObject = { code: error.code, message: error.message };
    if (this.errorIssues(method, bare).length === 0) return bare;
    return error;
  }

  /** The issues of an error object against the protocol's `error_data` (absent data as null) and `error_object`. */
  private errorIssues(_method: string | undefined, error: ErrorObject): WireIssue[] {
    const issues: WireIssue[] = [];
    const dataValidator = this.protocol.errorData === undefined ? undefined : this.protocol.validators?.[this.protocol.errorData];
    if (dataValidator !== undefined) issues.push(...this.wireIssues(dataValidator, error.data ?? null, "error-data", numberText(error, "data"), "/data"));
    const objectValidator = this.protocol.errorObject === undefined ? undefined : this.protocol.validators?.[this.protocol.errorObject];
    if (objectValidator !== undefined) {
      const object: Record<string, JsonValue> = { code: error.code, message: error.message };
      if (error.data !== undefined) object["data"] = error.data;
      for (const issue of this.wireIssues(objectValidator, object, "error", undefined, "")) {
        if (!issues.some((i) => i.pointer === issue.pointer && i.keyword === issue.keyword)) issues.push(issue);
      }
    }
    return issues;
  }

  /** Issues with pointers within the part (prefixed by `prefix`), as the core lists them. */
  private wireIssues(validator: Parameters<typeof detailedIssues>[0], value: unknown, part: MessagePart, written: string | undefined, prefix = ""): WireIssue[] {
    const base = PART_BASE[part];
    return detailedIssues(validator, value, part, written).map((issue) => ({
      pointer: prefix + (issue.pointer.startsWith(base) ? issue.pointer.slice(base.length) : issue.pointer),
      keyword: issue.keyword,
      schemaPath: issue.schemaPath,
      message: issue.detail,
    }));
  }

  /** One part of `method`'s message against its schema, then the manifest's per-message rules (the core's `Protocol::validate`). */
  private validatePart(method: string, part: "params" | "result" | "item", value: JsonValue | undefined, written?: string): WireIssue[] {
    const info = this.protocol.methods[method];
    if (info === undefined) return [];
    const type = part === "params" ? info.params : part === "result" ? info.result : info.item;
    const validator = type === undefined ? undefined : this.protocol.validators?.[type];
    if (part === "params" && (value === undefined || value === null)) {
      if (info.paramsOptional === true || validator === undefined) return [];
      return [{ pointer: "", keyword: "required", schemaPath: "", message: `\`${method}\` requires params` }];
    }
    if (value === undefined) return [];
    const issues = validator === undefined ? [] : this.wireIssues(validator, value, part, written);
    if (issues.length > 0) return issues;
    const base = PART_BASE[part];
    return checkMessageRules(this.protocol.rules, method, part, value).map((issue) => ({
      pointer: issue.pointer.startsWith(base) ? issue.pointer.slice(base.length) : issue.pointer,
      keyword: issue.keyword,
      schemaPath: "",
      message: issue.message.slice(issue.message.indexOf(": ") + 2),
    }));
  }

  /** The id to answer a refused frame with: `null` (or the id read), a recovered id (silent protocols), or no answer (`undefined`). */
  private refusedFrameId(line: Uint8Array, complete: boolean, read: Id | null): { id: Id | null } | undefined {
    if (this.protocol.serving?.unreadableId !== "silent") return { id: read };
    const recovered = recoverId(line, complete);
    return recovered === undefined ? undefined : { id: recovered };
  }

  private unanswered(error: ErrorObject): void {
    this.log(
      `left a frame unanswered: its request id cannot be read (${error.code} ${error.message}); ${this.protocol.name}@${this.protocol.version} answers no such frame`,
    );
  }

  /** One frame (or framing fault). */
  private onFrame(item: FramingError | { body: string }): Flow | Promise<Flow> {
    if (item instanceof FramingError) {
      if (item.kind === "EmptyFrame") return "continue";
      const error = this.ownError(undefined, this.answers.framing(item));
      const fatal = this.endsSession(error.code);
      const to = this.refusedFrameId(item.head, item.kind !== "FrameTooLong", null);
      if (to === undefined) this.unanswered(error);
      else this.sendMessage({ kind: "error_response", id: to.id, error });
      return fatal || item.endsStream ? "stop" : "continue";
    }
    let message: Message;
    try {
      message = decodeMessage(item.body, { dialect: this.protocol.dialect, strict: this.protocol.strict });
    } catch (caught) {
      if (!(caught instanceof EnvelopeError)) throw caught;
      const answer = this.ownError(undefined, this.answers.envelope(caught));
      const to = this.refusedFrameId(new TextEncoder().encode(item.body), true, caught.id);
      if (to === undefined) this.unanswered(answer);
      else this.sendMessage({ kind: "error_response", id: to.id, error: answer });
      if (this.endsSession(answer.code)) {
        this.session.end();
        return "stop";
      }
      return "continue";
    }
    switch (message.kind) {
      case "request":
        return this.onRequest(message);
      case "notification":
        return this.onNotification(message);
      default:
        this.log(`ignored a response (id ${String(message.id)}) from the client: this server sends no requests`);
        return "continue";
    }
  }

  /** A context for a handler; notifications it sends during a request wait in `queue` until the answer is out. */
  private context(method: string, id: Id | null | undefined, queue: Notification[] | undefined): HandlerContext<SN> & { release(): Notification[] } {
    let held = queue;
    const server = this;
    return {
      method,
      id,
      state: this.session.state,
      capabilities: () => this.capabilities() as never,
      notify(name: string, params?: unknown): void {
        const note = server.checkedNotification(name, params as JsonValue | undefined);
        if (held !== undefined) held.push(note);
        else server.sendNotification(note, true);
      },
      release(): Notification[] {
        const out = held ?? [];
        held = undefined;
        return out;
      },
    } as HandlerContext<SN> & { release(): Notification[] };
  }

  /** A notification of the server's, checked at once: known, params valid (throws a {@link NotificationError}). */
  private checkedNotification(method: string, params: JsonValue | undefined): Notification {
    const info = this.protocol.methods[method];
    if (info?.kind !== "notification" || info.direction === "client-to-server") {
      throw new NotificationError(method, "unknown", `\`${method}\` is not a notification the server of ${this.protocol.name}@${this.protocol.version} sends`);
    }
    const issues = this.validatePart(method, "params", params);
    if (issues.length > 0) {
      if (this.resultCheck === "reject") {
        const rooted: SchemaIssue[] = issues.map((i) => ({ pointer: `/params${i.pointer}`, keyword: i.keyword, message: `/params${i.pointer}: ${i.message}` }));
        const message = describe(`\`${method}\` was not sent: its params fail the schema`, issues.map((i) => ({ ...i, pointer: `/params${i.pointer}` })));
        throw new NotificationError(method, "params", message, rooted[0]?.pointer ?? "/params", rooted);
      }
      this.log(`warning: sending an invalid params for \`${method}\` anyway: ${issues.map(issueLine).join("; ")}`);
    }
    return params === undefined ? { kind: "notification", method } : { kind: "notification", method, params };
  }

  /** Sends a checked notification: framed first, then the session's lifecycle and rules; refused ones are dropped (or thrown, when `raise`). */
  private sendNotification(note: Notification, raise: boolean): void {
    if (this.outcome !== undefined) {
      if (raise) throw new NotificationError(note.method, "lifecycle", `\`${note.method}\` comes after the end of the session`);
      this.log(`dropped \`${note.method}\`: the session is over`);
      return;
    }
    let frame: Uint8Array;
    try {
      frame = this.encoder.encode(this.body(note));
    } catch (error) {
      this.log(`dropped \`${note.method}\`: ${errorText(error)}`);
      if (raise) throw new NotificationError(note.method, "params", `\`${note.method}\` cannot be sent: ${errorText(error)}`);
      return;
    }
    const violation = this.session.notify(note.method, note.params);
    if (violation !== undefined) {
      this.log(`dropped \`${note.method}\`: ${violation.answer.message}`);
      if (raise) throw new NotificationError(note.method, "lifecycle", violation.answer.message);
      return;
    }
    this.write(frame);
  }

  private onNotification(note: Notification): Flow | Promise<Flow> {
    const { method, params } = note;
    const info = this.protocol.methods[method];
    if (info?.kind !== "notification" || info.direction === "server-to-client") {
      this.log(`ignored unknown notification \`${method}\``);
      return "continue";
    }
    const issue = this.validatePart(method, "params", params, numberText(note, "params"))[0];
    if (issue !== undefined) {
      this.log(`ignored notification \`${method}\` with invalid params: ${issueLine(issue)}`);
      return "continue";
    }
    const violation = this.session.notify(method, params);
    if (violation !== undefined) {
      this.log(`ignored notification \`${method}\`: ${violation.answer.message}`);
      return this.session.ended ? "stop" : "continue";
    }
    const handler = this.handlers[method];
    const flow = (): Flow => (this.session.ended ? "stop" : "continue");
    if (typeof handler !== "function") return flow();
    const failed = (error: unknown): Flow => {
      this.log(`the handler of \`${method}\` failed: ${errorText(error)}`);
      return flow();
    };
    try {
      const done = handler(params, this.context(method, undefined, undefined));
      if (isThenable(done)) return Promise.resolve(done).then(flow, failed);
    } catch (error) {
      return failed(error);
    }
    return flow();
  }

  private onRequest(request: Request): Flow | Promise<Flow> {
    const { id, method, params } = request;
    const info = this.protocol.methods[method];
    if (info?.kind !== "request" || info.direction === "server-to-client") return this.answer(request, method, { error: this.answers.methodNotFound(method) });
    const streamed = info.stream === true;
    const refuse = (error: ErrorObject): Flow => (streamed ? this.failStream(request, method, 0, error) : this.answer(request, method, { error }));
    const paramIssues = (): WireIssue[] => this.validatePart(method, "params", params, numberText(request, "params"));
    // A strict envelope's params are part of the frame: checked before the lifecycle, as the core does; else after it.
    if (this.protocol.strict) {
      const issues = paramIssues();
      if (issues.length > 0) return refuse(this.answers.invalidParams(method, issues));
    }
    const refused = this.session.check(method);
    if (refused !== undefined) {
      const flow = refuse(refused.answer);
      return refused.endsSession ? "stop" : flow;
    }
    if (!this.protocol.strict) {
      const issues = paramIssues();
      if (issues.length > 0) return refuse(this.answers.invalidParams(method, issues));
    }
    const admitted = this.session.admit(method, params);
    if (admitted !== undefined) {
      refuse(admitted.answer);
      if (admitted.endsSession) {
        this.session.end();
        return "stop";
      }
      return "continue";
    }
    const handler = this.handlers[method];
    if (typeof handler !== "function") return refuse(this.answers.methodNotFound(method));
    const context = this.context(method, id, []);
    let outcome: unknown;
    try {
      outcome = handler(params, context);
    } catch (error) {
      return this.afterRequest(context, this.failedAnswer(request, method, streamed, error));
    }
    if (streamed) {
      const run = async (): Promise<Flow> => {
        try {
          return await this.stream(request, method, await outcome, context);
        } catch (error) {
          return this.failedAnswer(request, method, true, error);
        }
      };
      return run().then((flow) => this.afterRequest(context, flow));
    }
    if (isThenable(outcome)) {
      return Promise.resolve(outcome).then(
        (result) => this.afterRequest(context, this.succeeded(request, method, result)),
        (error: unknown) => this.afterRequest(context, this.failedAnswer(request, method, false, error)),
      );
    }
    return this.afterRequest(context, this.succeeded(request, method, outcome));
  }

  /** After a request's answer: the notifications its handler sent meanwhile, then whether the session goes on. */
  private afterRequest(context: { release(): Notification[] }, flow: Flow): Flow {
    for (const note of context.release()) this.sendNotification(note, false);
    return this.session.ended ? "stop" : flow;
  }

  /** A handler's result: checked (schema, rules) before it is sent. */
  private succeeded(request: Request, method: string, value: unknown): Flow {
    let result = (value === undefined ? null : value) as JsonValue;
    const declaration = this.protocol.capabilities;
    if (declaration !== undefined && declaration.method === method && isObj(result)) result = this.withCapabilities(result, declaration.pointer);
    const issues = this.validatePart(method, "result", result);
    if (issues.length > 0) {
      const lines = issues.map(issueLine).join("; ");
      if (this.resultCheck === "reject") {
        this.log(`error: the handler's result for \`${method}\` is invalid; answered an internal error instead: ${lines}`);
        return this.answer(request, method, { error: this.answers.invalidResult(method, "result", issues) });
      }
      this.log(`warning: sending an invalid result for \`${method}\` anyway: ${lines}`);
    }
    return this.answer(request, method, { result });
  }

  /** The declaring method's result with the derived capabilities where its handler left them out. */
  private withCapabilities(result: Record<string, JsonValue>, pointer: string): JsonValue {
    const tokens = pointer === "" ? [] : pointer.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
    const last = tokens.pop();
    if (last === undefined) return result;
    const parent = lookup(result, tokens.length === 0 ? "" : `/${tokens.join("/")}`);
    if (!isObj(parent) || Object.prototype.hasOwnProperty.call(parent, last)) return result;
    const declared = this.capabilities();
    if (declared !== undefined) (parent as Record<string, JsonValue>)[last] = declared;
    return result;
  }

  /** A handler that threw: its {@link ResponseError} (checked), else -32603. */
  private failedAnswer(request: Request, method: string, streamed: boolean, thrown: unknown): Flow {
    let error: ErrorObject;
    if (thrown instanceof ResponseError || thrown instanceof RpcError) {
      error = { code: thrown.code, message: thrown.message };
      if (thrown.data !== undefined) error.data = thrown.data;
      const issues = this.errorIssues(method, error);
      if (issues.length > 0) {
        if (this.resultCheck === "reject") {
          error = error.code === ErrorCode.MethodNotFound ? this.answers.methodNotFound(method) : this.answers.invalidResult(method, "error-data", issues);
        } else {
          this.log(`warning: sending an invalid error_data for \`${method}\` anyway: ${issues.map(issueLine).join("; ")}`);
        }
      }
    } else {
      this.log(`the handler of \`${method}\` failed: ${errorText(thrown)}; answered -32603`);
      error = this.ownError(method, this.answers.internal(method, errorText(thrown)));
    }
    return streamed ? this.failStream(request, method, 0, error) : this.answer(request, method, { error });
  }

  /**
   * Answers a request: framed first (bound checked, canonical where the
   * protocol is); one over the frame bound is replaced by the protocol's
   * answer saying so, and only the answer actually sent moves the session.
   */
  private answer(request: Request, method: string, outcome: { result: JsonValue } | { error: ErrorObject }): Flow {
    const make = (o: typeof outcome): Message => {
      const response: Message = "result" in o ? { kind: "success_response", id: request.id, result: o.result } : { kind: "error_response", id: request.id, error: this.ownError(method, o.error) };
      copyNumberText(request, "id", response, "id");
      return response;
    };
    let sent = outcome;
    let response = make(outcome);
    let frame: Uint8Array | undefined;
    try {
      frame = this.encoder.encode(this.body(response));
    } catch (error) {
      const replacement =
        error instanceof FramingError && error.kind === "FrameTooLong"
          ? this.answers.overBound(method, "result" in outcome ? "the result" : "the error answer", Buffer.byteLength(this.bodyOrEmpty(response)))
          : this.answers.internal(method, errorText(error));
      sent = { error: replacement };
      response = make(sent);
      try {
        frame = this.encoder.encode(this.body(response));
      } catch (again) {
        frame = undefined;
        this.log(`dropped the answer to \`${method}\` (id ${String(request.id)}): ${errorText(again)}`);
      }
    }
    this.session.answered(method, "result" in sent ? sent : { error: (response as { error: ErrorObject }).error });
    if (frame !== undefined) this.write(frame);
    return this.session.ended ? "stop" : "continue";
  }

  private bodyOrEmpty(message: Message): string {
    try {
      return this.body(message);
    } catch {
      return "";
    }
  }

  /** A streamed result: each item checked and framed alone, then the end of the session. */
  private async stream(request: Request, method: string, items: unknown, context: { release(): Notification[] }): Promise<Flow> {
    void context;
    if (items === null || typeof items !== "object" || (!(Symbol.iterator in items) && !(Symbol.asyncIterator in items))) {
      return this.failStream(request, method, 0, this.answers.internal(method, "the handler of a streamed method must return an iterable of items"));
    }
    let written = 0;
    for await (const item of items as AsyncIterable<unknown>) {
      const value = (item === undefined ? null : item) as JsonValue;
      const issues = this.validatePart(method, "item", value);
      if (issues.length > 0) {
        if (this.resultCheck === "reject") {
          const error = this.answers.invalidResult(method, "item", issues);
          return this.failStream(request, method, written, { ...error, message: `item ${written} was refused: ${error.message}` });
        }
        this.log(`warning: sending an invalid item for \`${method}\` anyway: ${issues.map(issueLine).join("; ")}`);
      }
      const body = this.protocol.canonical ? canonicalizeJson(value) : stringifyJson(value);
      let frame: Uint8Array;
      try {
        frame = this.encoder.encode(body);
      } catch (error) {
        const failure =
          error instanceof FramingError && error.kind === "FrameTooLong" ? this.answers.overBound(method, `item ${written}`, Buffer.byteLength(body)) : this.answers.internal(method, errorText(error));
        return this.failStream(request, method, written, failure);
      }
      this.write(frame);
      written += 1;
    }
    this.session.answered(method, { result: null });
    this.session.end();
    return "stop";
  }

  /** Ends a streamed result with its failure line (`[<error response>]`) and ends the session. */
  private failStream(request: Request, method: string, sent: number, error: ErrorObject): Flow {
    const before = sent === 0 ? "before its first item" : sent === 1 ? "after 1 item, an incomplete result" : `after ${sent} items, an incomplete result`;
    const failure: ErrorObject = { code: error.code, message: `\`${method}\` failed ${before}: ${error.message}` };
    if (error.data !== undefined) failure.data = error.data;
    this.log(failure.message);
    this.session.answered(method, { error: failure });
    this.session.end();
    const response: Message = { kind: "error_response", id: request.id, error: failure };
    copyNumberText(request, "id", response, "id");
    try {
      this.write(this.encoder.encode(`[${this.body(response)}]`));
    } catch (caught) {
      this.log(`dropped the failure line of \`${method}\`: ${errorText(caught)}`);
    }
    return "stop";
  }
}

/** Options of {@link serveStdio}: the server's, and the streams (default: this process's stdin and stdout). */
export interface ServeStdioOptions extends ServerOptions {
  /** Where the client's bytes come from (default `process.stdin`). */
  input?: Readable;
  /** Where the answers go (default `process.stdout`). */
  output?: Writable;
}

/**
 * Serves `descriptor` with `handlers` over stdin/stdout (or the given
 * streams) until the session ends or the input closes; resolves with how
 * it ended. Reading stops at the end, so the process can exit.
 */
export function serveStdio<R extends RequestMap<R>, N extends NotificationMap<N>, SN extends NotificationMap<SN>>(
  descriptor: ProtocolDescriptor<R, N, SN>,
  handlers: ServerHandlers<R, N, SN>,
  options: ServeStdioOptions = {},
): Promise<ServeOutcome> {
  return new Server(descriptor, handlers, options).serveStreams(options.input, options.output);
}

/**
 * Serves `input` as the client's whole input and resolves with every byte
 * the server wrote (in-memory; for tests and captures).
 */
export async function serveBytes<R extends RequestMap<R>, N extends NotificationMap<N>, SN extends NotificationMap<SN>>(
  descriptor: ProtocolDescriptor<R, N, SN>,
  handlers: ServerHandlers<R, N, SN>,
  input: Uint8Array | string,
  options: ServerOptions = {},
): Promise<Uint8Array> {
  const server = new Server(descriptor, handlers, options);
  const chunks: Uint8Array[] = [];
  server.onOutput((bytes) => chunks.push(bytes));
  server.push(typeof input === "string" ? new TextEncoder().encode(input) : input);
  server.end();
  await server.done;
  return Buffer.concat(chunks);
}
