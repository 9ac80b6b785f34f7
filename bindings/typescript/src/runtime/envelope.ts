/**
 * The JSON-RPC envelope: decoding message bodies into typed {@link Message}s
 * and encoding them back, in two dialects (`jsonrpc-2.0`, `bare`) and two
 * strictness levels, mirroring the Rust core (`wirekit::envelope`) rule for
 * rule: the same error kinds, codes, pointers, recovered ids and the same
 * order of checks.
 *
 * Ids are strings or integers written in integer syntax that fit `i64` or
 * `u64` (`1.0`, `1e2` and `-0.0` are refused; `-0` is 0). An integer id is a `number`
 * when it is a safe integer (|n| < 2^53) and a `bigint` beyond that, so
 * every id keeps its exact value and `1` and `"1"` stay distinct.
 *
 * `params`, `result` and `error.data` are plain JSON values; numbers keep
 * the text they were written with beside them (see `json.ts`), so
 * {@link encodeMessage} re-encodes `9.0` as `9.0` and
 * `18446744073709551615` exactly.
 *
 * @module
 */

import { decodeUtf8, LONE_SURROGATE } from "./framing.js";
import {
  canonicalizeJson,
  copyNumberText,
  findUncanonicalizable,
  integerOf,
  JsonSyntaxError,
  type JsonObject,
  type JsonValue,
  memberOrder,
  NotCanonicalizableError,
  numberText,
  parseJson,
  pointerPush,
  stringifyJson,
} from "./json.js";

/** The envelope dialect: `"jsonrpc-2.0"` (`"jsonrpc":"2.0"` required and written) or `"bare"` (never written; `"2.0"` tolerated, other values refused). */
export type Dialect = "jsonrpc-2.0" | "bare";

/** How to decode and encode envelopes. */
export interface EnvelopeOptions {
  /** The dialect. */
  dialect: Dialect;
  /** Strict decoding refuses duplicate member names at any depth, unknown members (top level and in `error`) and `"params": null`. Default `false`. */
  strict?: boolean;
}

/**
 * A request id: a string, or an integer (a `number` when safe, a `bigint` beyond 2^53). Lenient decoding also
 * takes a number written with a fraction or an exponent below 2^53 (a `number`), which JSON-RPC 2.0 discourages
 * ({@link idWarning}).
 */
export type Id = string | number | bigint;

/** A call expecting a response. */
export interface Request {
  /** Discriminant. */
  kind: "request";
  /** The id the response will echo; `null` only from lenient decoding of `"id": null` ({@link idWarning}). */
  id: Id | null;
  /** The method name (any string, the empty one included). */
  method: string;
  /** An object or array; `undefined` when absent; `null` only from lenient decoding of `"params": null`. */
  params?: JsonValue | undefined;
}

/** A call expecting no response. */
export interface Notification {
  /** Discriminant. */
  kind: "notification";
  /** The method name. */
  method: string;
  /** As for {@link Request.params}. */
  params?: JsonValue | undefined;
}

/** The error object of an error response. */
export interface ErrorObject {
  /** The error code, an integer within `i64`. */
  code: number;
  /** A short human description. */
  message: string;
  /** Optional detail; `null` is an explicit `"data": null`. */
  data?: JsonValue | undefined;
}

/** A response carrying `result`. */
export interface SuccessResponse {
  /** Discriminant. */
  kind: "success_response";
  /** The id of the request answered; `null` when it could not be read. */
  id: Id | null;
  /** The result, any JSON value. */
  result: JsonValue;
}

/** A response carrying `error`. */
export interface ErrorResponse {
  /** Discriminant. */
  kind: "error_response";
  /** The id of the request answered; `null` when it could not be read. */
  id: Id | null;
  /** The error. */
  error: ErrorObject;
}

/** A response. */
export type Response = SuccessResponse | ErrorResponse;

/** One JSON-RPC message. */
export type Message = Request | Notification | Response;

