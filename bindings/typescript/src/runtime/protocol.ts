/**
 * Protocol descriptors: what a client needs to know about a protocol at run
 * time (framing, dialect, bounds, per-method timeouts, which capability
 * gates which optional method, how to shut down), typed by the method maps
 * that `wirekit generate` writes.
 *
 * The descriptors of the wirekit protocols are generated from their
 * manifests by `wirekit generate` (`src/generated/descriptors/`, exported by the
 * package as `gzkitAuthoringGuide`, `agentapiDriver`, ...);
 * `loadProtocol` (`folder.ts`) builds one at run time from a folder holding
 * a `protocol.json` manifest and its schema files.
 *
 * @module
 */

import type { Dialect } from "./envelope.js";
import type { Framing } from "./framing.js";
import type { JsonValue } from "./json.js";
import type { RuleSpec } from "./rules.js";
import type { SchemaValidator } from "./validation.js";

/** A map of requests, as generated: method name to `{ params; result }`. */
export type RequestMap<R> = { [M in keyof R]: { params: unknown; result: unknown } };

/** A map of notifications, as generated: method name to `{ params }`. */
export type NotificationMap<N> = { [M in keyof N]: { params: unknown } };

/** Where a server declares its capabilities: in the result of `method`, at `pointer`, as `style`. */
export interface CapabilityDeclaration {
  /** The method whose successful result carries the capabilities (e.g. `initialize`). */
  readonly method: string;
  /** RFC 6901 pointer into that result (e.g. `/capabilities`). */
  readonly pointer: string;
  /**
   * `boolean-object`: `{"name": true|false}`, declared when true. `string-array`: `["name", ...]`, declared when listed.
   * `provider` (LSP's `ServerCapabilities`): a capability is a path of members (`definitionProvider`,
   * `renameProvider/prepareProvider`), declared when the value there is `true` or an options object.
   */
  readonly style: "boolean-object" | "string-array" | "provider";
}

/** Where in the lifecycle a method may come and where its success leads. */
export interface MethodLifecycle {
  /** The states the method may be sent in; empty or `["*"]`: any. */
  readonly allowedIn: readonly string[];
  /** The state a successful answer (or the notification itself) moves the session to. */
  readonly onSuccess?: string;
  /** Whether the session is over once the method is answered. */
  readonly endsSession?: boolean;
  /** The client notification sent at once after this method succeeds (LSP: `initialize` → `initialized`, `shutdown` → `exit`). */
  readonly followedBy?: string;
  /** The server notification that ends what a successful answer started (`driver.invoke`: `driver.completed`): until it comes, a call the state refuses waits for it. */
  readonly completion?: string;
}

/** What the runtime knows of one method. */
export interface MethodInfo {
  /** A request (answered) or a notification. */
  readonly kind: "request" | "notification";
  /** Who sends it (`both`: either peer, as `ping` or `$/progress`). */
  readonly direction: "client-to-server" | "server-to-client" | "both";
  /** How long the client waits for the answer; absent: the client's default. */
  readonly timeoutMs?: number;
  /** Optional methods only: the capability the server must have declared before this may be sent. */
  readonly capability?: string;
  /** Whether params may be omitted. */
  readonly paramsOptional?: boolean;
  /** Whether the answer is a stream rather than a JSON-RPC response (served by `Client.requestStream`). */
  readonly stream?: boolean;
  /** The schema type of the params (a key of the descriptor's `validators`). */
  readonly params?: string;
  /** The schema type of the result. */
  readonly result?: string;
  /** The schema type of each streamed item. */
  readonly item?: string;
  /** Where in the lifecycle the method may come. */
  readonly lifecycle?: MethodLifecycle;
}

/** The session state machine. */
export interface LifecycleInfo {
  /** The state a session starts in. */
  readonly initial: string;
  /** States after which nothing more may be sent. */
  readonly terminal: readonly string[];
}

/** One of the protocol's own error codes. */
export interface ProtocolErrorCode {
  /** The JSON-RPC code. */
  readonly code: number;
  /** Its symbolic name (`VERSION_MISMATCH`). */
  readonly name: string;
  /** Whether the server ends the session after answering it. */
  readonly endsSession?: boolean;
}

