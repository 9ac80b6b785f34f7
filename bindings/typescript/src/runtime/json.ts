/**
 * JSON values, a single-pass parser and two encoders, with the exact rules
 * of the Rust core's `serde_json` use.
 *
 * Why not `JSON.parse`/`JSON.stringify`: strict decoding must find
 * duplicate member names at any depth (and say where), the parser must
 * refuse what `serde_json` refuses (lone surrogate escapes, nesting deeper
 * than 127, numbers out of double range), and re-encoding must keep numbers
 * as written: `JSON.stringify` prints `9.0` as `9` and
 * `18446744073709551615` as `18446744073709552000`.
 *
 * Values are plain JavaScript (`null`, booleans, numbers, strings, arrays,
 * objects), so typed code reads them as usual. What plain values cannot hold
 * is kept beside them, in a side table keyed by the containing object or
 * array: the text of every number whose JavaScript form differs from what
 * was written (`9.0`, `1e2`, `-0`, integers beyond 2^53), and the member
 * order of objects whose integer-like keys JavaScript would reorder.
 * {@link stringifyJson} writes a number from its recorded text as long as
 * the value still equals it, so an untouched value re-encodes byte for byte
 * and an edited one is written afresh. {@link canonicalizeJson} writes
 * RFC 8785 (JCS).
 *
 * @module
 */

/** A JSON value as plain JavaScript. `bigint` is accepted by the encoders (an exact integer); the parser yields numbers. */
export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | JsonObject;

/** A JSON object. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** What the side table knows about one object or array. */
interface Meta {
  /** Member name (or array index as text) to the number's text as written, when it differs from JavaScript's. */
  numbers?: Map<string, string>;
  /** The member order as written, when JavaScript's own order differs (integer-like keys). */
  order?: string[];
}

const META = new WeakMap<object, Meta>();

function metaOf(container: object): Meta {
  let meta = META.get(container);
  if (meta === undefined) {
    meta = {};
    META.set(container, meta);
  }
  return meta;
}

/**
 * The text a number was written with, when it differs from JavaScript's
 * form of its value: `numberText(obj, "crossing_value")` is `"9.0"` after
 * parsing `{"crossing_value":9.0}`. `undefined` when the JavaScript form is
 * the written one, or nothing was recorded.
 */
export function numberText(container: object, key: string | number): string | undefined {
  return META.get(container)?.numbers?.get(String(key));
}

/** Every number text recorded for `container`'s members (member name or index as text to the text), when there are any. */
export function numberTexts(container: object): ReadonlyMap<string, string> | undefined {
  const numbers = META.get(container)?.numbers;
  return numbers === undefined || numbers.size === 0 ? undefined : numbers;
}

/**
 * Records (or with `undefined`, forgets) the written text of the number at
 * `container[key]`. Encoders use it while the value still equals `text`'s.
 */
export function setNumberText(container: object, key: string | number, text: string | undefined): void {
  if (text === undefined) {
    META.get(container)?.numbers?.delete(String(key));
    return;
  }
  const meta = metaOf(container);
  (meta.numbers ??= new Map()).set(String(key), text);
}

/** Copies the written text of `from[fromKey]` (if any) to `to[toKey]`. */
export function copyNumberText(from: object, fromKey: string, to: object, toKey: string): void {
  setNumberText(to, toKey, numberText(from, fromKey));
}

/** The member names of `object` in written order (JavaScript lists integer-like keys first). */
export function memberOrder(object: object): string[] {
  const keys = Object.keys(object);
  const order = META.get(object)?.order;
  if (order === undefined) return keys;
  const present = new Set(keys);
  const out = order.filter((key) => present.has(key));
  const listed = new Set(out);
  for (const key of keys) if (!listed.has(key)) out.push(key);
  return out;
}

