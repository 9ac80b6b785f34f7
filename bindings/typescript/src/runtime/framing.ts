/**
 * Bounded, I/O-free framing for JSON-RPC over byte streams: push decoders and
 * encoders for `Content-Length` (LSP base protocol) and NDJSON, with exactly
 * the rules of the Rust core (`wirekit::framing`).
 *
 * A decoder is fed bytes with {@link FrameDecoder.push} as they arrive,
 * told about end of input with {@link FrameDecoder.finish}, and drained
 * with {@link FrameDecoder.next} (or {@link FrameDecoder.drain}). It yields
 * {@link Frame}s (UTF-8 bodies, not yet parsed as JSON) and
 * {@link FramingError}s, each at the byte offset in the stream where its
 * frame starts. Results never depend on how the input was split.
 *
 * Bounds ({@link FrameLimits}) are enforced before bytes are kept: a declared
 * `Content-Length` over the frame bound is refused on the header alone, a
 * header section as soon as its first byte over the header bound arrives,
 * an NDJSON line as soon as it is known to be over the bound (the decoder
 * then skips through the next LF, holding nothing).
 *
 * Every `Content-Length` fault ends the stream (the decoder is dead and
 * ignores further input); no NDJSON fault does.
 *
 * @module
 */

/** How messages are delimited on a byte stream: `"ndjson"` or `"content-length"`. */
export type Framing = "ndjson" | "content-length";

/** Both framings. */
export const FRAMINGS: readonly Framing[] = ["ndjson", "content-length"];

/** The stable names of framing faults, as used by the shared test vectors. */
export type FaultKind =
  | "HeaderTooLong"
  | "FrameTooLong"
  | "MissingContentLength"
  | "DuplicateContentLength"
  | "BadContentLength"
  | "MalformedHeader"
  | "BodyNotUtf8"
  | "TruncatedFrame"
  | "EmptyFrame"
  | "EmbeddedNewline"
  | "BareCarriageReturn";

/** Every fault kind, in the Rust core's declaration order. */
export const FAULT_KINDS: readonly FaultKind[] = [
  "HeaderTooLong",
  "FrameTooLong",
  "MissingContentLength",
  "DuplicateContentLength",
  "BadContentLength",
  "MalformedHeader",
  "BodyNotUtf8",
  "TruncatedFrame",
  "EmptyFrame",
  "EmbeddedNewline",
  "BareCarriageReturn",
];

/** The size bounds of one framing. */
export interface FrameLimits {
  /** Largest body (`Content-Length`) or line without its line ending (NDJSON), in bytes. */
  readonly maxFrameBytes: number;
  /** Largest `Content-Length` header section in bytes, its terminating blank line included. NDJSON ignores it. */
  readonly maxHeaderBytes: number;
  /**
   * NDJSON only: strict line endings, as a strict protocol reads them ("one
   * NDJSON line"). A line ends with LF or CRLF and holds no other CR: a bare
   * CR anywhere in it (`\r\r\n` included, or a final line ending in CR
   * without LF) is a `BareCarriageReturn` fault. Lenient (absent or false):
   * such CRs stay line bytes.
   */
  readonly strictLineEndings?: boolean;
}

/** The `Content-Length` frame bound: 16 MiB. */
export const CONTENT_LENGTH_MAX_FRAME_BYTES = 16 * 1024 * 1024;
/** The `Content-Length` header section bound: 8 KiB. */
export const CONTENT_LENGTH_MAX_HEADER_BYTES = 8 * 1024;
/** The NDJSON line bound: 1 MiB. */
export const NDJSON_MAX_FRAME_BYTES = 1024 * 1024;

/**
 * The default limits of a framing: 16 MiB frames and 8 KiB header sections
 * for `Content-Length`, 1 MiB lines for NDJSON (its header bound is set to
 * 8 KiB too, so the limits stay sane if reused).
 */
