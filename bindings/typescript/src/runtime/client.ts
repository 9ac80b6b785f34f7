/**
 * A typed JSON-RPC client for a protocol's generated method map, over any
 * {@link Transport}; {@link spawnServer} spawns the server and talks over
 * its stdin/stdout.
 *
 * ```ts
 * import { spawnServer, gzkitAuthoringGuide } from "@wirekit/protocols";
 *
 * const guide = spawnServer("gz", ["complexity", "guide", "--server"], gzkitAuthoringGuide);
 * await guide.request("initialize", { clientVersion: "1.0" });
 * const { hints } = await guide.request("analyze", { file_path: "/src/parser.py" });
 * await guide.close(); // sends shutdown, closes stdin, waits for the exit
 * ```
 *
 * Requests carry integer ids counting up from 1 (or `firstId`). Each waits
 * at most its method's timeout (the manifest's `timeout_ms`, else the
 * client's default); a timeout kills the server, since a server that does
 * not answer cannot be trusted with the next request. When the server dies,
 * every pending request is rejected with a {@link ServerExitedError}
 * carrying the tail of its stderr. Optional methods are refused locally
 * ({@link CapabilityError}, nothing is sent) until the server has declared
 * their capability in its answer to the declaring method (e.g. `initialize`).
 *
 * The client keeps the session's lifecycle as the descriptor states it (the
 * Rust host's rules): a method sent in a state that does not allow it, or
 * after the session ended (a terminal state, an answered shutdown, an
 * error the protocol says ends the session such as gzkit's -32099), is
 * refused locally with a {@link LifecycleError}; params that fail their
 * schema are refused with an {@link InvalidParamsError}. What the server
 * sends is checked against the schemas too: a result, error data, a
 * streamed item or a notification that fails is a {@link SchemaError}.
 *
 * The server's own requests are answered at once, whatever the client
 * waits for (as the Rust host does): a request the protocol declares
 * `server-to-client` goes to the handler registered for its method in
 * {@link ClientOptions.onRequest} (params checked first, -32602; its result
 * after, -32603); an undeclared request, or one no handler is registered
 * for, is answered -32601. Each refusal is reported to
 * {@link ClientOptions.onProtocolError}. A handler gets the request's
 * {@link RequestContext}: its id and method, a `signal` aborted when the
 * server cancels the request with the protocol's `cancellation`
 * notification (which is delivered as usual too), and `notify` for the
 * client's notifications. A cancelled request is answered or not as the
 * protocol's `cancellation.answer` says: MCP's goes unanswered, LSP's is
 * answered (its result, or RequestCancelled when the handler gives up). Where the protocol says the server
 * handles one request at a time (`oneRequestAtATime`), a request waits
 * until every earlier one is answered before it is sent.
 *
 * @module
 */

import {
  decodeMessage,
  encodeCanonical,
  encodeMessage,
  EnvelopeError,
  ErrorCode,
  idWarning,
  type Id,
  type Message,
  type Request,
} from "./envelope.js";
import { decoderFor, encoderFor, type FrameDecoder, type FrameEncoder, FramingError } from "./framing.js";
import { JsonSyntaxError, numberText, parseJson, type JsonValue } from "./json.js";
import type { NotificationMap, ProtocolDescriptor, RequestMap } from "./protocol.js";
import { checkMessageRules, ScopeRules, type RuleFault } from "./rules.js";
import { describeIssues, validate, type MessagePart, type SchemaIssue } from "./validation.js";
import { ChildProcessTransport, type ChildProcessOptions, type Transport, type TransportEnd } from "./transport.js";

/** The params type of method `M` in map `R`. */
export type ParamsOf<R, M extends keyof R> = R[M] extends { params: infer P } ? P : never;

/** The result type of request `M` in map `R`. */
export type ResultOf<R, M extends keyof R> = R[M] extends { result: infer T } ? T : never;

/** The arguments after the method name: params (optional when the method's params may be `undefined`), then options. */
export type ParamsArgs<P> = undefined extends P ? [params?: P, options?: RequestOptions] : [params: P, options?: RequestOptions];

/** A notification of map `SN`, as delivered to {@link ClientOptions.onNotification}. */
export type NotificationOf<SN> = {
  [M in keyof SN & string]: { method: M; params: SN[M] extends { params: infer P } ? P : never };
}[keyof SN & string];

/** Options of {@link Client.notifications}. */
export interface NotificationsOptions {
  /**
   * End after the completion notification the session awaits (the one a
   * successful answer started: `driver.completed` after `driver.invoke`),
   * or at once when none is awaited; by default the iterator follows the
   * session to its end.
   */
  untilCompletion?: boolean;
}

/** A reader of the notifications delivered after it was made: queued until taken. */
class NotificationQueue<T> implements AsyncIterableIterator<T> {
  private readonly items: T[] = [];
  private readonly takers: ((result: IteratorResult<T, undefined>) => void)[] = [];
  private closed = false;

  constructor(private readonly detach: (queue: NotificationQueue<T>) => void) {}

  /** Hands `item` to a waiting `next()`, else keeps it. */
  push(item: T): void {
    if (this.closed) return;
    const taker = this.takers.shift();
    if (taker !== undefined) taker({ value: item, done: false });
    else this.items.push(item);
  }