/** Appends one RFC 6901 reference token to `pointer`. */
export function pointerPush(pointer: string, token: string | number): string {
  return `${pointer}/${String(token).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

/** Whether a body could not be read as one JSON value: bad syntax (`Parse`) or something after the value (`TrailingData`). */
export class JsonSyntaxError extends Error {
  /** `Parse` or `TrailingData`. */
  readonly kind: "Parse" | "TrailingData";
  /** 1-based line where reading stopped. */
  readonly line: number;
  /** 1-based column (UTF-16 units) where reading stopped. */
  readonly column: number;

  /** Built by {@link parseJson}. */
  constructor(kind: "Parse" | "TrailingData", message: string, text: string, position: number) {
    const before = text.slice(0, position);
    const line = before.split("\n").length;
    const column = position - (before.lastIndexOf("\n") + 1) + 1;
    super(`${message} at line ${line} column ${column}`);
    this.name = "JsonSyntaxError";
    this.kind = kind;
    this.line = line;
    this.column = column;
  }
}

/** The outcome of {@link parseJson}. */
export interface ParsedJson {
  /** The value. Duplicate member names keep their last value, at the first one's position. */
  value: JsonValue;
  /** When duplicates were looked for: the RFC 6901 pointer of the first repeated member name in document order. */
  duplicate?: string;
  /** When the whole text is a number whose JavaScript form differs from it: that text. */
  numberText?: string;
}

/** serde_json's recursion limit: the 128th nested array or object is refused. */
const MAX_DEPTH = 128;

const INTEGER_LIKE = /^(?:0|[1-9][0-9]*)$/;
const INTEGER_SYNTAX = /^-?(?:0|[1-9][0-9]*)$/;

class Parser {
  private pos = 0;
  private depth = 0;
  private readonly path: string[] = [];
  duplicate: string | undefined;
  /** The written text of the number just parsed, when not its JavaScript form. */
  lexeme: string | undefined;

  constructor(
    private readonly text: string,
    private readonly detectDuplicates: boolean,
    private readonly message: boolean,
  ) {}

  private fail(message: string): never {
    throw new JsonSyntaxError("Parse", message, this.text, this.pos);
  }

  private ws(): void {
    const t = this.text;
    for (;;) {
      const c = t.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.pos++;
      else return;
    }
  }

  parseDocument(): ParsedJson {
    this.ws();
    const value = this.value();
    const lexeme = this.lexeme;
    this.ws();
    if (this.pos < this.text.length) {
      throw new JsonSyntaxError("TrailingData", "unexpected data after the JSON value", this.text, this.pos);
    }
    const out: ParsedJson = { value };
    if (this.duplicate !== undefined) out.duplicate = this.duplicate;
    if (lexeme !== undefined) out.numberText = lexeme;
    return out;
  }

  private value(): JsonValue {
    this.lexeme = undefined;
    const t = this.text;
    const c = t.charCodeAt(this.pos);
    switch (c) {
      case 0x7b: // {
        return this.object();
      case 0x5b: // [
        return this.array();
      case 0x22: // "
        this.pos++;
        return this.string();
      case 0x74: // t
        return this.literal("true", true);
      case 0x66: // f
        return this.literal("false", false);
      case 0x6e: // n
        return this.literal("null", null);
      default:
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
        return this.fail(Number.isNaN(c) ? "EOF while parsing a value" : "expected value");
    }
  }

  private literal<T extends JsonValue>(word: string, value: T): T {
    for (let i = 0; i < word.length; i++) {
      if (this.text.charCodeAt(this.pos) !== word.charCodeAt(i)) this.fail("expected ident");
      this.pos++;
    }
    return value;
  }

  private digits(): void {
    const start = this.pos;
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c < 0x30 || c > 0x39) break;
      this.pos++;
    }
    if (this.pos === start) this.fail("invalid number");
  }

  private number(): number {
    const t = this.text;
    const start = this.pos;
    if (t.charCodeAt(this.pos) === 0x2d) this.pos++;
    const first = t.charCodeAt(this.pos);
    if (first === 0x30) {
      this.pos++;
      const next = t.charCodeAt(this.pos);
      if (next >= 0x30 && next <= 0x39) this.fail("invalid number");
    } else {
      this.digits();
    }
    if (t.charCodeAt(this.pos) === 0x2e) {
      this.pos++;
      this.digits();
    }
    const e = t.charCodeAt(this.pos);
    if (e === 0x65 || e === 0x45) {
      this.pos++;
      const sign = t.charCodeAt(this.pos);
      if (sign === 0x2b || sign === 0x2d) this.pos++;
      this.digits();
    }
    const lexeme = t.slice(start, this.pos);
    const value = Number(lexeme);
    if (!Number.isFinite(value)) {
      this.pos = start;
      this.fail("number out of range");
    }
    if (this.message && INTEGER_SYNTAX.test(lexeme)) {
      // The wire's number rules (tests/vectors README, "Numbers"): `-0` is
      // the integer 0; an integer outside i64 and u64 is refused, never
      // rounded (a top-level `id` is left to the envelope's id check).
      if (lexeme === "-0") {
        this.lexeme = undefined;
        return 0;
      }
      const n = BigInt(lexeme);
      // A literal that is exactly its double's ECMAScript (RFC 8785) form is
      // what a canonical encoder writes for that double: nothing is rounded.
      if ((n < I64_MIN || n > U64_MAX) && String(value) !== lexeme && !(this.path.length === 1 && this.path[0] === "id" && this.depth === 1)) {
        const at = this.path.reduce<string>((p, token) => pointerPush(p, token), "");
        this.pos = start;
        this.fail(
          `the integer ${lexeme} at ${at === "" ? "the top level" : at} is outside the 64-bit range (i64 and u64): refused rather than rounded to ${value}`,
        );
      }
    }
    this.lexeme = String(value) === lexeme ? undefined : lexeme;
    return value;
  }

  private hex4(): number {
    const h = this.text.slice(this.pos, this.pos + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(h)) this.fail("invalid escape");
    this.pos += 4;
    return parseInt(h, 16);
  }

  /** A string whose opening quote was consumed. */
  private string(): string {
    const t = this.text;
    let out = "";
    let run = this.pos;
    for (;;) {
      if (this.pos >= t.length) this.fail("EOF while parsing a string");
      const c = t.charCodeAt(this.pos);
      if (c === 0x22) {
        out += t.slice(run, this.pos);
        this.pos++;
        return out;
      }
      if (c < 0x20) this.fail("control character (\\u0000-\\u001F) found while parsing a string");
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      out += t.slice(run, this.pos);
      this.pos++;
      const e = t.charCodeAt(this.pos);
      this.pos++;
      switch (e) {
        case 0x22:
          out += '"';
          break;
        case 0x5c:
          out += "\\";
          break;
        case 0x2f:
          out += "/";
          break;
        case 0x62:
          out += "\b";
          break;
        case 0x66:
          out += "\f";
          break;
        case 0x6e:
          out += "\n";
          break;
        case 0x72:
          out += "\r";
          break;
        case 0x74:
          out += "\t";
          break;
        case 0x75: {
          const unit = this.hex4();
          if (unit >= 0xdc00 && unit <= 0xdfff) this.fail("lone trailing surrogate in hex escape");
          if (unit >= 0xd800 && unit <= 0xdbff) {
            if (t.charCodeAt(this.pos) !== 0x5c || t.charCodeAt(this.pos + 1) !== 0x75) {
              this.fail("lone leading surrogate in hex escape");
            }
            this.pos += 2;
            const low = this.hex4();
            if (low < 0xdc00 || low > 0xdfff) this.fail("lone leading surrogate in hex escape");
            out += String.fromCharCode(unit, low);
          } else {
            out += String.fromCharCode(unit);
          }
          break;
        }
        default:
          this.pos--;
          this.fail("invalid escape");
      }
      run = this.pos;
    }
  }

  private enter(): void {
    this.depth++;
    if (this.depth >= MAX_DEPTH) this.fail("recursion limit exceeded");
    this.pos++;
  }

  private array(): JsonValue[] {
    this.enter();
    const items: JsonValue[] = [];
    this.ws();
    if (this.text.charCodeAt(this.pos) === 0x5d) {
      this.pos++;
      this.depth--;
      return items;
    }
    for (;;) {
      this.ws();
      const index = items.length;
      this.path.push(String(index));
      const item = this.value();
      this.path.pop();
      items.push(item);
      if (this.lexeme !== undefined) setNumberText(items, index, this.lexeme);
      this.ws();
      const c = this.text.charCodeAt(this.pos);
      this.pos++;
      if (c === 0x2c) continue;
      if (c === 0x5d) break;
      this.pos--;
      this.fail(Number.isNaN(c) ? "EOF while parsing a list" : "expected `,` or `]`");
    }
    this.depth--;
    this.lexeme = undefined;
    return items;
  }

  private object(): JsonObject {
    this.enter();
    const object: JsonObject = {};
    const order: string[] = [];
    let integerLike = false;
    this.ws();
    if (this.text.charCodeAt(this.pos) === 0x7d) {
      this.pos++;
      this.depth--;
      return object;
    }
    for (;;) {
      this.ws();
      if (this.text.charCodeAt(this.pos) !== 0x22) {
        this.fail(this.pos >= this.text.length ? "EOF while parsing an object" : "key must be a string");
      }
      this.pos++;
      const key = this.string();
      this.ws();
      if (this.text.charCodeAt(this.pos) !== 0x3a) this.fail("expected `:`");
      this.pos++;
      this.ws();
      const seen = Object.prototype.hasOwnProperty.call(object, key);
      if (seen && this.detectDuplicates && this.duplicate === undefined) {
        this.duplicate = [...this.path, key].reduce<string>((p, token) => pointerPush(p, token), "");
      }
      this.path.push(key);
      const value = this.value();
      this.path.pop();
      if (key === "__proto__") {
        Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
      } else {
        object[key] = value;
      }
      setNumberText(object, key, this.lexeme);
      if (!seen) {
        order.push(key);
        if (INTEGER_LIKE.test(key)) integerLike = true;
      }
      this.ws();
      const c = this.text.charCodeAt(this.pos);
      this.pos++;
      if (c === 0x2c) continue;
      if (c === 0x7d) break;
      this.pos--;
      this.fail(Number.isNaN(c) ? "EOF while parsing an object" : "expected `,` or `}`");
    }
    if (integerLike) {
      const keys = Object.keys(object);
      if (keys.some((key, i) => key !== order[i])) metaOf(object).order = order;
    }
    this.depth--;
    this.lexeme = undefined;
    return object;
  }
}

/**
 * Parses one JSON text in a single pass, as `serde_json` does: JSON
 * whitespace may surround the value, anything else after it is
 * `TrailingData`; a byte order mark, lone surrogate escapes, raw control
 * characters in strings, numbers beyond double range and nesting of 128
 * arrays/objects are `Parse` errors (thrown as {@link JsonSyntaxError}).
 *
 * With `detectDuplicates`, the pointer of the first repeated member name in
 * document order is returned (parsing carries on; the last value wins).
 * With `message` (a wire message), the wire's number rules apply as in the
 * Rust core: `-0` is the integer 0, and an integer literal outside i64 and
 * u64 is a `Parse` error (except a top-level `id`, which the envelope
 * refuses as `InvalidId`).
 */
export function parseJson(
  text: string,
  options: { detectDuplicates?: boolean; message?: boolean } = {},
): ParsedJson {
  return new Parser(text, options.detectDuplicates === true, options.message === true).parseDocument();
}

function isPlainContainer(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

function writeString(s: string): string {
  return JSON.stringify(s);
}

/** The text of a number for re-encoding: as written while the value is unchanged, else JavaScript's shortest form. */
function numberOut(value: number, written: string | undefined): string {
  if (written !== undefined && Object.is(Number(written), value)) return written;
  if (!Number.isFinite(value)) throw new TypeError(`${value} is not a JSON number`);
  return String(value);
}

/**
 * Compact JSON that keeps what was written: member order (recorded order
 * first), numbers as written while unchanged (`9.0` stays `9.0`), strings
 * escaped minimally (`"`, `\`, control characters as `\b \f \n \r \t` or
 * lowercase `\u00XX`). `undefined` object members are left out; a value
 * JSON cannot hold (function, symbol, `undefined` in an array, a
 * non-finite number) throws a `TypeError`. `written` is the text of a
 * top-level number (see {@link ParsedJson.numberText}).
 */