export function defaultLimits(framing: Framing): FrameLimits {
  return framing === "content-length"
    ? { maxFrameBytes: CONTENT_LENGTH_MAX_FRAME_BYTES, maxHeaderBytes: CONTENT_LENGTH_MAX_HEADER_BYTES }
    : { maxFrameBytes: NDJSON_MAX_FRAME_BYTES, maxHeaderBytes: CONTENT_LENGTH_MAX_HEADER_BYTES };
}

/** One decoded message body: valid UTF-8 text, not yet parsed as JSON. */
export interface Frame {
  /** Byte offset in the stream of the frame's first header byte (`Content-Length`) or first line byte (NDJSON). */
  readonly offset: number;
  /** The body, without header or line ending. */
  readonly body: string;
}

/** A decoder fault (the peer sent bytes that do not frame) or an encoder refusal. */
export class FramingError extends Error {
  /** What went wrong. */
  readonly kind: FaultKind;
  /** The framing whose decoder or encoder reported this. */
  readonly framing: Framing;
  /** Stream byte offset where the faulty frame or line starts; always 0 for an encoder refusal. */
  readonly offset: number;
  /** A sentence a person understands. */
  readonly detail: string;
  /** Whether an encoder refused a body (rather than a decoder reporting a fault). */
  readonly isEncode: boolean;
  /**
   * NDJSON decoder faults: the first bytes of the refused line (at most the
   * frame bound; empty otherwise), from which a server recovers the id to
   * answer with where the protocol says so (the core's `FramingError::head`).
   */
  head: Uint8Array = new Uint8Array(0);

  /** Prefer the decoders and encoders of this module, which build these. */
  constructor(kind: FaultKind, framing: Framing, offset: number, detail: string, isEncode = false) {
    super(
      isEncode
        ? `${framing} encoder refused the body: ${kind}: ${detail}`
        : `${framing} framing fault at byte ${offset}: ${kind}: ${detail}`,
    );
    this.name = "FramingError";
    this.kind = kind;
    this.framing = framing;
    this.offset = offset;
    this.detail = detail;
    this.isEncode = isEncode;
  }

  /** Whether this fault ended the stream: every `Content-Length` decoder fault does, no NDJSON fault and no encoder refusal does. */
  get endsStream(): boolean {
    return !this.isEncode && this.framing === "content-length";
  }
}

/** What a decoder yields: a frame or a fault. */
export type DecodeResult = Frame | FramingError;

/** An I/O-free, bounded push decoder. */
export interface FrameDecoder {
  /** The framing decoded. */
  readonly framing: Framing;
  /** The limits enforced. */
  readonly limits: FrameLimits;
  /** Process the next bytes of the stream. Ignored once the decoder is dead or finished. */
  push(chunk: Uint8Array): void;
  /** End of input: a partial frame becomes a fault (`Content-Length`) or a last frame (NDJSON). Later pushes are ignored. */
  finish(): void;
  /** The next completed frame or fault, in stream order, or `undefined` when none is queued. */
  next(): DecodeResult | undefined;
  /** Take every queued frame and fault. */
  drain(): DecodeResult[];
  /** Bytes held: the partial frame, plus the UTF-8 size of the bodies of queued frames. */
  readonly bufferedBytes: number;
  /** Whether a fault has ended the stream (`Content-Length` only). */
  readonly isDead: boolean;
}

/** A frame encoder: shapes one body into the bytes of one frame. */
export interface FrameEncoder {
  /** The framing encoded. */
  readonly framing: Framing;
  /** The limits enforced. */
  readonly limits: FrameLimits;
  /**
   * The frame for `body` (text is encoded as UTF-8). Throws a
   * {@link FramingError} (with `isEncode`) when the body would not decode
   * back to the same frame.
   */
  encode(body: string | Uint8Array): Uint8Array;
}

const LF = 0x0a;
const CR = 0x0d;
const TAB = 0x09;

const encoder = new TextEncoder();