  /** No more items: waiting and later `next()` calls end once the kept ones are taken. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.detach(this);
    for (const taker of this.takers.splice(0)) taker({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<T, undefined>> {
    const item = this.items.shift();
    if (item !== undefined) return Promise.resolve({ value: item, done: false });
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.takers.push(resolve));
  }

  return(): Promise<IteratorResult<T, undefined>> {
    this.items.length = 0;
    this.close();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): NotificationQueue<T> {
    return this;
  }
}

/** Options of one request. */
export interface RequestOptions {
  /** Overrides the method's timeout, in milliseconds. */
  timeoutMs?: number;
}

/** One message on the wire, for tracing: the exact body and what it decoded to. */
export interface TraceEvent {
  /** Sent to the server or received from it. */
  direction: "send" | "receive";
  /** The body, without framing. */
  body: string;
  /** The message (absent when a received body did not decode). */
  message?: Message;
}

/**
 * What a handler of a server's request gets besides its params: the
 * request's id and method, a signal aborted when the server cancels the
 * request, and a way to send the client's notifications while it runs.
 */
export interface RequestContext {
  /** The id of the server's request. */
  readonly id: Id | null;
  /** Its method. */
  readonly method: string;
  /**
   * Aborted when the server cancels this request with the protocol's
   * cancellation notification (the descriptor's `cancellation`: MCP's
   * `notifications/cancelled` naming it at `/requestId`, LSP's
   * `$/cancelRequest` at `/id`), its `reason` a {@link RequestCancelledError};
   * also aborted (with a {@link ServerExitedError}) when the server is gone,
   * since no answer can reach it any more. What happens to the answer then
   * follows the protocol's `cancellation.answer`: `optional` (MCP: the
   * receiver should not answer) sends none, whatever the handler returns;
   * `required` (LSP) still sends the result, and answers the protocol's
   * `REQUEST_CANCELLED` error (-32800) when the handler rejects with
   * anything but an {@link RpcError}. Never aborted in a protocol without
   * `cancellation`.
   */
  readonly signal: AbortSignal;
  /**
   * Sends the client's notification `method` (MCP: `notifications/progress`
   * for the server's `progressToken`), checked as {@link Client.notify}
   * checks it; throws the same errors, nothing sent.
   */
  notify(method: string, params?: JsonValue): void;
}

/**
 * Answers a request from the server: its result, or a promise of it.
 * Throwing (or rejecting with) an {@link RpcError} answers that error; any
 * other failure answers -32603 and is reported. The third argument, the
 * request's {@link RequestContext}, may be left out: `(params) => ...` and
 * `(params, method) => ...` handlers work as they are.
 *
 * ```ts
 * const client = spawnServer("my-mcp-server", [], mcpV2025_06_18, {
 *   onRequest: {
 *     "sampling/createMessage": async (params, _method, { signal }) => {
 *       const text = await myModel.complete(params, { signal }); // rejects once the server cancels
 *       return { role: "assistant", content: { type: "text", text }, model: "my-model" };
 *     },
 *   },
 * });
 * ```
 */
export type ServerRequestHandler = (params: JsonValue | undefined, method: string, context: RequestContext) => JsonValue | Promise<JsonValue>;

/** Options of a {@link Client}. */
export interface ClientOptions<SN> {
  /** Called with every notification the protocol lets the server send. */
  onNotification?: (notification: NotificationOf<SN>) => void;
  /** Called with what the server sent that the client could not use (framing faults, bad envelopes, unknown ids, undeclared notifications). */
  onProtocolError?: (error: ProtocolError) => void;
  /** Called with every message body sent and received. */
  onTrace?: (event: TraceEvent) => void;
  /** Handlers of the requests the protocol lets the server send, by method; each gets the params, the method and a {@link RequestContext}. */
  onRequest?: Readonly<Record<string, ServerRequestHandler>>;
  /** The timeout of methods without one, in milliseconds (default 30000; 0 waits forever). */
  defaultTimeoutMs?: number;
  /** The id of the first request (default 1). */
  firstId?: number;
  /** How long {@link Client.close} waits for the server to exit (default: the protocol's `exit.graceMs`, else 5000 ms); then SIGTERM where the protocol says so, else SIGKILL. */
  exitGraceMs?: number;
}

/** Options of {@link spawnServer}: the client's, and the child process's. */
export interface SpawnServerOptions<SN> extends ClientOptions<SN> {
  /** How the child is spawned and how much stderr is kept. */
  process?: ChildProcessOptions;
}

/** Base class of the client's errors. */
export class ClientError extends Error {
  /** The method of the request refused, when there is one. */
  readonly method: string | undefined;

  /** A client error about `method`. */
  constructor(message: string, method?: string) {
    super(message);
    this.name = "ClientError";
    this.method = method;
  }
}

/** The server answered a request with an error. */
export class RpcError extends ClientError {
  /** The error code. */
  readonly code: number;
  /** The error data, when present. */
  readonly data: JsonValue | undefined;

  /** The error answer to `method`. */
  constructor(method: string, code: number, message: string, data?: JsonValue) {
    super(message, method);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }
}

/** A request got no answer in time; the server was killed. */
export class TimeoutError extends ClientError {
  /** The timeout that ran out, in milliseconds. */
  readonly timeoutMs: number;