/**
 * How a peer cancels a request it sent (the manifest's `cancellation`): the
 * notification, where its params name the cancelled id, and whether the
 * cancelled request is still answered.
 */
export interface CancellationInfo {
  /** The cancelling notification (`$/cancelRequest`, `notifications/cancelled`). */
  readonly method: string;
  /** RFC 6901 pointer into its params to the cancelled request's id (`/id`, `/requestId`). */
  readonly idPointer: string;
  /** `required`: the request is still answered (LSP: its result, or the RequestCancelled error); `optional`: the receiver should not answer it (MCP). */
  readonly answer: "required" | "optional";
}

/** How the protocol's host ends a server whose input it closed. */
export interface ExitSequence {
  /** How long the server has to exit by itself (default 5000 ms). */
  readonly graceMs?: number;
  /** Where the host then sends SIGTERM: how long the server has before SIGKILL. */
  readonly terminateGraceMs?: number;
}

/**
 * A protocol as the runtime uses it. The type parameters are the generated
 * method maps (`<Protocol>Requests`, `<Protocol>Notifications`,
 * `<Protocol>ServerNotifications`); they exist only for type checking.
 */
export interface ProtocolDescriptor<
  R extends RequestMap<R> = Record<string, { params: unknown; result: unknown }>,
  N extends NotificationMap<N> = Record<string, { params: unknown }>,
  SN extends NotificationMap<SN> = Record<string, { params: unknown }>,
> {
  /** The protocol name, e.g. `gzkit-authoring-guide`. */
  readonly name: string;
  /** The protocol version, e.g. `1.0`. */
  readonly version: string;
  /** How messages are delimited. */
  readonly framing: Framing;
  /** The envelope dialect. */
  readonly dialect: Dialect;
  /** Whether incoming messages are decoded strictly (duplicate names, unknown members, `"params": null` refused). */
  readonly strict: boolean;
  /** Whether outgoing messages are written in RFC 8785 canonical form. */
  readonly canonical: boolean;
  /** The frame bound, in bytes: the protocol's, or wirekit's own (64 MiB) where it states none. */
  readonly maxFrameBytes: number;
  /** The server handles one request at a time: the client sends a request only once every earlier one is answered (`transport.one_request_at_a_time`). */
  readonly oneRequestAtATime?: boolean;
  /** Where the server declares its capabilities, when capabilities gate methods. */
  readonly capabilities?: CapabilityDeclaration;
  /** Every method of the protocol. */
  readonly methods: Readonly<Record<string, MethodInfo>>;
  /** The request that ends the session cleanly (sent by `Client.close`). */
  readonly shutdown?: string;
  /** The protocol host's exit sequence (`host.exit_grace_ms`, `host.terminate_grace_ms`): how long a server has to exit once its input is closed, and, where the host sends SIGTERM next (MCP), how long it then has before SIGKILL. */
  readonly exit?: ExitSequence;
  /** The session state machine, when the protocol has one. */
  readonly lifecycle?: LifecycleInfo;
  /** How a peer cancels a request it sent, when the protocol says (`cancellation`). */
  readonly cancellation?: CancellationInfo;
  /** The protocol's own error codes. */
  readonly errors?: readonly ProtocolErrorCode[];
  /** The schema type of `error.data`, when the protocol defines one. */
  readonly errorData?: string;
  /** The schema type of the whole error object (`code`, `message`, `data`), when the protocol defines one (gzkit's forbids `data`; the driver's requires it). */
  readonly errorObject?: string;
  /** The manifest's semantic rules (`not_before`, the scope rules), as written. */
  readonly rules?: readonly RuleSpec[];
  /** The validator of each schema type the methods and `errorData` name. */
  readonly validators?: Readonly<Record<string, SchemaValidator>>;
  /** What a server needs beyond a client (`server_errors`, violations, version negotiation); see {@link ServingInfo}. */
  readonly serving?: ServingInfo;
  /** Phantom member carrying the method map types; never present at run time. */
  readonly __types?: { requests: R; notifications: N; serverNotifications: SN };
}

/** The errors a server produces itself, as the manifest's `server_errors` names them. */
export type ServerErrorCase =
  | "parse_error"
  | "invalid_request"
  | "framing"
  | "method_not_found"
  | "capability_not_declared"
  | "invalid_params"
  | "internal_error"
  | "answer_too_long"
  | "rule";