/** Strict UTF-8 decoding: invalid bytes throw, and a byte order mark is kept as U+FEFF. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Index of the first byte where `bytes` stops being valid UTF-8 (Rust's `valid_up_to`), for fault details. */
function validUpTo(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] as number;
    if (lead < 0x80) {
      i++;
      continue;
    }
    let count: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) count = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      count = 2;
      if (lead === 0xe0) lo = 0xa0;
      if (lead === 0xed) hi = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      count = 3;
      if (lead === 0xf0) lo = 0x90;
      if (lead === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= count; k++) {
      const next = bytes[i + k];
      const [min, max] = k === 1 ? [lo, hi] : [0x80, 0xbf];
      if (next === undefined || next < min || next > max) return i;
    }
    i += count + 1;
  }
  return i;
}

/** A UTF-16 surrogate without its pair: not encodable as UTF-8. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** UTF-8 bytes of `body`, or `undefined` when it is a string holding a lone surrogate (not encodable as UTF-8). */
function bodyBytes(body: string | Uint8Array): Uint8Array | undefined {
  if (typeof body === "string") {
    return LONE_SURROGATE.test(body) ? undefined : encoder.encode(body);
  }
  return decodeUtf8(body) === undefined ? undefined : body;
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1 && chunks[0] !== undefined && chunks[0].length === total) return chunks[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** `text` for a detail message: JSON-quoted, cut to 40 characters. */
function quote(text: string): string {
  const chars = Array.from(text);
  return chars.length <= 40 ? JSON.stringify(text) : `${JSON.stringify(chars.slice(0, 40).join(""))}...`;
}

/** The queue of completed frames and faults. */
class Outbox {
  private items: DecodeResult[] = [];
  private sizes: number[] = [];
  private head = 0;
  bytes = 0;

  frame(frame: Frame, bytes: number): void {
    this.bytes += bytes;
    this.items.push(frame);
    this.sizes.push(bytes);
  }

  fault(error: FramingError): void {
    this.items.push(error);
    this.sizes.push(0);
  }

  pop(): DecodeResult | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.bytes -= this.sizes[this.head] ?? 0;
    this.head += 1;
    if (this.head === this.items.length) {
      this.items = [];
      this.sizes = [];
      this.head = 0;
    }
    return item;
  }

  drain(): DecodeResult[] {
    const out = this.items.slice(this.head);
    this.items = [];
    this.sizes = [];
    this.head = 0;
    this.bytes = 0;
    return out;
  }
}

/** RFC 9110 `tchar`. */
function isTokenChar(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    "!#$%&'*+-.^_`|~".includes(String.fromCharCode(code))
  );
}

/** Rust's `char::is_control`: general category Cc. */
function isControl(code: number): boolean {
  return code <= 0x1f || (code >= 0x7f && code <= 0x9f);
}

const U64_MAX = 18446744073709551615n;

type HeaderOutcome = { complete: number } | { fault: FaultKind; detail: string };

/** Incremental parser of one LSP header section, byte by byte. */
class HeaderParser {
  private line: number[] = [];
  sectionLen = 0;
  private lines = 0;
  private pendingCr = false;
  private contentLength: number | undefined;

  get heldBytes(): number {
    return this.line.length;
  }

  /** Reads header bytes from `bytes[from..]`; returns how many were consumed and the outcome when the section ended. */
  feed(bytes: Uint8Array, from: number, limits: FrameLimits): [number, HeaderOutcome | undefined] {
    for (let index = from; index < bytes.length; index++) {
      const byte = bytes[index] as number;
      const used = index - from + 1;
      if (this.sectionLen >= limits.maxHeaderBytes) {
        return [
          used,
          {
            fault: "HeaderTooLong",
            detail: `header section exceeds the bound of ${limits.maxHeaderBytes} bytes without reaching its blank line`,
          },
        ];
      }
      this.sectionLen += 1;
      const lineNo = this.lines + 1;
      if (this.pendingCr) {
        this.pendingCr = false;
        if (byte !== LF) {
          return [used, { fault: "MalformedHeader", detail: `header line ${lineNo} has a CR not followed by LF` }];
        }
        const outcome = this.line.length === 0 ? this.endSection() : this.endLine(limits);
        if (outcome !== undefined) return [used, outcome];
      } else if (byte === CR) {
        this.pendingCr = true;
      } else if (byte === LF) {
        return [
          used,
          { fault: "MalformedHeader", detail: `header line ${lineNo} ends with a bare LF; header lines end with CRLF` },
        ];
      } else {
        this.line.push(byte);
      }
    }
    return [bytes.length - from, undefined];
  }