  /** `method` timed out after `timeoutMs`. */
  constructor(method: string, timeoutMs: number) {
    super(`"${method}" got no answer within ${timeoutMs} ms; the server was killed`, method);
    this.name = "TimeoutError";
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The reason of a {@link RequestContext.signal} the server aborted: it
 * cancelled its request `id` with the protocol's cancellation notification.
 */
export class RequestCancelledError extends ClientError {
  /** The id of the cancelled request. */
  readonly id: Id;
  /** The cancellation notification's params (MCP's carry an optional `reason`). */
  readonly params: JsonValue | undefined;

  /** The server cancelled its request `method` `id` with a notification carrying `params`. */
  constructor(method: string, id: Id, params: JsonValue | undefined) {
    const reason = typeof params === "object" && params !== null && !Array.isArray(params) ? params["reason"] : undefined;
    super(`the server cancelled its request "${method}" (id ${String(id)})${typeof reason === "string" ? `: ${reason}` : ""}`, method);
    this.name = "RequestCancelledError";
    this.id = id;
    this.params = params;
  }
}

/** The server is gone: it exited (or could not be started) with the request pending or before it was sent. */
export class ServerExitedError extends ClientError {
  /** Exit code, when the server exited. */
  readonly exitCode: number | null;
  /** Ending signal, when one ended it. */
  readonly signal: string | null;
  /** The tail of the server's stderr. */
  readonly stderr: string;

  /** From how the transport ended. */
  constructor(end: TransportEnd, method?: string) {
    const how =
      end.error !== undefined
        ? `could not be started (${end.error.message})`
        : end.stdoutClosed === true
          ? `closed its stdout without exiting, so it was killed`
          : end.signal !== null
          ? `was ended by ${end.signal}`
          : `exited with code ${String(end.code)}`;
    const tail = end.stderr.trim();
    const about = method === undefined ? "" : `"${method}": `;
    super(`${about}the server ${how}${tail === "" ? "" : `; stderr: ${tail}`}`, method);
    this.name = "ServerExitedError";
    this.exitCode = end.code;
    this.signal = end.signal;
    this.stderr = end.stderr;
  }
}

/** An optional method whose capability the server has not declared; the request was never sent. */
export class CapabilityError extends ClientError {
  /** The capability the method needs. */
  readonly capability: string;

  /** `method` needs `capability`. */
  constructor(method: string, capability: string) {
    super(`"${method}" needs the capability "${capability}", which the server did not declare; not sent`, method);
    this.name = "CapabilityError";
    this.capability = capability;
  }
}

/** The server sent something the client cannot use. */
export class ProtocolError extends ClientError {
  /** The framing or envelope error behind it, when there is one. */
  readonly reason: FramingError | EnvelopeError | undefined;
  /**
   * `"error"` when the protocol is broken; `"warning"` for what it allows
   * but discourages (a server's request with a `null` or fractional id in a
   * lenient protocol, answered as usual), as the Rust monitor's severity.
   */
  readonly severity: "error" | "warning";

  /** A protocol error, about `method` when it concerns a request. */
  constructor(message: string, reason?: FramingError | EnvelopeError, method?: string, severity: "error" | "warning" = "error") {
    super(message, method);
    this.name = "ProtocolError";
    this.reason = reason;
    this.severity = severity;
  }
}

/** What the server sent fails the protocol's schema: a result, error data, a streamed item or a notification's params. */
export class SchemaError extends ProtocolError {
  /** Which part of the message failed. */
  readonly part: MessagePart;
  /** How it fails (pointers into the message). */
  readonly issues: readonly SchemaIssue[];
  /** For invalid error data: the error answer itself. */
  readonly answer: RpcError | undefined;

  /** `part` of the server's message about `method` fails with `issues`. */
  constructor(method: string, part: MessagePart, issues: readonly SchemaIssue[], answer?: RpcError) {
    const what =
      part === "error-data" ? "error data" : part === "error" ? "error object" : part === "params" ? "notification params" : part === "item" ? "streamed item" : "result";
    super(`the server's ${what} for "${method}" fails the schema: ${describeIssues(issues)}`, undefined, method);
    this.name = "SchemaError";
    this.part = part;
    this.issues = issues;
    this.answer = answer;
  }
}

/** The params of a call fail their schema; nothing was sent. */
export class InvalidParamsError extends ClientError {
  /** How they fail (pointers start at `/params`). */
  readonly issues: readonly SchemaIssue[];

  /** `method`'s params fail with `issues`. */
  constructor(method: string, issues: readonly SchemaIssue[]) {
    super(`"${method}" was not sent: its params fail the schema: ${describeIssues(issues)}`, method);
    this.name = "InvalidParamsError";
    this.issues = issues;
  }
}

/** A call that breaks one of the protocol's scope rules (the driver's invocation identity, an id reused); nothing was sent. */
export class RuleViolationError extends ClientError {
  /** The rule's name (`matches_scope`, `not_reused`, ...). */
  readonly rule: string;
  /** JSON pointer into the message (`/params/invocation_id`). */
  readonly pointer: string;

  /** `method` breaks `fault`. */
  constructor(method: string, fault: RuleFault) {
    super(`"${method}" was not sent: ${fault.message}`, method);
    this.name = "RuleViolationError";
    this.rule = fault.rule;
    this.pointer = `/params${fault.pointer}`;
  }
}

/** The server sent a notification that breaks one of the protocol's scope rules (a sequence going backwards, ...); it was not delivered. */
export class ServerRuleError extends ProtocolError {
  /** The rule's name. */
  readonly rule: string;
  /** JSON pointer into the notification (`/params/sequence`). */
  readonly pointer: string;

  /** Notification `method` breaks `fault`. */
  constructor(method: string, fault: RuleFault) {
    super(`the server's "${method}" breaks the rule \`${fault.rule}\`: ${fault.message}`, undefined, method);
    this.name = "ServerRuleError";
    this.rule = fault.rule;
    this.pointer = `/params${fault.pointer}`;
  }
}

/** A method the lifecycle does not allow now (wrong state, or the session is over); nothing was sent. */
export class LifecycleError extends ClientError {
  /** The session's state when the method was refused. */
  readonly state: string;
  /** `wrong-state`: the state does not allow the method; `session-ended`: nothing may be sent any more. */
  readonly reason: "wrong-state" | "session-ended";

  /** `method` refused in `state`. */
  constructor(method: string, state: string, reason: "wrong-state" | "session-ended", why: string) {
    super(`"${method}" was not sent: ${why}`, method);
    this.name = "LifecycleError";
    this.state = state;
    this.reason = reason;
  }
}

interface Pending {
  method: string;
  /** Sent (for ordering) and whether a notification already presumed its success. */
  order: number;
  presumed: boolean;
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout | undefined;
}

/** A server's request whose handler runs: how to abort it. */
interface InFlight {
  method: string;
  controller: AbortController;
}

/** A streamed answer being read: bare items until the server closes its output. */
interface Streaming {
  method: string;
  items: JsonValue[];
  resolve: (items: JsonValue[]) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout | undefined;
}

/** The error of a stream failure line (`[<error response>]`, as the Rust serve loop ends a failed stream), or undefined for anything else. */
function streamFailureOf(item: JsonValue): { code: number; message: string; data: JsonValue | undefined } | undefined {
  if (!Array.isArray(item) || item.length !== 1) return undefined;
  const response = item[0];
  if (typeof response !== "object" || response === null || Array.isArray(response)) return undefined;
  const error = (response as Record<string, JsonValue>)["error"];
  if (typeof error !== "object" || error === null || Array.isArray(error)) return undefined;
  const { code, message, data } = error as Record<string, JsonValue>;
  if (typeof code !== "number" || !Number.isInteger(code) || typeof message !== "string") return undefined;
  return { code, message, data };
}

/** LSP's RequestCancelled, answered where the protocol names no `REQUEST_CANCELLED` of its own. */
const REQUEST_CANCELLED = -32800;

function idKey(id: Id): string {
  return typeof id === "string" ? `s:${id}` : `n:${id.toString()}`;
}

/** RFC 6901 lookup. */
function resolvePointer(value: JsonValue, pointer: string): JsonValue | undefined {
  if (pointer === "") return value;
  let at: JsonValue | undefined = value;
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof at !== "object" || at === null) return undefined;
    at = Array.isArray(at) ? at[Number(token)] : Object.prototype.hasOwnProperty.call(at, token) ? at[token] : undefined;
  }
  return at;
}

/**
 * How the params of client-to-server call `method` fail (the check every
 * call passes before it is sent): the params schema, then the manifest's
 * message rules. Absent params fail unless the method allows them. Empty:
 * they may be sent. Pointers start at `/params`.
 */
export function paramsIssues<R extends RequestMap<R>, N extends NotificationMap<N>, SN extends NotificationMap<SN>>(
  protocol: ProtocolDescriptor<R, N, SN>,
  method: string, params: JsonValue | undefined): SchemaIssue[] {
  const info = protocol.methods[method];
  const validator = info?.params === undefined ? undefined : protocol.validators?.[info.params];
  if (info === undefined || validator === undefined) return [];
  if (params === undefined) {
    return info.paramsOptional === true ? [] : [{ pointer: "/params", keyword: "required", message: `"${method}" requires params` }];
  }
  const issues = validate(validator, params, "params");
  if (issues.length === 0) issues.push(...checkMessageRules(protocol.rules, method, "params", params));
  return issues;
}

/**
 * How a server's result of `method` fails (the check every answer passes
 * before a request resolves): the result schema, then the manifest's message
 * rules. `written` is the text of a top-level number as it came on the wire.
 * Pointers start at `/result`.
 */
export function resultIssues<R extends RequestMap<R>, N extends NotificationMap<N>, SN extends NotificationMap<SN>>(
  protocol: ProtocolDescriptor<R, N, SN>,
  method: string, result: JsonValue, written?: string): SchemaIssue[] {
  const info = protocol.methods[method];
  const validator = info?.result === undefined ? undefined : protocol.validators?.[info.result];
  const issues = validator === undefined ? [] : validate(validator, result, "result", written);
  if (issues.length === 0) issues.push(...checkMessageRules(protocol.rules, method, "result", result));
  return issues;
}

/**
 * A typed client of one server. `R`, `N` and `SN` are the generated maps of
 * requests, client notifications and server notifications (taken from the
 * descriptor).
 */
export class Client<
  R extends RequestMap<R> = Record<string, { params: unknown; result: unknown }>,
  N extends NotificationMap<N> = Record<string, { params: unknown }>,
  SN extends NotificationMap<SN> = Record<string, { params: unknown }>,
> {
  /** The protocol spoken. */
  readonly protocol: ProtocolDescriptor<R, N, SN>;
  /** Resolves once the server is gone (after {@link close}, a crash or a kill). */
  readonly ended: Promise<TransportEnd>;
  private readonly transport: Transport;
  private readonly options: ClientOptions<SN>;
  private readonly decoder: FrameDecoder;
  private readonly encoder: FrameEncoder;
  private readonly pending = new Map<string, Pending>();
  private nextId: number;
  private declared: Set<string> | undefined;
  private failure: ClientError | undefined;
  private endInfo: TransportEnd | undefined;
  private shutdownAnswered = false;
  private sessionState: string;
  private sessionEnd: string | undefined;
  private endFailure: ClientError | undefined;
  private streaming: Streaming | undefined;
  private readonly rules: ScopeRules;
  /** The completion notification a successful answer started waiting for, and the calls waiting for it. */
  private awaiting: string | undefined;
  private waiters: { resume: () => void; cancel: (error: Error) => void }[] = [];
  /** Requests waiting for every earlier one to be answered (one request at a time). */
  private queued: (() => void)[] = [];
  /** The readers made by {@link notifications}, with whether each ends at the awaited completion. */
  private readers = new Map<NotificationQueue<NotificationOf<SN>>, string | undefined>();
  /** The server's requests whose handlers run, by id. */
  private readonly inFlight = new Map<string, InFlight>();

  /** A client speaking `protocol` over `transport`. */
  constructor(transport: Transport, protocol: ProtocolDescriptor<R, N, SN>, options: ClientOptions<SN> = {}) {
    this.transport = transport;
    this.protocol = protocol;
    this.options = options;
    this.nextId = options.firstId ?? 1;
    this.sessionState = protocol.lifecycle?.initial ?? "";
    this.rules = new ScopeRules(protocol.rules);
    const limits = { maxFrameBytes: protocol.maxFrameBytes, maxHeaderBytes: 8192, strictLineEndings: protocol.strict };
    this.decoder = decoderFor(protocol.framing, limits);
    this.encoder = encoderFor(protocol.framing, limits);
    let ended: (end: TransportEnd) => void = () => undefined;
    this.ended = new Promise((resolve) => {
      ended = resolve;
    });
    transport.onData((chunk) => this.receive(chunk));
    transport.onEnd((end) => {
      this.decoder.finish();
      this.drainFrames();
      this.endInfo = end;
      this.streamEnded();
      this.fail(new ServerExitedError(end), (method) => new ServerExitedError(end, method));
      // No answer can reach the server any more: its requests' handlers may stop.
      for (const [key, running] of [...this.inFlight]) {
        this.inFlight.delete(key);
        running.controller.abort(new ServerExitedError(end, running.method));
      }
      ended(end);
    });
  }

  /** The capabilities the server declared (undefined until it answered the declaring method). */
  get capabilities(): ReadonlySet<string> | undefined {
    return this.declared;
  }

  /** Whether the server declared `capability`. */
  hasCapability(capability: string): boolean {
    return this.declared?.has(capability) ?? false;
  }

  /** How the server ended, once it has. */
  get exit(): TransportEnd | undefined {
    return this.endInfo;
  }

  /** The session's lifecycle state (`""` when the protocol has none). */
  get state(): string {
    return this.sessionState;
  }

  /** Why the session is over (a terminal state, a session-ending error, the server gone), or undefined while it goes on. */
  get sessionEnded(): string | undefined {
    return this.sessionEnd;
  }

  /** How many requests await their answer. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /**
   * Sends request `method` and resolves with its result, typed by the
   * method map. Rejects with {@link RpcError} (an error answer),
   * {@link TimeoutError}, {@link ServerExitedError}, {@link CapabilityError}
   * (never sent) or {@link ProtocolError}.
   */
  request<M extends keyof R & string>(method: M, ...args: ParamsArgs<ParamsOf<R, M>>): Promise<ResultOf<R, M>> {
    const [params, options] = args as [unknown, RequestOptions | undefined];
    return this.call(method, params as JsonValue | undefined, options) as Promise<ResultOf<R, M>>;
  }

  /**
   * The server's notifications, as an async iterator: each one delivered
   * after this call (checked against its schema, the lifecycle and the
   * scope rules, as for {@link ClientOptions.onNotification}), in arrival
   * order, until the session ends; with `untilCompletion`, until the
   * completion the session awaits has been delivered.
   *
   * ```ts
   * await client.request("driver.invoke", params);
   * for await (const n of client.notifications({ untilCompletion: true })) console.log(n.method);
   * ```
   */
  notifications(options: NotificationsOptions = {}): AsyncIterableIterator<NotificationOf<SN>> {
    const reader = new NotificationQueue<NotificationOf<SN>>((done) => this.readers.delete(done));
    const until = options.untilCompletion === true ? this.awaiting : undefined;
    if (this.sessionEnd !== undefined || (options.untilCompletion === true && until === undefined)) {
      reader.close();
      return reader;
    }
    this.readers.set(reader, until);
    return reader;
  }

  /** Sends notification `method` (no answer). Throws a {@link ClientError} when the session is over. */
  notify<M extends keyof N & string>(method: M, ...args: undefined extends ParamsOf<N, M> ? [params?: ParamsOf<N, M>] : [params: ParamsOf<N, M>]): void {
    const params = args[0] as JsonValue | undefined;
    const refused = this.refusal(method, params);
    if (refused !== undefined) throw refused;
    if (this.failure !== undefined) throw this.failure;
    this.send(params === undefined ? { kind: "notification", method } : { kind: "notification", method, params });
    this.moved(method);
  }

  /**
   * Sends request `method` whose answer is a stream (`result_stream`): bare
   * items, one a frame, until the server closes its output, which ends the
   * session. Resolves with the items, each checked against the item schema;
   * rejects with {@link RpcError} when the server answers an error instead,
   * {@link SchemaError} at the first invalid item, and like {@link request}
   * otherwise.
   */
  requestStream<M extends keyof R & string>(method: M, ...args: ParamsArgs<ParamsOf<R, M>>): Promise<JsonValue[]> {
    const [params, options] = args as [JsonValue | undefined, RequestOptions | undefined];
    return new Promise((resolve, reject) => {
      const info = this.protocol.methods[method];
      if (info?.stream !== true) {
        reject(new ClientError(`"${method}" answers with a response, not a stream; use request()`, method));
        return;
      }
      const refused = this.refusal(method, params) ?? this.failure;
      if (refused !== undefined) {
        reject(refused);
        return;
      }
      if (this.pending.size > 0 || this.streaming !== undefined) {
        reject(new ClientError(`"${method}" streams its answer; it cannot share the connection with requests still pending`, method));
        return;
      }
      const id = this.nextId++;
      const message: Request = { kind: "request", id, method };
      if (params !== undefined) message.params = params;
      try {
        this.send(message);
      } catch (error) {
        reject(error instanceof Error ? error : new ClientError(String(error), method));
        return;
      }
      const timeoutMs = options?.timeoutMs ?? info.timeoutMs ?? this.options.defaultTimeoutMs ?? 30000;
      const streaming: Streaming = { method, items: [], resolve, reject, timer: undefined };
      if (timeoutMs > 0) {
        streaming.timer = setTimeout(() => {
          if (this.streaming !== streaming) return;
          this.streaming = undefined;
          reject(new TimeoutError(method, timeoutMs));
          this.endSession(`"${method}" timed out`);
          this.transport.kill();
        }, timeoutMs);
      }
      this.streaming = streaming;
    });
  }

  /** Why `method` with `params` may not be sent now (lifecycle, capability, params schema), or undefined when it may. */
  private refusal(method: string, params: JsonValue | undefined): ClientError | undefined {
    const info = this.protocol.methods[method];
    if (this.sessionEnd !== undefined) {
      return this.endFailure ?? new LifecycleError(method, this.sessionState, "session-ended", `the session has ended (${this.sessionEnd})`);
    }
    if (info === undefined) return undefined;
    const allowed = info.lifecycle?.allowedIn ?? [];
    if (allowed.length > 0 && !allowed.includes("*") && !allowed.includes(this.sessionState)) {
      const why = `it is not allowed in state "${this.sessionState}" (only in ${allowed.map((s) => `"${s}"`).join(" or ")})`;
      return new LifecycleError(method, this.sessionState, "wrong-state", why);
    }
    if (info.capability !== undefined && !this.hasCapability(info.capability)) {
      return new CapabilityError(method, info.capability);
    }
    const invalid = this.paramsIssues(method, params);
    if (invalid !== undefined) return invalid;
    const fault = this.rules.check(method, params);
    return fault === undefined ? undefined : new RuleViolationError(method, fault);
  }

  private paramsIssues(method: string, params: JsonValue | undefined): InvalidParamsError | undefined {
    const issues = paramsIssues(this.protocol, method, params);
    return issues.length === 0 ? undefined : new InvalidParamsError(method, issues);
  }

  /** Resolves when the awaited completion notification has come; rejects when the session ends first or the wait times out (the server is then killed). */
  private waitForCompletion(method: string, options: RequestOptions | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const awaited = this.awaiting ?? "";
      const limit = options?.timeoutMs ?? this.protocol.methods[method]?.timeoutMs ?? this.options.defaultTimeoutMs ?? 30000;
      let timer: NodeJS.Timeout | undefined;
      const waiter = {
        resume: (): void => {
          clearTimeout(timer);
          resolve();
        },
        cancel: (error: Error): void => {
          clearTimeout(timer);
          reject(error);
        },
      };
      if (limit > 0) {
        timer = setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          reject(new TimeoutError(method, limit));
          this.endSession(`"${awaited}" did not come within ${limit} ms`);
          this.transport.kill();
        }, limit);
      }
      this.waiters.push(waiter);
    });
  }

  /** Ends the session: every later call is refused locally, with `failure` when the server is gone, else a {@link LifecycleError} saying `why`. */
  private endSession(why: string, failure?: ClientError): void {
    if (this.sessionEnd !== undefined) return;
    this.sessionEnd = why;
    this.endFailure = failure;
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter.cancel(failure ?? new ClientError(`the session has ended (${why}) before "${this.awaiting ?? ""}" came`));
    for (const reader of [...this.readers.keys()]) reader.close();
  }

  /** A notification or a successful answer moves the state where the method leads; a terminal state ends the session. */
  private moved(method: string): void {
    const lifecycle = this.protocol.methods[method]?.lifecycle;
    if (lifecycle?.completion !== undefined) this.awaiting = lifecycle.completion;
    if (lifecycle?.onSuccess !== undefined) this.sessionState = lifecycle.onSuccess;
    if (lifecycle?.endsSession === true) this.endSession(`"${method}" ends it`);
    if (this.protocol.lifecycle?.terminal.includes(this.sessionState) === true) {
      this.endSession(`the state "${this.sessionState}" is terminal`);
    }
  }

  private call(method: string, params: JsonValue | undefined, options: RequestOptions | undefined): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (this.protocol.oneRequestAtATime === true && this.failure === undefined && (this.pending.size > 0 || this.queued.length > 0)) {
        // The server handles one request at a time: this one is sent (and checked) once every earlier one is answered.
        this.queued.push(() => this.call(method, params, options).then(resolve, reject));
        return;
      }
      const info = this.protocol.methods[method];
      if (info?.stream === true) {
        reject(new ClientError(`"${method}" answers with a stream, not a response; use requestStream()`, method));
        return;
      }
      const refused = this.refusal(method, params) ?? this.failure;
      if (refused instanceof LifecycleError && refused.reason === "wrong-state" && this.awaiting !== undefined) {
        // As the Rust host: a call the state refuses while a completion is due waits for it, then is checked again.
        this.waitForCompletion(method, options).then(() => this.call(method, params, options).then(resolve, reject), reject);
        return;
      }
      if (refused !== undefined) {
        reject(refused);
        return;
      }
      if (this.streaming !== undefined) {
        reject(new ClientError(`"${method}" cannot be sent while "${this.streaming.method}" streams its answer`, method));
        return;
      }
      const id = this.nextId++;
      const message: Request = { kind: "request", id, method };
      if (params !== undefined) message.params = params;
      try {
        this.send(message);
      } catch (error) {
        reject(error instanceof Error ? error : new ClientError(String(error), method));
        return;
      }
      const timeoutMs = options?.timeoutMs ?? info?.timeoutMs ?? this.options.defaultTimeoutMs ?? 30000;
      const pending: Pending = { method, order: id, presumed: false, resolve, reject, timer: undefined };
      if (timeoutMs > 0) {
        pending.timer = setTimeout(() => this.timedOut(id, method, timeoutMs), timeoutMs);
      }
      this.pending.set(idKey(id), pending);
    });
  }

  private timedOut(id: Id, method: string, timeoutMs: number): void {
    const pending = this.pending.get(idKey(id));
    if (pending === undefined) return;
    this.pending.delete(idKey(id));
    const error = new TimeoutError(method, timeoutMs);
    pending.reject(error);
    this.endSession(`"${method}" timed out`);
    this.fail(
      new ClientError(`the server was killed after "${method}" timed out`),
      (other) => new ClientError(`the server was killed after "${method}" timed out`, other),
    );
    this.transport.kill();
  }

  /** Ends the session: rejects every pending request with `each(method)` and refuses later ones with `error`. */
  private fail(error: ClientError, each: (method: string) => ClientError): void {
    this.failure ??= error;
    this.endSession(error.message, error);
    for (const [key, pending] of this.pending) {
      clearTimeout(pending.timer);
      this.pending.delete(key);
      pending.reject(each(pending.method));
    }
    // Queued requests are refused with the failure.
    const queued = this.queued;
    this.queued = [];
    for (const next of queued) next();
  }

  /** One request at a time: sends the next queued request once nothing is pending. */
  private sendQueued(): void {
    if (this.pending.size > 0) return;
    const next = this.queued.shift();
    next?.();
  }

  private send(message: Message): void {
    const body = this.protocol.canonical
      ? encodeCanonical(message, this.protocol.dialect)
      : encodeMessage(message, this.protocol.dialect);
    const bytes = this.encoder.encode(body);
    this.options.onTrace?.({ direction: "send", body, message });
    this.transport.write(bytes);
  }

  private report(error: ProtocolError): void {
    this.options.onProtocolError?.(error);
  }

  private receive(chunk: Uint8Array): void {
    this.decoder.push(chunk);
    this.drainFrames();
  }

  private drainFrames(): void {
    for (const item of this.decoder.drain()) {
      if (item instanceof FramingError) {
        this.report(new ProtocolError(item.message, item));
        // An answer over the frame bound cannot be read (as in the Rust host
        // and `wirekit drive`): the calls waiting for it end now, not at
        // their timeout, and a server sending such frames is stopped.
        if (item.endsStream || item.kind === "FrameTooLong") {
          const error = (method?: string): ProtocolError =>
            new ProtocolError(`the server's output cannot be framed any more (${item.message}); the server was killed`, item, method);
          this.fail(error(), error);
          this.transport.kill();
        }
        continue;
      }
      if (this.streaming !== undefined) this.streamed(this.streaming, item.body);
      else this.handle(item.body);
    }
  }

  /** One frame of a streamed answer: an item, or an error answer instead of the stream. */
  private streamed(streaming: Streaming, body: string): void {
    let value: JsonValue;
    try {
      value = parseJson(body, { message: true }).value;
    } catch (error) {
      if (!(error instanceof JsonSyntaxError)) throw error;
      this.options.onTrace?.({ direction: "receive", body });
      this.stopStream(streaming, new ProtocolError(`a streamed item of "${streaming.method}" is not JSON: ${error.message}`, undefined, streaming.method));
      return;
    }
    const failure = streamFailureOf(value);
    if (failure !== undefined) {
      // `[<error response>]`: the server's stream failed (the Rust serve loop's failure line).
      this.options.onTrace?.({ direction: "receive", body });
      const answer = new RpcError(streaming.method, failure.code, failure.message, failure.data);
      this.errorAnswered(streaming.method, failure.code);
      this.stopStream(streaming, this.errorDataIssue(streaming.method, answer) ?? answer);
      return;
    }
    try {
      const message = decodeMessage(body, { dialect: this.protocol.dialect, strict: this.protocol.strict });
      if (message.kind === "error_response") {
        this.options.onTrace?.({ direction: "receive", body, message });
        const answer = new RpcError(streaming.method, message.error.code, message.error.message, message.error.data);
        this.errorAnswered(streaming.method, message.error.code);
        this.stopStream(streaming, this.errorDataIssue(streaming.method, answer) ?? answer);
        return;
      }
    } catch (error) {
      if (!(error instanceof EnvelopeError)) throw error;
    }
    this.options.onTrace?.({ direction: "receive", body });
    const info = this.protocol.methods[streaming.method];
    const validator = info?.item === undefined ? undefined : this.protocol.validators?.[info.item];
    const issues = validator === undefined ? [] : validate(validator, value, "item");
    if (issues.length === 0) issues.push(...checkMessageRules(this.protocol.rules, streaming.method, "item", value));
    if (issues.length > 0) {
      this.stopStream(streaming, new SchemaError(streaming.method, "item", issues));
      return;
    }
    streaming.items.push(value);
  }

  /** Rejects the stream with `error` and ends the session (the server's output cannot be trusted any more). */
  private stopStream(streaming: Streaming, error: Error): void {
    clearTimeout(streaming.timer);
    this.streaming = undefined;
    streaming.reject(error);
    this.endSession(`the stream of "${streaming.method}" failed`);
    this.transport.kill();
  }

  /** The server closed its output: a stream being read is complete. */
  private streamEnded(): void {
    const streaming = this.streaming;
    if (streaming === undefined) return;
    clearTimeout(streaming.timer);
    this.streaming = undefined;
    this.moved(streaming.method);
    this.endSession(`"${streaming.method}" streamed its answer and the server closed its output`);
    streaming.resolve(streaming.items);
  }

  private handle(body: string): void {
    let message: Message;
    try {
      message = decodeMessage(body, { dialect: this.protocol.dialect, strict: this.protocol.strict });
    } catch (error) {
      if (!(error instanceof EnvelopeError)) throw error;
      this.options.onTrace?.({ direction: "receive", body });
      this.report(new ProtocolError(`the server sent a bad message: ${error.message}`, error));
      const pending = error.id === null ? undefined : this.pending.get(idKey(error.id));
      if (pending !== undefined && error.id !== null) {
        this.settle(error.id, pending);
        pending.reject(new ProtocolError(`the answer to "${pending.method}" is not a valid message: ${error.message}`, error, pending.method));
      }
      return;
    }
    this.options.onTrace?.({ direction: "receive", body, message });
    switch (message.kind) {
      case "success_response":
      case "error_response": {
        const pending = message.id === null ? undefined : this.pending.get(idKey(message.id));
        if (pending === undefined || message.id === null) {
          this.report(new ProtocolError(`a response with id ${String(message.id)} answers no pending request`));
          return;
        }
        this.settle(message.id, pending);
        if (message.kind === "error_response") {
          const e = message.error;
          const answer = new RpcError(pending.method, e.code, e.message, e.data);
          if (pending.presumed) {
            this.report(new ProtocolError(`"${pending.method}" was refused (${e.code}) after the server had already sent what only its success allows`, undefined, pending.method));
          }
          this.errorAnswered(pending.method, e.code);
          pending.reject(this.errorDataIssue(pending.method, answer) ?? answer);
          return;
        }
        this.answered(pending.method, message.result, pending.presumed);
        const issues = resultIssues(this.protocol, pending.method, message.result, numberText(message, "result"));
        if (issues.length > 0) pending.reject(new SchemaError(pending.method, "result", issues));
        else pending.resolve(message.result);
        return;
      }
      case "notification": {
        // As the core's serve loop: the protocol's cancellation aborts the named request at once (and is delivered as usual).
        this.cancelled(message.method, message.params);
        const info = this.protocol.methods[message.method];
        if (info?.kind !== "notification" || info.direction === "client-to-server") {
          this.report(new ProtocolError(`the server sent the undeclared notification "${message.method}"`));
          return;
        }
        const validator = info.params === undefined ? undefined : this.protocol.validators?.[info.params];
        const issues = validator === undefined || message.params === undefined ? [] : validate(validator, message.params, "params");
        if (issues.length > 0) {
          this.report(new SchemaError(message.method, "params", issues));
          return;
        }
        if (!this.allows(message.method, this.sessionState) && !this.presumePendingSuccess(message.method)) {
          const allowed = info.lifecycle?.allowedIn ?? [];
          this.report(new ProtocolError(`the server sent "${message.method}" in state "${this.sessionState}" (allowed only in ${allowed.join(" or ")})`));
          return;
        }
        const fault = this.rules.check(message.method, message.params);
        if (fault !== undefined) {
          this.report(new ServerRuleError(message.method, fault));
          return;
        }
        this.rules.record(message.method, message.params);
        this.moved(message.method);
        const notification = { method: message.method, params: message.params } as NotificationOf<SN>;
        this.options.onNotification?.(notification);
        for (const [reader, until] of [...this.readers]) {
          reader.push(notification);
          if (until === message.method) reader.close();
        }
        if (this.awaiting === message.method) {
          this.awaiting = undefined;
          const waiters = this.waiters;
          this.waiters = [];
          for (const waiter of waiters) waiter.resume();
        }
        return;
      }
      case "request":
        this.serverRequest(message);
        return;
    }
  }

  /** Answers a request from the server (see the module's docs); never leaves it waiting. */
  private serverRequest(request: Request): void {
    const { id, method } = request;
    const discouraged = idWarning(request);
    if (discouraged !== undefined) {
      const why = discouraged === "NullId" ? "a null id" : "a number id written with a fraction or an exponent";
      this.report(
        new ProtocolError(`the server's request "${method}" has the id ${String(id)}: ${why}, which JSON-RPC 2.0 discourages (answered as usual)`, undefined, method, "warning"),
      );
    }
    const answerError = (code: number, text: string, data?: JsonValue): void => {
      const error: { code: number; message: string; data?: JsonValue } = { code, message: text };
      if (data !== undefined) error.data = data;
      this.answerServer({ kind: "error_response", id, error });
    };
    const info = this.protocol.methods[method];
    if (info?.kind !== "request" || info.direction === "client-to-server") {
      this.report(new ProtocolError(`the server sent the request "${method}", which the protocol does not declare server-to-client; answered -32601`, undefined, method));
      answerError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
      return;
    }
    const paramsValidator = info.params === undefined ? undefined : this.protocol.validators?.[info.params];
    const paramIssues = paramsValidator === undefined || request.params === undefined ? [] : validate(paramsValidator, request.params, "params");
    if (paramIssues.length > 0) {
      this.report(new SchemaError(method, "params", paramIssues));
      answerError(ErrorCode.InvalidParams, `Invalid params: ${describeIssues(paramIssues)}`);
      return;
    }
    const handler = this.options.onRequest?.[method];
    if (handler === undefined) {
      this.report(new ProtocolError(`the server sent the request "${method}", but no handler is registered for it; answered -32601`, undefined, method));
      answerError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
      return;
    }
    const key = id === null ? undefined : idKey(id);
    const running: InFlight = { method, controller: new AbortController() };
    if (key !== undefined) this.inFlight.set(key, running);
    const signal = running.controller.signal;
    const context: RequestContext = {
      id,
      method,
      signal,
      notify: (name: string, params?: JsonValue): void => {
        (this.notify as (method: string, params?: JsonValue) => void).call(this, name, params);
      },
    };
    const cancellation = this.protocol.cancellation;
    /** Whether the handler's outcome goes unanswered: the server is gone, or it cancelled a request the protocol lets go unanswered. */
    const dropped = (): boolean => {
      if (key !== undefined && this.inFlight.get(key) === running) this.inFlight.delete(key);
      if (this.endInfo !== undefined) return true;
      return signal.aborted && signal.reason instanceof RequestCancelledError && cancellation?.answer === "optional";
    };
    const answered = (result: JsonValue): void => {
      if (dropped()) return;
      const resultValidator = info.result === undefined ? undefined : this.protocol.validators?.[info.result];
      const issues = resultValidator === undefined ? [] : validate(resultValidator, result, "result");
      if (issues.length > 0) {
        this.report(new SchemaError(method, "result", issues));
        answerError(ErrorCode.InternalError, `Internal error: the answer to "${method}" fails its schema: ${describeIssues(issues)}`);
        return;
      }
      this.answerServer({ kind: "success_response", id, result });
    };
    const failed = (error: unknown): void => {
      if (dropped()) return;
      if (error instanceof RpcError) {
        answerError(error.code, error.message, error.data);
        return;
      }
      if (signal.aborted && signal.reason instanceof RequestCancelledError) {
        // The handler gave up on a cancelled request that is still owed an answer (LSP).
        const code = this.protocol.errors?.find((e) => e.name === "REQUEST_CANCELLED")?.code ?? REQUEST_CANCELLED;
        answerError(code, "Request cancelled");
        return;
      }
      const text = error instanceof Error ? error.message : String(error);
      this.report(new ProtocolError(`the handler of the server's request "${method}" failed: ${text}; answered -32603`, undefined, method));
      answerError(ErrorCode.InternalError, `Internal error: ${text}`);
    };
    try {
      Promise.resolve(handler(request.params, method, context)).then(answered, failed);
    } catch (error) {
      failed(error);
    }
  }

  /** A notification that is the protocol's cancellation aborts the server's request it names; any other, or one naming no running request, does nothing. */
  private cancelled(method: string, params: JsonValue | undefined): void {
    const cancellation = this.protocol.cancellation;
    if (cancellation === undefined || method !== cancellation.method || params === undefined) return;
    const id = resolvePointer(params, cancellation.idPointer);
    if (typeof id !== "string" && typeof id !== "number" && typeof id !== "bigint") return;
    const key = idKey(id);
    const running = this.inFlight.get(key);
    if (running === undefined) return;
    this.inFlight.delete(key);
    running.controller.abort(new RequestCancelledError(running.method, id, params));
  }

  /** Sends an answer to the server, unless it is gone. */
  private answerServer(message: Message): void {
    if (this.endInfo !== undefined) return;
    try {
      this.send(message);
    } catch (error) {
      this.report(new ProtocolError(`the answer to a request of the server's could not be sent: ${error instanceof Error ? error.message : String(error)}`));
    }
  }

  private settle(id: Id, pending: Pending): void {
    clearTimeout(pending.timer);
    this.pending.delete(idKey(id));
    queueMicrotask(() => this.sendQueued());
  }

  /** Whether the lifecycle lets `method` come in `state`. */
  private allows(method: string, state: string): boolean {
    const allowed = this.protocol.methods[method]?.lifecycle?.allowedIn ?? [];
    return allowed.length === 0 || allowed.includes("*") || allowed.includes(state);
  }

  /**
   * A server notification came in a state that a pending request's success
   * would reach (the server may write it before that answer, as the driver's
   * observations before `driver.invoke`'s result): presumes that success, as
   * the Rust monitor does. An error answer to it later is a protocol error.
   */
  private presumePendingSuccess(notification: string): boolean {
    let candidate: Pending | undefined;
    for (const pending of this.pending.values()) {
      const next = this.protocol.methods[pending.method]?.lifecycle?.onSuccess;
      if (pending.presumed || next === undefined || !this.allows(notification, next)) continue;
      if (candidate === undefined || pending.order < candidate.order) candidate = pending;
    }
    if (candidate === undefined) return false;
    candidate.presumed = true;
    this.rules.opened(candidate.method);
    this.moved(candidate.method);
    return true;
  }

  /** An error answer the protocol says ends the session ends it. */
  private errorAnswered(method: string, code: number): void {
    const fatal = this.protocol.errors?.find((e) => e.code === code && e.endsSession === true);
    if (fatal !== undefined) this.endSession(`"${method}" was answered ${fatal.name} (${fatal.code}), which ends the session`);
  }

  /** A {@link SchemaError} when the error answer fails the protocol's error object schema, or its data the error data schema. */
  private errorDataIssue(method: string, answer: RpcError): SchemaError | undefined {
    const objectType = this.protocol.errorObject;
    const objectValidator = objectType === undefined ? undefined : this.protocol.validators?.[objectType];
    if (objectValidator !== undefined) {
      const error: Record<string, JsonValue> = { code: answer.code, message: answer.message };
      if (answer.data !== undefined) error["data"] = answer.data;
      const issues = validate(objectValidator, error, "error");
      if (issues.length > 0) return new SchemaError(method, "error", issues, answer);
    }
    const type = this.protocol.errorData;
    const validator = type === undefined ? undefined : this.protocol.validators?.[type];
    if (validator === undefined || answer.data === undefined) return undefined;
    const issues = validate(validator, answer.data, "error-data");
    return issues.length === 0 ? undefined : new SchemaError(method, "error-data", issues, answer);
  }

  /** Notes what a successful answer tells about the session: capabilities, state, shutdown. */
  private answered(method: string, result: JsonValue, presumed = false): void {
    const declaration = this.protocol.capabilities;
    if (declaration !== undefined && method === declaration.method) {
      const at = resolvePointer(result, declaration.pointer);
      const names = new Set<string>();
      if (declaration.style === "string-array" && Array.isArray(at)) {
        for (const name of at) if (typeof name === "string") names.add(name);
      } else if (declaration.style === "boolean-object" && typeof at === "object" && at !== null && !Array.isArray(at)) {
        for (const [name, on] of Object.entries(at)) if (on === true) names.add(name);
      } else if (declaration.style === "provider" && at !== undefined) {
        // Only the paths the protocol's methods name can gate; a provider is
        // declared by `true` or an options object.
        for (const info of Object.values(this.protocol.methods)) {
          const capability = info.capability;
          if (capability === undefined) continue;
          const provider = resolvePointer(at, `/${capability}`);
          if (provider === true || (typeof provider === "object" && provider !== null && !Array.isArray(provider))) names.add(capability);
        }
      }
      this.declared = names;
    }
    if (method === this.protocol.shutdown) this.shutdownAnswered = true;
    if (!presumed) {
      this.rules.opened(method);
      this.moved(method);
      this.follow(method);
    }
  }

  /**
   * Sends, at once, the notification the manifest says follows `method`'s
   * success (LSP: `initialized` after `initialize`, `exit` after
   * `shutdown`), before the caller can send anything else. Its params are
   * absent when optional, else an empty object. A notification the state
   * or the session refuses is not sent, and is reported.
   */
  private follow(method: string): void {
    const next = this.protocol.methods[method]?.lifecycle?.followedBy;
    if (next === undefined) return;
    const params: JsonValue | undefined = this.protocol.methods[next]?.paramsOptional === true ? undefined : {};
    const refused = this.refusal(next, params) ?? this.failure;
    if (refused !== undefined) {
      this.report(new ProtocolError(`"${next}" should follow "${method}" but cannot be sent: ${refused.message}`));
      return;
    }
    this.send(params === undefined ? { kind: "notification", method: next } : { kind: "notification", method: next, params });
    this.moved(next);
  }

  /**
   * Ends the session: sends the protocol's shutdown request (unless it was
   * answered already, or the session is over), closes the server's stdin,
   * waits up to `exitGraceMs` (or the protocol's `exit.graceMs`) for it to
   * exit; where the protocol's host terminates servers
   * (`exit.terminateGraceMs`, MCP), sends SIGTERM and waits that long; then
   * kills it. Resolves with how the server ended; never rejects.
   */
  async close(): Promise<TransportEnd> {
    const shutdown = this.protocol.shutdown;
    if (shutdown !== undefined && !this.shutdownAnswered && this.failure === undefined && this.sessionEnd === undefined) {
      const params = this.protocol.methods[shutdown]?.paramsOptional === true ? undefined : {};
      await this.call(shutdown, params, undefined).catch(() => undefined);
    }
    this.failure ??= new ClientError("the client was closed");
    this.endSession("the client was closed");
    this.transport.endInput();
    const exit = this.protocol.exit;
    const timers: NodeJS.Timeout[] = [];
    const terminateGrace = exit?.terminateGraceMs;
    timers.push(
      setTimeout(() => {
        if (terminateGrace !== undefined && this.transport.terminate !== undefined) {
          this.transport.terminate();
          timers.push(setTimeout(() => this.transport.kill(), terminateGrace));
        } else {
          this.transport.kill();
        }
      }, this.options.exitGraceMs ?? exit?.graceMs ?? 5000),
    );
    const end = await this.ended;
    for (const timer of timers) clearTimeout(timer);
    return end;
  }
}

/**
 * Spawns `command` with `args` as the server of `protocol` and returns a
 * typed client over its stdin/stdout. Spawn failures reject the first
 * request with a {@link ServerExitedError}.
 */
export function spawnServer<R extends RequestMap<R>, N extends NotificationMap<N>, SN extends NotificationMap<SN>>(
  command: string,
  args: readonly string[],
  protocol: ProtocolDescriptor<R, N, SN>,
  options: SpawnServerOptions<SN> = {},
): Client<R, N, SN> {
  return new Client(new ChildProcessTransport(command, args, options.process), protocol, options);
}