/** The code and `data` template of one self-produced error (`server_errors.<case>`), with overrides by kind. */
export interface ErrorShape {
  /** The code; absent: the case's standard code. */
  readonly code?: number;
  /** The `data` template (`"{errors}"`-style placeholders); `null` or absent: no `data` member. */
  readonly data?: JsonValue;
  /** Framing fault or envelope error kind to the shape used for that kind instead (`by_kind`). */
  readonly byKind?: Readonly<Record<string, ErrorShape>>;
}

/** The answer to a method the lifecycle refuses (`lifecycle.violation`, or a method's own). */
export interface ViolationSpec {
  /** The error code. */
  readonly code: number;
  /** The message, with `{method}`, `{state}`, `{allowed}` filled in. */
  readonly message: string;
  /** The error's `data`; `null` or absent: none. */
  readonly data?: JsonValue;
}

/** The manifest's `version_negotiation`: the negotiating method refuses a client whose major version differs. */
export interface VersionNegotiation {
  /** The negotiating method (`initialize`). */
  readonly method: string;
  /** RFC 6901 pointer into its params to the client's version (`/clientVersion`). */
  readonly clientPointer: string;
  /** The server's version (`1.0`). */
  readonly serverVersion: string;
  /** The name of the protocol error answered (`VERSION_MISMATCH`). */
  readonly error: string;
  /** The message, with `{client}`, `{server}`, `{client_major}`, `{server_major}` filled in. */
  readonly message: string;
}

/**
 * What a server needs beyond what a client does, from the manifest: how it
 * shapes the errors it produces itself, the lifecycle's violation answers,
 * the version negotiation, and whether a frame whose id cannot be read is
 * answered. Descriptors from a folder or from files
 * ({@link loadProtocol}, {@link protocolFromFiles}) carry it; where it is
 * absent, a server answers with wirekit's defaults.
 */
export interface ServingInfo {
  /** `server_errors`: one shape a case the manifest declares. */
  readonly serverErrors?: Readonly<Partial<Record<ServerErrorCase, ErrorShape>>>;
  /** `lifecycle.violation`: the answer to a method sent in a state that does not allow it. */
  readonly violation?: ViolationSpec;
  /** The methods' own `lifecycle.violation`, by method. */
  readonly methodViolations?: Readonly<Record<string, ViolationSpec>>;
  /** `version_negotiation`. */
  readonly versionNegotiation?: VersionNegotiation;
  /** `transport.unreadable_id`: `null` answers a frame whose id cannot be read with `"id": null` (JSON-RPC 2.0); `silent` leaves it unanswered. */
  readonly unreadableId?: "null" | "silent";
}

/** A protocol folder that the runtime refuses: which file, where in it (RFC 6901), and why. */
export class ManifestError extends Error {
  /** The file at fault, relative to the folder (`protocol.json`, `gaze.schema.json`). */
  readonly file: string;
  /** JSON pointer to the fault within that file (`""`: the file as a whole). */
  readonly pointer: string;
  /** What is wrong, without the location. */
  readonly detail: string;

  /** A fault in `file` at `pointer`. */
  constructor(file: string, pointer: string, detail: string) {
    super(`${file}${pointer === "" ? "" : ` at ${pointer}`}: ${detail}`);
    this.name = "ManifestError";
    this.file = file;
    this.pointer = pointer;
    this.detail = detail;
  }
}

/** RFC 6901 escaping of one reference token. */
export function escapeToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

type Obj = Record<string, unknown>;

function obj(value: unknown): Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : {};
}