/** The kind names used by the shared vectors. */
export type MessageKind = Message["kind"];

/** The stable names of envelope errors, as used by the shared vectors. */
export type EnvelopeErrorKind =
  | "Parse"
  | "InvalidUtf8"
  | "TrailingData"
  | "DuplicateKey"
  | "NotAnObject"
  | "MissingJsonRpc"
  | "WrongJsonRpcVersion"
  | "JsonRpcNotString"
  | "MethodNotString"
  | "InvalidId"
  | "MissingId"
  | "ParamsNotStructured"
  | "ResultAndError"
  | "NeitherResultNorError"
  | "InvalidErrorObject"
  | "UnknownMember"
  | "NotCanonicalizable";

/** Every envelope error kind, in the Rust core's declaration order. */
export const ENVELOPE_ERROR_KINDS: readonly EnvelopeErrorKind[] = [
  "Parse",
  "InvalidUtf8",
  "TrailingData",
  "DuplicateKey",
  "NotAnObject",
  "MissingJsonRpc",
  "WrongJsonRpcVersion",
  "JsonRpcNotString",
  "MethodNotString",
  "InvalidId",
  "MissingId",
  "ParamsNotStructured",
  "ResultAndError",
  "NeitherResultNorError",
  "InvalidErrorObject",
  "UnknownMember",
  "NotCanonicalizable",
];

/** The JSON-RPC 2.0 error codes. */
export const ErrorCode = {
  /** The body is not JSON (or not UTF-8, or has trailing data). */
  ParseError: -32700,
  /** The JSON is not a valid request (or response) object. */
  InvalidRequest: -32600,
  /** The method does not exist or is not available. */
  MethodNotFound: -32601,
  /** Invalid method parameters. */
  InvalidParams: -32602,
  /** Internal JSON-RPC error. */
  InternalError: -32603,
} as const;

const STANDARD_MESSAGES: Readonly<Record<number, string>> = {
  [-32700]: "Parse error",
  [-32600]: "Invalid Request",
  [-32601]: "Method not found",
  [-32602]: "Invalid params",
  [-32603]: "Internal error",
};

/** The JSON-RPC code of an error kind: -32700 for `Parse`, `InvalidUtf8`, `TrailingData`; -32603 for `NotCanonicalizable`; -32600 for the rest. */
export function codeOf(kind: EnvelopeErrorKind): number {
  if (kind === "Parse" || kind === "InvalidUtf8" || kind === "TrailingData") return ErrorCode.ParseError;
  if (kind === "NotCanonicalizable") return ErrorCode.InternalError;
  return ErrorCode.InvalidRequest;
}

/** An envelope that could not be decoded (or canonically encoded): what, where, and how to answer it. */
export class EnvelopeError extends Error {
  /** What went wrong. */
  readonly kind: EnvelopeErrorKind;
  /** The RFC 6901 pointer of the offending member (`""` for the whole message; where a missing member belongs). */
  readonly pointer: string;
  /** The id to answer with; `null` means answer with `"id": null` (always for parse-level errors). */
  readonly id: Id | null;

  /** Built by {@link decodeMessage} and {@link encodeCanonical}. */
  constructor(kind: EnvelopeErrorKind, pointer: string, message: string, id: Id | null = null) {
    super(message);
    this.name = "EnvelopeError";
    this.kind = kind;
    this.pointer = pointer;
    this.id = id;
  }

  /** The JSON-RPC code to answer with. */
  get code(): number {
    return codeOf(this.kind);
  }

  /** The error response to send back: this error's id (or `null`), code, `"Invalid Request: ..."`, and `data` `{kind, pointer}` (pointer only when at most 256 characters). */
  toResponse(): ErrorResponse {
    const prefix = STANDARD_MESSAGES[this.code];
    const data: JsonObject = { kind: this.kind };
    if (this.pointer.length <= 256) data["pointer"] = this.pointer;
    return {
      kind: "error_response",
      id: this.id,
      error: { code: this.code, message: prefix === undefined ? this.message : `${prefix}: ${this.message}`, data },
    };
  }
}