  private endSection(): HeaderOutcome {
    if (this.contentLength !== undefined) return { complete: this.contentLength };
    return {
      fault: "MissingContentLength",
      detail: `header section of ${this.lines} line(s) has no Content-Length header`,
    };
  }

  private endLine(limits: FrameLimits): HeaderOutcome | undefined {
    this.lines += 1;
    const n = this.lines;
    const text = decodeUtf8(Uint8Array.from(this.line));
    if (text === undefined) return { fault: "MalformedHeader", detail: `header line ${n} is not UTF-8 text` };
    for (const c of text) {
      const code = c.codePointAt(0) as number;
      if (isControl(code) && code !== TAB) {
        const hex = code.toString(16).toUpperCase().padStart(4, "0");
        return { fault: "MalformedHeader", detail: `header line ${n} contains the control character U+${hex}` };
      }
    }
    const colon = text.indexOf(":");
    if (colon < 0) return { fault: "MalformedHeader", detail: `header line ${n} has no colon: ${quote(text)}` };
    const name = text.slice(0, colon);
    const rawValue = text.slice(colon + 1);
    if (name.length === 0) return { fault: "MalformedHeader", detail: `header line ${n} has an empty name` };
    for (let i = 0; i < name.length; i++) {
      if (!isTokenChar(name.charCodeAt(i))) {
        return {
          fault: "MalformedHeader",
          detail: `header line ${n} has the name ${quote(name)}, which is not an HTTP token`,
        };
      }
    }
    if (name.toLowerCase() === "content-length") {
      if (this.contentLength !== undefined) {
        return { fault: "DuplicateContentLength", detail: `header line ${n} is a second Content-Length header` };
      }
      const value = rawValue.replace(/^[ \t]+|[ \t]+$/g, "");
      let why: string | undefined;
      if (value.length === 0) why = "is empty";
      else if (!/^[0-9]+$/.test(value)) why = "is not a decimal byte count (ASCII digits only)";
      else if (BigInt(value) > U64_MAX) why = "overflows a 64-bit byte count";
      if (why !== undefined) {
        return { fault: "BadContentLength", detail: `Content-Length value ${quote(value)} ${why}` };
      }
      const declared = BigInt(value);
      if (declared > BigInt(limits.maxFrameBytes)) {
        return {
          fault: "FrameTooLong",
          detail: `declared Content-Length ${declared} exceeds the frame bound of ${limits.maxFrameBytes} bytes`,
        };
      }
      this.contentLength = Number(declared);
    }
    this.line = [];
    return undefined;
  }
}

type ClState =
  | { tag: "header"; parser: HeaderParser }
  | { tag: "body"; declared: number; chunks: Uint8Array[]; have: number }
  | { tag: "dead" };

/** Bounded push decoder for `Content-Length` frames. Every fault ends the stream. */
export class ContentLengthDecoder implements FrameDecoder {
  /** Always `"content-length"`. */
  readonly framing: Framing = "content-length";
  /** The limits enforced. */
  readonly limits: FrameLimits;
  private state: ClState = { tag: "header", parser: new HeaderParser() };
  private offset = 0;
  private frameStart = 0;
  private finished = false;
  private readonly out = new Outbox();