export function stringifyJson(value: unknown, written?: string): string {
  return write(value, written);
}

function write(value: unknown, written: string | undefined): string {
  switch (typeof value) {
    case "string":
      return writeString(value);
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return value.toString();
    case "number":
      return numberOut(value, written);
    case "object": {
      if (value === null) return "null";
      if (Array.isArray(value)) {
        const parts: string[] = [];
        value.forEach((item: unknown, index: number) => {
          if (item === undefined) throw new TypeError(`undefined at array index ${index} is not JSON`);
          parts.push(write(item, numberText(value, index)));
        });
        return `[${parts.join(",")}]`;
      }
      const record = value as Record<string, unknown>;
      const parts: string[] = [];
      for (const name of memberOrder(value)) {
        const member = record[name];
        if (member === undefined) continue;
        parts.push(`${writeString(name)}:${write(member, numberText(value, name))}`);
      }
      return `{${parts.join(",")}}`;
    }
    default:
      throw new TypeError(`a ${typeof value} is not JSON`);
  }
}

/** An integer RFC 8785 cannot write with its own digits; `pointer` names it (relative to the value encoded). */
export class NotCanonicalizableError extends Error {
  /** RFC 6901 pointer of the integer. */
  readonly pointer: string;

  /** Built by {@link canonicalizeJson}. */
  constructor(pointer: string) {
    super(`the integer at ${JSON.stringify(pointer)} has no exact RFC 8785 form (its nearest double prints other digits)`);
    this.name = "NotCanonicalizableError";
    this.pointer = pointer;
  }
}