/** A peer-supplied name made safe for a message: quoted and cut to 64 characters. */
function quote(name: string): string {
  const chars = Array.from(name);
  return chars.length <= 64 ? JSON.stringify(name) : `${JSON.stringify(chars.slice(0, 64).join(""))}...`;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** "a string", "an object", ... for messages. */
function describe(value: JsonValue, written: string | undefined): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return "a boolean";
    case "number":
    case "bigint":
      return integerOf(written ?? String(value)) !== undefined ? "an integer" : "a non-integer number";
    case "string":
      return "a string";
    default:
      return Array.isArray(value) ? "an array" : "an object";
  }
}

/**
 * An id from a member value and its written text: a string, or an integer within i64/u64; `lenient` also takes
 * a number written with a fraction or an exponent whose magnitude is below 2^53 (a double keeps it exactly).
 */
function idOf(value: JsonValue | undefined, written: string | undefined, lenient = false): Id | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "bigint") return integerOf(value.toString()) === undefined ? undefined : normalizeId(value);
  if (typeof value !== "number") return undefined;
  const n = integerOf(written ?? String(value));
  if (n !== undefined) return normalizeId(n);
  return lenient && Number.isFinite(value) && Math.abs(value) < 2 ** 53 ? value : undefined;
}

/**
 * An id as a strict envelope reads it (the AgentAPI driver protocol's reference package, which RFC 8785-canonicalizes
 * each frame first): a string, or a number whose canonical form (the ECMAScript form of its nearest double) is an
 * integer, as that integer: `1e3` is 1000, `30.0` is 30, `9007199254740993` is 9007199254740992.
 */
function canonicalIdOf(value: JsonValue | undefined, written: string | undefined): Id | undefined {
  if (typeof value === "string") return value;
  if (typeof value !== "number" && typeof value !== "bigint") return undefined;
  const double = Number(written ?? String(value));
  if (!Number.isFinite(double)) return undefined;
  const canonical = String(double);
  if (/[.eE]/.test(canonical)) return undefined;
  return normalizeId(BigInt(canonical));
}

/** The id reader of a strict or a lenient envelope. */
function readId(value: JsonValue | undefined, written: string | undefined, strict: boolean): Id | undefined {
  return strict ? canonicalIdOf(value, written) : idOf(value, written, true);
}

/**
 * The warning a decoded message's id deserves, as JSON-RPC 2.0 discourages both: `NullId` for a request whose id
 * is `null`, `FractionalId` for an id written with a fraction or an exponent (lenient decoding only accepts
 * them); undefined otherwise.
 */
export function idWarning(message: Message): "NullId" | "FractionalId" | undefined {
  if (message.kind === "notification") return undefined;
  if (message.id === null) return message.kind === "request" ? "NullId" : undefined;
  if (typeof message.id !== "number") return undefined;
  const written = numberText(message, "id") ?? String(message.id);
  return integerOf(written) === undefined ? "FractionalId" : undefined;
}

/** An integer id as a `number` when safe, else a `bigint`. */
function normalizeId(n: bigint): Id {
  const asNumber = Number(n);
  return Number.isSafeInteger(asNumber) ? asNumber : n;
}

/** The members of an envelope, with document positions. */
interface Members {
  jsonrpc?: JsonValue;
  id?: JsonValue;
  method?: JsonValue;
  params?: JsonValue;
  result?: JsonValue;
  error?: JsonValue;
  has: Set<string>;
  at: Map<string, number>;
  unknown?: [number, string];
}

const ENVELOPE_MEMBERS = new Set(["jsonrpc", "id", "method", "params", "result", "error"]);