  /** A decoder at the start of a stream (default limits: 16 MiB frames, 8 KiB headers). */
  constructor(limits: FrameLimits = defaultLimits("content-length")) {
    this.limits = limits;
  }

  private fail(kind: FaultKind, detail: string): void {
    this.state = { tag: "dead" };
    this.out.fault(new FramingError(kind, "content-length", this.frameStart, detail));
  }

  private complete(body: Uint8Array): void {
    const text = decodeUtf8(body);
    if (text === undefined) {
      this.fail(
        "BodyNotUtf8",
        `frame body of ${body.length} bytes is not valid UTF-8 (first invalid byte at body byte ${validUpTo(body)})`,
      );
      return;
    }
    this.out.frame({ offset: this.frameStart, body: text }, body.length);
    this.frameStart = this.offset;
    this.state = { tag: "header", parser: new HeaderParser() };
  }

  push(chunk: Uint8Array): void {
    if (this.finished) return;
    let at = 0;
    while (at < chunk.length) {
      const state = this.state;
      if (state.tag === "dead") return;
      if (state.tag === "header") {
        const [used, outcome] = state.parser.feed(chunk, at, this.limits);
        this.offset += used;
        at += used;
        if (outcome === undefined) continue;
        if ("fault" in outcome) this.fail(outcome.fault, outcome.detail);
        else if (outcome.complete === 0) this.complete(new Uint8Array(0));
        else this.state = { tag: "body", declared: outcome.complete, chunks: [], have: 0 };
      } else {
        const take = Math.min(state.declared - state.have, chunk.length - at);
        // Copy: the caller may reuse its buffer.
        state.chunks.push(chunk.slice(at, at + take));
        state.have += take;
        this.offset += take;
        at += take;
        if (state.have === state.declared) this.complete(concat(state.chunks, state.have));
      }
    }
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    const state = this.state;
    if (state.tag === "dead") return;
    if (state.tag === "header") {
      if (state.parser.sectionLen === 0) return;
      this.fail("TruncatedFrame", `input ended inside a header section, after ${state.parser.sectionLen} header bytes`);
      return;
    }
    this.fail("TruncatedFrame", `input ended after ${state.have} of ${state.declared} declared body bytes`);
  }

  next(): DecodeResult | undefined {
    return this.out.pop();
  }

  drain(): DecodeResult[] {
    return this.out.drain();
  }

  get bufferedBytes(): number {
    const state = this.state;
    const partial = state.tag === "header" ? state.parser.heldBytes : state.tag === "body" ? state.have : 0;
    return partial + this.out.bytes;
  }

  get isDead(): boolean {
    return this.state.tag === "dead";
  }
}

/** Bounded push decoder for NDJSON lines. No fault ends the stream. */
export class NdjsonDecoder implements FrameDecoder {
  /** Always `"ndjson"`. */
  readonly framing: Framing = "ndjson";
  /** The limits enforced. */
  readonly limits: FrameLimits;
  /** The current line: at most `maxFrameBytes` bytes, or one more when that last byte is a CR. */
  private line: Uint8Array[] = [];
  private lineLen = 0;
  private lastByte = -1;
  private lineStart = 0;
  private offset = 0;
  private skipping = false;
  private finished = false;
  private readonly out = new Outbox();

  /** A decoder at the start of a stream (default limit: 1 MiB lines). */
  constructor(limits: FrameLimits = defaultLimits("ndjson")) {
    this.limits = limits;
  }

  private fault(kind: FaultKind, detail: string, head?: Uint8Array): void {
    const error = new FramingError(kind, "ndjson", this.lineStart, detail);
    if (head !== undefined) error.head = head;
    this.out.fault(error);
  }

  /** The first bytes of a line over the bound: what is held and `piece`, at most the bound. */
  private headOfLongLine(piece: Uint8Array): Uint8Array {
    const max = this.limits.maxFrameBytes;
    const held = concat(this.line, this.lineLen);
    const room = Math.max(0, max - held.length);
    return concat([held, piece.subarray(0, room)], held.length + Math.min(room, piece.length)).slice(0, max);
  }