const TWO_53 = 2n ** 53n;
const I64_MIN = -(2n ** 63n);
const U64_MAX = 2n ** 64n - 1n;

/**
 * Whether `text` is an integer on the wire (integer syntax, within `i64`
 * or `u64`; `-0` is 0); returns the integer then.
 */
export function integerOf(text: string): bigint | undefined {
  if (!INTEGER_SYNTAX.test(text)) return undefined;
  const n = BigInt(text);
  return n >= I64_MIN && n <= U64_MAX ? n : undefined;
}

/** Whether the exact integer `n` keeps its digits in RFC 8785 (the ES form of its nearest double). */
function integerIsCanonical(n: bigint): boolean {
  const magnitude = n < 0n ? -n : n;
  return magnitude <= TWO_53 || String(Number(n)) === n.toString();
}

/** Whether a number keeps its value in RFC 8785 form: floats are doubles already; integers beyond 2^53 must print their own digits. */
function numberIsCanonical(value: number | bigint, written: string | undefined): boolean {
  if (typeof value === "bigint") return integerIsCanonical(value);
  if (written === undefined || !Object.is(Number(written), value)) return true;
  const n = integerOf(written);
  return n === undefined || integerIsCanonical(n);
}

/**
 * The pointer (relative to `value`) of the first number, in written order,
 * that RFC 8785 would not write with its own digits; `undefined` when none.
 */