function split(object: JsonObject): Members {
  const m: Members = { has: new Set(), at: new Map() };
  memberOrder(object).forEach((key, position) => {
    const value = object[key] as JsonValue;
    if (ENVELOPE_MEMBERS.has(key)) {
      m.has.add(key);
      m.at.set(key, position);
      (m as unknown as Record<string, JsonValue>)[key] = value;
    } else if (m.unknown === undefined) {
      m.unknown = [position, key];
    }
  });
  return m;
}

function firstForeign(m: Members, foreign: string[]): string | undefined {
  const candidates: [number, string][] = foreign.filter((n) => m.has.has(n)).map((n) => [m.at.get(n) ?? 0, n]);
  if (m.unknown !== undefined) candidates.push(m.unknown);
  candidates.sort((a, b) => a[0] - b[0]);
  return candidates[0]?.[1];
}

function unknownMember(parent: string, name: string, within: string, id: Id | null): EnvelopeError {
  return new EnvelopeError("UnknownMember", pointerPush(parent, name), `unknown member ${quote(name)} in ${within}`, id);
}

/**
 * Decodes one message body (UTF-8 JSON, no framing), checking in the Rust
 * core's order: UTF-8, JSON syntax, trailing data, duplicates (strict),
 * object-ness, `jsonrpc`; then for calls `method`, `id`, `params`, unknown
 * members (strict); for responses `result`/`error` presence, `id`, the
 * `error` object, unknown members (strict). The first failure is thrown as
 * an {@link EnvelopeError}.
 */
export function decodeMessage(body: Uint8Array | string, options: EnvelopeOptions): Message {
  let text: string;
  if (typeof body === "string") {
    // A JavaScript string can hold what UTF-8 cannot: a lone surrogate.
    if (LONE_SURROGATE.test(body)) throw new EnvelopeError("InvalidUtf8", "", "not valid UTF-8: a lone surrogate");
    text = body;
  } else {
    const decoded = decodeUtf8(body);
    if (decoded === undefined) throw new EnvelopeError("InvalidUtf8", "", "not valid UTF-8");
    text = decoded;
  }
  const strict = options.strict === true;
  let parsed;
  try {
    parsed = parseJson(text, { detectDuplicates: strict, message: true });
  } catch (error) {
    if (error instanceof JsonSyntaxError) {
      const what = error.kind === "Parse" ? "not valid JSON: " : "";
      throw new EnvelopeError(error.kind, "", `${what}${error.message}`);
    }
    throw error;
  }
  const value = parsed.value;
  const duplicate = parsed.duplicate;
  if (!isObject(value)) {
    if (duplicate !== undefined) throw duplicateError(duplicate, null);
    const hint = Array.isArray(value) ? " (batches are not supported)" : "";
    throw new EnvelopeError(
      "NotAnObject",
      "",
      `a message must be a JSON object, not ${describe(value, parsed.numberText)}${hint}`,
    );
  }
  const m = split(value);
  // Lenient: a fractional id is echoed in an error answer too.
  const answerId = readId(m.id, numberText(value, "id"), strict) ?? null;
  if (duplicate !== undefined) throw duplicateError(duplicate, duplicate === "/id" ? null : answerId);
  if (strict) checkStrictMembers(value, m, answerId);
  checkJsonrpc(m, options.dialect, answerId, numberText(value, "jsonrpc"));
  return m.has.has("method") ? checkCall(value, m, strict, answerId) : checkResponse(value, m, strict, answerId);
}

function duplicateError(pointer: string, id: Id | null): EnvelopeError {
  return new EnvelopeError("DuplicateKey", pointer, `duplicate member name at ${quote(pointer)}`, id);
}