function strs(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** Pointer segments that hold named schemas, left out of a type's name. */
const CONTAINERS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/** `snake_case-or words` → `SnakeCaseOrWords`, as the core names a pointer segment. */
function pascalSegment(text: string): string {
  const out = text
    .split(/[^A-Za-z0-9]/)
    .filter((part) => part !== "")
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join("");
  return out === "" ? "X" : out;
}

/**
 * The schema type a manifest `{"$ref": ...}` names, as the core's bundle names it: `Name` for
 * `file#/$defs/Name` (or `definitions`), and for a place inside it the type's name followed by each
 * further segment in PascalCase, containers left out (`#/$defs/InitializeRequest/properties/params` →
 * `InitializeRequestParams`, MCP's params); else the reference as written.
 */
export function schemaTypeOf(schema: unknown): string | undefined {
  const ref = obj(schema)["$ref"];
  if (typeof ref !== "string") return undefined;
  const hash = ref.indexOf("#");
  const segments = hash < 0 ? [] : ref.slice(hash + 1).split("/").slice(1).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  const [container, name, ...rest] = segments;
  if (name === undefined || (container !== "$defs" && container !== "definitions")) return ref;
  return name + rest.filter((segment) => !CONTAINERS.has(segment)).map(pascalSegment).join("");
}

/**
 * Cross-checks the meta-schema cannot make (the core's consistency rules):
 * every state named exists, the capability method exists, the version
 * negotiation names a method and an error of the protocol.
 */
export function checkConsistency(manifest: unknown, file = "protocol.json"): void {
  const m = obj(manifest);
  const lifecycle = m["lifecycle"] === undefined ? undefined : obj(m["lifecycle"]);
  const states = obj(lifecycle?.["states"]);
  const fail = (pointer: string, detail: string): never => {
    throw new ManifestError(file, pointer, detail);
  };
  const known = (state: unknown): boolean => typeof state === "string" && Object.prototype.hasOwnProperty.call(states, state);
  if (lifecycle !== undefined) {
    if (!known(lifecycle["initial"])) fail("/lifecycle/initial", `unknown state \`${String(lifecycle["initial"])}\``);
    strs(lifecycle["terminal"]).forEach((state, i) => {
      if (!known(state)) fail(`/lifecycle/terminal/${i}`, `unknown state \`${state}\``);
    });
  }
  const methods = obj(m["methods"]);
  for (const [name, spec] of Object.entries(methods)) {
    const at = `/methods/${escapeToken(name)}`;
    const life = obj(spec)["lifecycle"];
    if (life !== undefined) {
      if (lifecycle === undefined) fail(`${at}/lifecycle`, "the manifest has no `lifecycle` to refer to");
      strs(obj(life)["allowed_in"]).forEach((state, i) => {
        if (state !== "*" && !known(state)) fail(`${at}/lifecycle/allowed_in/${i}`, `unknown state \`${state}\``);
      });
      const next = obj(life)["on_success"];
      if (next !== undefined && !known(next)) fail(`${at}/lifecycle/on_success`, `unknown state \`${String(next)}\``);
    }
    if (obj(spec)["capability"] !== undefined && m["capabilities"] === undefined) {
      fail(`${at}/capability`, "a gated method needs the manifest's `capabilities`");
    }
  }
  const caps = m["capabilities"];
  if (caps !== undefined && !Object.prototype.hasOwnProperty.call(methods, String(obj(caps)["method"]))) {
    fail("/capabilities/method", `unknown method \`${String(obj(caps)["method"])}\``);
  }
  const negotiation = m["version_negotiation"];
  if (negotiation !== undefined) {
    const n = obj(negotiation);
    if (!Object.prototype.hasOwnProperty.call(methods, String(n["method"]))) {
      fail("/version_negotiation/method", `unknown method \`${String(n["method"])}\``);
    }
    const errors = Array.isArray(m["errors"]) ? (m["errors"] as unknown[]) : [];
    if (!errors.some((e) => obj(e)["name"] === n["error"])) fail("/version_negotiation/error", `unknown error \`${String(n["error"])}\``);
  }
}

/** wirekit's own frame bound where a protocol states none (64 MiB), as the core's `Transport::UNSTATED_FRAME_BOUND`. */
export const UNSTATED_FRAME_BOUND = 64 * 1024 * 1024;

/**
 * A descriptor from a `protocol.json` manifest that passed the meta-schema
 * (`schemas/wirekit-protocol.schema.json`) and {@link checkConsistency}, with
 * the validators of its schema types. {@link loadProtocol} does all three;
 * the generated descriptors are the same, written by `wirekit generate`.
 */
export function protocolFromManifest<
  R extends RequestMap<R> = Record<string, { params: unknown; result: unknown }>,
  N extends NotificationMap<N> = Record<string, { params: unknown }>,
  SN extends NotificationMap<SN> = Record<string, { params: unknown }>,
>(manifest: unknown, validators?: Readonly<Record<string, SchemaValidator>>): ProtocolDescriptor<R, N, SN> {
  type Mutable<T> = { -readonly [K in keyof T]: T[K] };
  const m = obj(manifest);
  const transport = obj(m["transport"]);
  const methods: Record<string, MethodInfo> = {};
  let shutdown: string | undefined;
  for (const [name, raw] of Object.entries(obj(m["methods"]))) {
    const spec = obj(raw);
    const info: Mutable<MethodInfo> = {
      kind: spec["kind"] === "notification" ? "notification" : "request",
      direction:
        spec["direction"] === "server-to-client" || spec["direction"] === "both"
          ? spec["direction"]
          : "client-to-server",
    };
    if (typeof spec["timeout_ms"] === "number") info.timeoutMs = spec["timeout_ms"];
    // Only the server's declaration gates what a client sends (as the generated descriptors say):
    // one gated on the client's own (`client`, or `sender` for what the client sends) is the client's to keep.
    const own = spec["capability_of"] === "client" || spec["capability_of"] === "sender";
    if (typeof spec["capability"] === "string" && !own) info.capability = spec["capability"];
    if (spec["params_optional"] === true) info.paramsOptional = true;
    const stream = spec["result_stream"] !== undefined;
    if (stream) info.stream = true;
    const params = schemaTypeOf(spec["params"]);
    if (params !== undefined) info.params = params;
    const result = schemaTypeOf(spec["result"]);
    if (result !== undefined) info.result = result;
    const item = schemaTypeOf(spec["result_stream"]);
    if (item !== undefined) info.item = item;
    if (spec["lifecycle"] !== undefined) {
      const l = obj(spec["lifecycle"]);
      const life: Mutable<MethodLifecycle> = { allowedIn: strs(l["allowed_in"]) };
      if (typeof l["on_success"] === "string") life.onSuccess = l["on_success"];
      if (l["ends_session"] === true) life.endsSession = true;
      if (typeof l["completion"] === "string") life.completion = l["completion"];
      if (typeof l["followed_by"] === "string") life.followedBy = l["followed_by"];
      info.lifecycle = life;
    }
    methods[name] = info;
  }
  // The request that ends the session cleanly, as the core's Manifest::shutdown_request decides:
  // its success ends the session, or it is followed by the notification that does.
  for (const [name, info] of Object.entries(methods)) {
    if (info.kind !== "request" || info.stream === true) continue;
    const next = info.lifecycle?.followedBy;
    if (info.lifecycle?.endsSession === true || (next !== undefined && methods[next]?.lifecycle?.endsSession === true)) {
      shutdown = name;
      break;
    }
  }
  const out: Mutable<ProtocolDescriptor<R, N, SN>> = {
    name: String(m["protocol"]),
    version: String(m["version"]),
    framing: transport["framing"] === "content-length" ? "content-length" : "ndjson",
    dialect: transport["envelope"] === "bare" ? "bare" : "jsonrpc-2.0",
    strict: transport["strict"] === true,
    canonical: transport["canonical"] === true,
    // The protocol's bound, or wirekit's own where it states none (as the core's Transport::frame_bound).
    maxFrameBytes: typeof transport["max_frame_bytes"] === "number" ? transport["max_frame_bytes"] : UNSTATED_FRAME_BOUND,
    methods,
  };
  if (transport["one_request_at_a_time"] === true) out.oneRequestAtATime = true;
  if (m["capabilities"] !== undefined) {
    const c = obj(m["capabilities"]);
    out.capabilities = {
      method: String(c["method"]),
      pointer: String(c["pointer"]),
      style: c["style"] === "string-array" ? "string-array" : c["style"] === "provider" ? "provider" : "boolean-object",
    };
  }
  if (shutdown !== undefined) out.shutdown = shutdown;
  if (m["host"] !== undefined) {
    const h = obj(m["host"]);
    const exit: Mutable<ExitSequence> = {};
    if (typeof h["exit_grace_ms"] === "number") exit.graceMs = h["exit_grace_ms"];
    if (typeof h["terminate_grace_ms"] === "number") exit.terminateGraceMs = h["terminate_grace_ms"];
    if (Object.keys(exit).length > 0) out.exit = exit;
  }
  if (m["lifecycle"] !== undefined) {
    const l = obj(m["lifecycle"]);
    out.lifecycle = { initial: String(l["initial"]), terminal: strs(l["terminal"]) };
  }
  if (m["cancellation"] !== undefined) {
    const c = obj(m["cancellation"]);
    out.cancellation = { method: String(c["method"]), idPointer: String(c["id_pointer"]), answer: c["answer"] === "optional" ? "optional" : "required" };
  }
  out.errors = (Array.isArray(m["errors"]) ? (m["errors"] as unknown[]) : []).map((raw) => {
    const e = obj(raw);
    const code: Mutable<ProtocolErrorCode> = { code: Number(e["code"]), name: String(e["name"]) };
    if (e["ends_session"] === true) code.endsSession = true;
    return code;
  });
  const errorData = schemaTypeOf(m["error_data"]);
  if (errorData !== undefined) out.errorData = errorData;
  const errorObject = schemaTypeOf(m["error_object"]);
  if (errorObject !== undefined) out.errorObject = errorObject;
  if (Array.isArray(m["rules"]) && m["rules"].length > 0) out.rules = m["rules"] as RuleSpec[];
  const serving = servingOf(m);
  if (serving !== undefined) out.serving = serving;
  if (validators !== undefined) out.validators = validators;
  return out;
}

function shapeOf(raw: unknown): ErrorShape {
  type Mutable<T> = { -readonly [K in keyof T]: T[K] };
  const o = obj(raw);
  const shape: Mutable<ErrorShape> = {};
  if (typeof o["code"] === "number") shape.code = o["code"];
  if (Object.prototype.hasOwnProperty.call(o, "data")) shape.data = o["data"] as JsonValue;
  if (o["by_kind"] !== undefined) {
    const byKind: Record<string, ErrorShape> = {};
    for (const [kind, inner] of Object.entries(obj(o["by_kind"]))) byKind[kind] = shapeOf(inner);
    shape.byKind = byKind;
  }
  return shape;
}

function violationOf(raw: unknown): ViolationSpec | undefined {
  if (raw === undefined) return undefined;
  const o = obj(raw);
  const spec: { code: number; message: string; data?: JsonValue } = { code: Number(o["code"]), message: String(o["message"] ?? "") };
  if (o["data"] !== undefined && o["data"] !== null) spec.data = o["data"] as JsonValue;
  return spec;
}

/** The manifest's serving details ({@link ServingInfo}); `undefined` when it has none. */
function servingOf(m: Obj): ServingInfo | undefined {
  type Mutable<T> = { -readonly [K in keyof T]: T[K] };
  const out: Mutable<ServingInfo> = {};
  if (m["server_errors"] !== undefined) {
    const errors: Partial<Record<ServerErrorCase, ErrorShape>> = {};
    for (const [name, raw] of Object.entries(obj(m["server_errors"]))) errors[name as ServerErrorCase] = shapeOf(raw);
    out.serverErrors = errors;
  }
  const lifecycle = m["lifecycle"] === undefined ? undefined : obj(m["lifecycle"]);
  const violation = violationOf(lifecycle?.["violation"]);
  if (violation !== undefined) out.violation = violation;
  const own: Record<string, ViolationSpec> = {};
  for (const [name, spec] of Object.entries(obj(m["methods"]))) {
    const v = violationOf(obj(obj(spec)["lifecycle"])["violation"]);
    if (v !== undefined) own[name] = v;
  }
  if (Object.keys(own).length > 0) out.methodViolations = own;
  if (m["version_negotiation"] !== undefined) {
    const n = obj(m["version_negotiation"]);
    out.versionNegotiation = {
      method: String(n["method"]),
      clientPointer: String(n["client_pointer"] ?? ""),
      serverVersion: String(n["server_version"] ?? ""),
      error: String(n["error"]),
      message: String(n["message"] ?? ""),
    };
  }
  const unreadable = obj(m["transport"])["unreadable_id"];
  if (unreadable === "silent" || unreadable === "null") out.unreadableId = unreadable;
  return Object.keys(out).length === 0 ? undefined : out;
}