export function findUncanonicalizable(value: unknown, written?: string): string | undefined {
  return find(value, written, "");
}

function find(value: unknown, written: string | undefined, pointer: string): string | undefined {
  if (typeof value === "number" || typeof value === "bigint") {
    return numberIsCanonical(value, written) ? undefined : pointer;
  }
  if (!isPlainContainer(value)) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = find(value[i], numberText(value, i), pointerPush(pointer, i));
      if (hit !== undefined) return hit;
    }
    return undefined;
  }
  const record = value as Record<string, unknown>;
  for (const name of memberOrder(value)) {
    const hit = find(record[name], numberText(value, name), pointerPush(pointer, name));
    if (hit !== undefined) return hit;
  }
  return undefined;
}

/**
 * RFC 8785 (JCS) canonical JSON: members sorted by UTF-16 code units at
 * every depth, no whitespace, strings as ECMAScript writes them, numbers in
 * ECMAScript form (`9.0` becomes `9`, `1e21` becomes `1e+21`).
 *
 * Throws {@link NotCanonicalizableError} for an integer beyond 2^53 whose
 * nearest double prints other digits (`9007199254740993`), instead of
 * silently changing it; `written` is the text of a top-level number.
 */
export function canonicalizeJson(value: unknown, written?: string): string {
  const bad = findUncanonicalizable(value, written);
  if (bad !== undefined) throw new NotCanonicalizableError(bad);
  return canonical(value);
}

function canonical(value: unknown): string {
  switch (typeof value) {
    case "string":
      return writeString(value);
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return String(Number(value));
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`${value} is not a JSON number`);
      return String(value);
    case "object": {
      if (value === null) return "null";
      if (Array.isArray(value)) {
        return `[${value
          .map((item: unknown, index: number) => {
            if (item === undefined) throw new TypeError(`undefined at array index ${index} is not JSON`);
            return canonical(item);
          })
          .join(",")}]`;
      }
      const record = value as Record<string, unknown>;
      const names = Object.keys(record)
        .filter((name) => record[name] !== undefined)
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${names.map((name) => `${writeString(name)}:${canonical(record[name])}`).join(",")}}`;
    }
    default:
      throw new TypeError(`a ${typeof value} is not JSON`);
  }
}