function checkJsonrpc(m: Members, dialect: Dialect, id: Id | null, written: string | undefined): void {
  if (m.jsonrpc === "2.0") return;
  if (!m.has.has("jsonrpc")) {
    if (dialect === "bare") return;
    throw new EnvelopeError("MissingJsonRpc", "/jsonrpc", 'missing member "jsonrpc" (must be "2.0")', id);
  }
  const other = m.jsonrpc as JsonValue;
  if (typeof other === "string") {
    throw new EnvelopeError("WrongJsonRpcVersion", "/jsonrpc", `"jsonrpc" must be "2.0", not ${quote(other)}`, id);
  }
  throw new EnvelopeError(
    "JsonRpcNotString",
    "/jsonrpc",
    `"jsonrpc" must be the string "2.0", not ${describe(other, written)}`,
    id,
  );
}

/**
 * Strict decoding refuses, before the `jsonrpc` version is read, what the driver protocol's reference decoder
 * refuses while it decodes the envelope into its typed message: a member no message has, and a `jsonrpc` or
 * `method` that is not a string.
 */
function checkStrictMembers(object: JsonObject, m: Members, id: Id | null): void {
  if (m.unknown !== undefined) {
    const within = m.has.has("method") ? "a request or notification" : "a response";
    throw unknownMember("", m.unknown[1], within, id);
  }
  if (m.has.has("jsonrpc") && m.jsonrpc === null) {
    // A null version is a missing one, as the driver protocol's reference reads it.
    m.has.delete("jsonrpc");
  } else if (m.has.has("jsonrpc") && typeof m.jsonrpc !== "string") {
    checkJsonrpc(m, "jsonrpc-2.0", id, numberText(object, "jsonrpc"));
  }
  const method = m.method as JsonValue;
  if (m.has.has("method") && typeof method !== "string") {
    throw new EnvelopeError(
      "MethodNotString",
      "/method",
      `"method" must be a string, not ${describe(method, numberText(object, "method"))}`,
      id,
    );
  }
}

function checkCall(object: JsonObject, m: Members, strict: boolean, answerId: Id | null): Message {
  const method = m.method as JsonValue;
  if (typeof method !== "string") {
    throw new EnvelopeError(
      "MethodNotString",
      "/method",
      `"method" must be a string, not ${describe(method, numberText(object, "method"))}`,
      answerId,
    );
  }
  let id: Id | null | undefined;
  if (m.has.has("id")) {
    id = !strict && m.id === null ? null : readId(m.id, numberText(object, "id"), strict);
    if (id === undefined) {
      const allowed = strict ? "a string or a number whose RFC 8785 form is an integer" : "a string, an integer that fits i64 or u64, a number below 2^53 or null";
      throw new EnvelopeError("InvalidId", "/id", `a request id must be ${allowed}, not ${describe(m.id as JsonValue, numberText(object, "id"))}`);
    }
  }
  let params: JsonValue | undefined;
  if (m.has.has("params")) {
    const p = m.params as JsonValue;
    if (typeof p === "object" && (p !== null || !strict)) {
      params = p;
    } else {
      throw new EnvelopeError(
        "ParamsNotStructured",
        "/params",
        `"params" must be an object or an array, not ${describe(p, numberText(object, "params"))}`,
        answerId,
      );
    }
  }
  if (strict) {
    const name = firstForeign(m, ["result", "error"]);
    if (name !== undefined) throw unknownMember("", name, "a request or notification", answerId);
  }
  if (id === undefined) {
    const note: Notification = { kind: "notification", method };
    if (params !== undefined) note.params = params;
    return note;
  }
  const request: Request = { kind: "request", id, method };
  // A strict id is its canonical integer, not the text it was written with.
  if (!strict) copyNumberText(object, "id", request, "id");
  if (params !== undefined) request.params = params;
  return request;
}