  private clearLine(): void {
    this.line = [];
    this.lineLen = 0;
    this.lastByte = -1;
  }

  private refuseLine(detail: string, piece: Uint8Array): void {
    const head = this.headOfLongLine(piece);
    this.clearLine();
    this.skipping = true;
    this.fault("FrameTooLong", detail, head);
  }

  private extendLine(piece: Uint8Array): void {
    const max = this.limits.maxFrameBytes;
    const total = this.lineLen + piece.length;
    const endsInCr = piece[piece.length - 1] === CR;
    if (total > max + 1 || (total > max && !endsInCr)) {
      this.refuseLine(`line exceeds the frame bound of ${max} bytes; skipping to the next LF`, piece);
      return;
    }
    this.line.push(piece.slice());
    this.lineLen = total;
    this.lastByte = piece[piece.length - 1] as number;
  }

  private endLine(piece: Uint8Array, withLf: boolean): void {
    const total = this.lineLen + piece.length;
    const last = piece.length > 0 ? (piece[piece.length - 1] as number) : this.lastByte;
    const strict = this.limits.strictLineEndings === true;
    // Strict: only a CR before the LF is a line ending.
    const endsInCr = last === CR && (withLf || !strict);
    const length = total - (endsInCr ? 1 : 0);
    if (length > this.limits.maxFrameBytes) {
      this.refuseLine(`line of ${length} bytes exceeds the frame bound of ${this.limits.maxFrameBytes} bytes`, piece);
      this.skipping = false;
      return;
    }
    const chunks = this.line;
    chunks.push(piece);
    this.clearLine();
    const bytes = concat(chunks, total).subarray(0, length);
    const bareCr = strict ? bytes.indexOf(CR) : -1;
    if (bareCr >= 0) {
      this.fault("BareCarriageReturn", `bare CR at line byte ${bareCr}; a line holds one JSON value and ends with LF or CRLF`, bytes.slice());
      return;
    }
    if (bytes.length === 0) {
      this.fault(
        "EmptyFrame",
        endsInCr
          ? "line holds only a CR; an NDJSON frame is one JSON value"
          : "line is empty; an NDJSON frame is one JSON value",
      );
      return;
    }
    const text = decodeUtf8(bytes);
    if (text === undefined) {
      this.fault(
        "BodyNotUtf8",
        `line of ${bytes.length} bytes is not valid UTF-8 (first invalid byte at line byte ${validUpTo(bytes)})`,
        bytes.slice(),
      );
      return;
    }
    this.out.frame({ offset: this.lineStart, body: text }, bytes.length);
  }

  push(chunk: Uint8Array): void {
    if (this.finished) return;
    let at = 0;
    for (;;) {
      const lf = chunk.indexOf(LF, at);
      if (lf < 0) break;
      if (this.skipping) this.skipping = false;
      else this.endLine(chunk.subarray(at, lf), true);
      this.offset += lf - at + 1;
      this.lineStart = this.offset;
      at = lf + 1;
    }
    if (at < chunk.length) {
      if (!this.skipping) this.extendLine(chunk.subarray(at));
      this.offset += chunk.length - at;
    }
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.skipping) this.skipping = false;
    else if (this.lineLen > 0) this.endLine(new Uint8Array(0), false);
  }

  next(): DecodeResult | undefined {
    return this.out.pop();
  }

  drain(): DecodeResult[] {
    return this.out.drain();
  }

  get bufferedBytes(): number {
    return this.lineLen + this.out.bytes;
  }

  /** Always `false`: no NDJSON fault ends the stream. */
  get isDead(): boolean {
    return false;
  }
}