function checkResponse(object: JsonObject, m: Members, strict: boolean, answerId: Id | null): Message {
  const hasResult = m.has.has("result");
  const hasError = m.has.has("error");
  if (hasResult && hasError) {
    throw new EnvelopeError("ResultAndError", "", 'a response must not carry both "result" and "error"', answerId);
  }
  if (!hasResult && !hasError) {
    throw new EnvelopeError(
      "NeitherResultNorError",
      "",
      'a message needs "method" (a call) or "result" or "error" (a response)',
      answerId,
    );
  }
  if (!m.has.has("id")) {
    throw new EnvelopeError("MissingId", "/id", 'a response must have an "id" member (null when unknown)');
  }
  let id: Id | null = null;
  if (m.id !== null) {
    const read = readId(m.id, numberText(object, "id"), strict);
    if (read === undefined) {
      const allowed = strict ? "a string, a number whose RFC 8785 form is an integer, or null" : "a string, an integer that fits i64 or u64, a number below 2^53, or null";
      throw new EnvelopeError("InvalidId", "/id", `a response id must be ${allowed}, not ${describe(m.id as JsonValue, numberText(object, "id"))}`);
    }
    id = read;
  }
  let response: Response;
  if (hasResult) {
    response = { kind: "success_response", id, result: m.result as JsonValue };
    copyNumberText(object, "result", response, "result");
    if (!strict) copyNumberText(object, "id", response, "id");
  } else {
    response = { kind: "error_response", id, error: checkErrorObject(m.error as JsonValue, strict, answerId) };
    if (!strict) copyNumberText(object, "id", response, "id");
  }
  if (strict) {
    const name = firstForeign(m, ["params"]);
    if (name !== undefined) throw unknownMember("", name, "a response", answerId);
  }
  return response;
}

const I64_MAX = 2n ** 63n - 1n;

function checkErrorObject(error: JsonValue, strict: boolean, answerId: Id | null): ErrorObject {
  const invalid = (pointer: string, message: string): EnvelopeError =>
    new EnvelopeError("InvalidErrorObject", pointer, message, answerId);
  if (!isObject(error)) {
    throw invalid("/error", `"error" must be an object, not ${describe(error, undefined)}`);
  }
  let unknown: string | undefined;
  for (const key of memberOrder(error)) {
    if (key !== "code" && key !== "message" && key !== "data" && unknown === undefined) unknown = key;
  }
  const has = (key: string): boolean => Object.prototype.hasOwnProperty.call(error, key);
  if (!has("code")) throw invalid("/error/code", '"error" has no "code"');
  const code = error["code"] as JsonValue;
  const codeText = numberText(error, "code");
  const codeInt = typeof code === "number" ? integerOf(codeText ?? String(code)) : undefined;
  if (codeInt === undefined || codeInt > I64_MAX) {
    const what = codeInt !== undefined ? "an integer above i64::MAX" : describe(code, codeText);
    throw invalid("/error/code", `"error.code" must be an integer that fits i64, not ${what}`);
  }
  if (!has("message")) throw invalid("/error/message", '"error" has no "message"');
  const message = error["message"] as JsonValue;
  if (typeof message !== "string") {
    throw invalid("/error/message", `"error.message" must be a string, not ${describe(message, numberText(error, "message"))}`);
  }
  if (strict && unknown !== undefined) throw unknownMember("/error", unknown, "an error object", answerId);
  const out: ErrorObject = { code: code as number, message };
  copyNumberText(error, "code", out, "code");
  if (has("data")) {
    out.data = error["data"] as JsonValue;
    copyNumberText(error, "data", out, "data");
  }
  return out;
}

/** JSON text of an id (a number as it was written, when its holder recorded that). */
function idText(holder: object, id: Id | null): string {
  if (id === null) return "null";
  if (typeof id === "number") return stringifyJson(id, numberText(holder, "id"));
  return typeof id === "string" ? JSON.stringify(id) : id.toString();
}

/**
 * Encodes a message as compact JSON, without a trailing newline. Members come
 * in declared order: `jsonrpc` (jsonrpc-2.0 only), `id`, `method`, `params`
 * (when present) for calls; `jsonrpc`, `id`, then `result` or `error`
 * (`code`, `message`, `data` when present) for responses. Values keep their
 * member order and their numbers as written (see `json.ts`), so a compact
 * message decoded and re-encoded comes out byte for byte.
 */
export function encodeMessage(message: Message, dialect: Dialect): string {
  const parts: string[] = [];
  if (dialect === "jsonrpc-2.0") parts.push('"jsonrpc":"2.0"');
  switch (message.kind) {
    case "request":
    case "notification":
      if (message.kind === "request") parts.push(`"id":${idText(message, message.id)}`);
      parts.push(`"method":${JSON.stringify(message.method)}`);
      if (message.params !== undefined) parts.push(`"params":${member(message, "params", message.params)}`);
      break;
    case "success_response":
      parts.push(`"id":${idText(message, message.id)}`, `"result":${member(message, "result", message.result)}`);
      break;
    case "error_response": {
      const e = message.error;
      const inner = [`"code":${member(e, "code", e.code)}`, `"message":${JSON.stringify(e.message)}`];
      if (e.data !== undefined) inner.push(`"data":${member(e, "data", e.data)}`);
      parts.push(`"id":${idText(message, message.id)}`, `"error":{${inner.join(",")}}`);
      break;
    }
  }
  return `{${parts.join(",")}}`;
}

/** A member value encoded with the number text recorded for it on its holder. */
function member(holder: object, key: string, value: JsonValue): string {
  return stringifyJson(value, numberText(holder, key));
}

/** The members of a message as a plain object in declared order, for canonical encoding. */
function wireObject(message: Message, dialect: Dialect): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (dialect === "jsonrpc-2.0") out["jsonrpc"] = "2.0";
  switch (message.kind) {
    case "request":
      out["id"] = message.id;
      out["method"] = message.method;
      if (message.params !== undefined) out["params"] = message.params;
      break;
    case "notification":
      out["method"] = message.method;
      if (message.params !== undefined) out["params"] = message.params;
      break;
    case "success_response":
      out["id"] = message.id;
      out["result"] = message.result;
      break;
    case "error_response": {
      const e: Record<string, unknown> = { code: message.error.code, message: message.error.message };
      if (message.error.data !== undefined) e["data"] = message.error.data;
      out["id"] = message.id;
      out["error"] = e;
      break;
    }
  }
  return out;
}

/**
 * Encodes a message in RFC 8785 (JCS) canonical form: members sorted by
 * UTF-16 code units at every depth, no whitespace, numbers in ECMAScript
 * form. Throws an {@link EnvelopeError} of kind `NotCanonicalizable` (its
 * pointer naming the number) for an integer beyond 2^53 whose nearest
 * double prints other digits, checked in the Rust core's order: the id, then
 * params/result, the error code, the error data.
 */
export function encodeCanonical(message: Message, dialect: Dialect): string {
  const checks: [string, unknown, string | undefined][] = [];
  switch (message.kind) {
    case "request":
      checks.push(["/id", message.id, undefined], ["/params", message.params, numberText(message, "params")]);
      break;
    case "notification":
      checks.push(["/params", message.params, numberText(message, "params")]);
      break;
    case "success_response":
      checks.push(["/id", message.id, undefined], ["/result", message.result, numberText(message, "result")]);
      break;
    case "error_response":
      checks.push(
        ["/id", message.id, undefined],
        ["/error/code", message.error.code, numberText(message.error, "code")],
        ["/error/data", message.error.data, numberText(message.error, "data")],
      );
      break;
  }
  for (const [base, value, written] of checks) {
    const bad = findUncanonicalizable(value, written);
    if (bad !== undefined) {
      const pointer = base + bad;
      throw new EnvelopeError(
        "NotCanonicalizable",
        pointer,
        new NotCanonicalizableError(pointer).message,
      );
    }
  }
  return canonicalizeJson(wireObject(message, dialect));
}