/** Encoder for `Content-Length` frames: writes `Content-Length: N\r\n\r\n` and the body. */
export class ContentLengthEncoder implements FrameEncoder {
  /** Always `"content-length"`. */
  readonly framing: Framing = "content-length";
  /** The limits enforced. */
  readonly limits: FrameLimits;

  /** An encoder refusing bodies over `limits.maxFrameBytes`. */
  constructor(limits: FrameLimits = defaultLimits("content-length")) {
    this.limits = limits;
  }

  /** Refuses a body over the frame bound (`FrameTooLong`), not UTF-8 (`BodyNotUtf8`), or a header over the header bound (`HeaderTooLong`). */
  encode(body: string | Uint8Array): Uint8Array {
    const length = typeof body === "string" ? encoder.encode(body).length : body.length;
    if (length > this.limits.maxFrameBytes) {
      throw new FramingError(
        "FrameTooLong",
        this.framing,
        0,
        `body of ${length} bytes exceeds the frame bound of ${this.limits.maxFrameBytes} bytes`,
        true,
      );
    }
    const bytes = bodyBytes(body);
    if (bytes === undefined) throw new FramingError("BodyNotUtf8", this.framing, 0, "body is not valid UTF-8", true);
    const header = encoder.encode(`Content-Length: ${bytes.length}\r\n\r\n`);
    if (header.length > this.limits.maxHeaderBytes) {
      throw new FramingError(
        "HeaderTooLong",
        this.framing,
        0,
        `header section of ${header.length} bytes exceeds the header bound of ${this.limits.maxHeaderBytes} bytes`,
        true,
      );
    }
    return concat([header, bytes], header.length + bytes.length);
  }
}

/** Encoder for NDJSON lines: writes the body and exactly one LF. */
export class NdjsonEncoder implements FrameEncoder {
  /** Always `"ndjson"`. */
  readonly framing: Framing = "ndjson";
  /** The limits enforced. */
  readonly limits: FrameLimits;

  /** An encoder refusing bodies over `limits.maxFrameBytes`. */
  constructor(limits: FrameLimits = defaultLimits("ndjson")) {
    this.limits = limits;
  }

  /** Refuses, in this order: over the frame bound (`FrameTooLong`), empty (`EmptyFrame`), a raw LF or CR (`EmbeddedNewline`), not UTF-8 (`BodyNotUtf8`). */
  encode(body: string | Uint8Array): Uint8Array {
    const refuse = (kind: FaultKind, detail: string): never => {
      throw new FramingError(kind, this.framing, 0, detail, true);
    };
    const raw = typeof body === "string" ? encoder.encode(body) : body;
    if (raw.length > this.limits.maxFrameBytes) {
      refuse("FrameTooLong", `body of ${raw.length} bytes exceeds the frame bound of ${this.limits.maxFrameBytes} bytes`);
    }
    if (raw.length === 0) refuse("EmptyFrame", "body is empty; an empty line decodes as EmptyFrame");
    const at = raw.findIndex((b) => b === LF || b === CR);
    if (at >= 0) {
      refuse("EmbeddedNewline", `body contains a raw ${raw[at] === LF ? "LF" : "CR"} at byte ${at}; an NDJSON frame is one line`);
    }
    const bytes = bodyBytes(body);
    if (bytes === undefined) refuse("BodyNotUtf8", "body is not valid UTF-8");
    return concat([raw, Uint8Array.of(LF)], raw.length + 1);
  }
}

/** A decoder for `framing` with `limits` (default: the framing's defaults). */
export function decoderFor(framing: Framing, limits: FrameLimits = defaultLimits(framing)): FrameDecoder {
  return framing === "content-length" ? new ContentLengthDecoder(limits) : new NdjsonDecoder(limits);
}

/** An encoder for `framing` with `limits` (default: the framing's defaults). */
export function encoderFor(framing: Framing, limits: FrameLimits = defaultLimits(framing)): FrameEncoder {
  return framing === "content-length" ? new ContentLengthEncoder(limits) : new NdjsonEncoder(limits);
}
