/**
 * The driver protocol's companion data plane, the host's side: an I/O-free
 * decoder with the Rust core's rules (wirekit::dataplane) and fault kinds,
 * checked on the same vectors (tests/vectors/dataplane).
 *
 * A frame: a 4-byte big-endian header length (1 to 4096), the
 * DataFrameHeader as RFC 8785 JSON, then `length` payload bytes; `length`
 * at most 256 KiB or the negotiated lower bound, checked before a payload
 * byte is buffered; sequences strictly increase per stream; the final
 * frame closes it; only streams an observation announced are read.
 */

export const DEFAULT_MAX_DATA_FRAME_BYTES = 256 * 1024;
export const MAX_DATA_HEADER_BYTES = 4096;

export interface DataFrameHeader {
  invocation_id: string;
  attempt_id: string;
  stream_id: string;
  sequence: number;
  length: number;
  final: boolean;
}

export interface DataFrame {
  header: DataFrameHeader;
  payload: Uint8Array;
}

export type DataFaultKind =
  | "header-too-large"
  | "invalid-header"
  | "too-large"
  | "out-of-sequence"
  | "after-final"
  | "truncated"
  | "unknown-stream"
  | "identity-mismatch";

export class DataPlaneError extends Error {
  constructor(
    readonly kind: DataFaultKind,
    readonly offset: number,
    message: string,
  ) {
    super(`${kind} at byte ${offset}: ${message}`);
  }
}

interface Stream {
  invocationId: string;
  attemptId: string;
  last: number | undefined;
  closed: boolean;
}

const MEMBERS: Record<keyof DataFrameHeader, string> = {
  invocation_id: "string",
  attempt_id: "string",
  stream_id: "string",
  sequence: "number",
  length: "number",
  final: "boolean",
};

function parseHeader(bytes: Uint8Array): DataFrameHeader | string {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return "the header is not UTF-8";
  }
  const seen = new Set<string>();
  let duplicate: string | undefined;
  let value: unknown;
  try {
    value = JSON.parse(text, function (this: unknown, key: string, member: unknown) {
      if (this !== null && typeof this === "object" && !Array.isArray(this) && key !== "") {
        if (seen.has(key)) duplicate = key;
        seen.add(key);
      }
      return member;
    });
  } catch (error) {
    return `the header is not one JSON value: ${(error as Error).message}`;
  }
  // JSON.parse keeps the last of two equal members: find repeats in the text.
  const names = [...text.matchAll(/"((?:[^"\\]|\\.)*)"\s*:/g)].map((m) => m[1]);
  if (duplicate !== undefined || new Set(names).size !== names.length) return "the header repeats a member";
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "the header is not an object";
  const header = value as Record<string, unknown>;
  const keys = Object.keys(header).sort();
  if (keys.join(",") !== Object.keys(MEMBERS).sort().join(",")) return `the header has members ${keys.join(", ")}`;
  for (const [name, kind] of Object.entries(MEMBERS)) {
    if (typeof header[name] !== kind) return `${name} is not a ${kind}`;
  }
  const sequence = header["sequence"] as number;
  const length = header["length"] as number;
  if (!Number.isInteger(sequence) || sequence < 0 || !Number.isInteger(length) || length < 0 || length > 0xffffffff) {
    return "sequence and length are unsigned integers";
  }
  if (header["stream_id"] === "" || header["invocation_id"] === "" || header["attempt_id"] === "") {
    return "invocation_id, attempt_id and stream_id are required (non-empty)";
  }
  return header as unknown as DataFrameHeader;
}

/** Push bytes in any chunks, take whole frames; holds at most one frame. */
export class DataDecoder {
  readonly maxFrameBytes: number;
  private readonly streams = new Map<string, Stream>();
  private buffer = new Uint8Array(4);
  private filled = 0;
  private want = 4;
  private state: "prefix" | "header" | "payload" = "prefix";
  private header: DataFrameHeader | undefined;
  private frameOffset = 0;
  private offset = 0;
  fault: DataPlaneError | undefined;

  constructor(maxFrameBytes: number = DEFAULT_MAX_DATA_FRAME_BYTES) {
    this.maxFrameBytes = Math.min(maxFrameBytes, DEFAULT_MAX_DATA_FRAME_BYTES);
  }

  announce(streamId: string, invocationId: string, attemptId: string): void {
    if (!this.streams.has(streamId)) this.streams.set(streamId, { invocationId, attemptId, last: undefined, closed: false });
  }

  isClosed(streamId: string): boolean {
    return this.streams.get(streamId)?.closed === true;
  }

  /** The frames `input` completes, then the fault that stopped decoding, if any. */
  push(input: Uint8Array): (DataFrame | DataPlaneError)[] {
    const out: (DataFrame | DataPlaneError)[] = [];
    let at = 0;
    while (this.fault === undefined && (at < input.length || (this.state === "payload" && this.want === 0))) {
      const take = Math.min(this.want - this.filled, input.length - at);
      this.buffer.set(input.subarray(at, at + take), this.filled);
      this.filled += take;
      at += take;
      this.offset += take;
      if (this.filled < this.want) break;
      const step = this.step();
      if (step !== undefined) out.push(step);
    }
    return out;
  }

  /** The input has ended: a `truncated` fault inside a frame. */
  finish(): DataPlaneError | undefined {
    if (this.fault !== undefined) return this.fault;
    if (this.state !== "prefix" || this.filled > 0) {
      return this.fail("truncated", `the input ended inside a frame (${this.offset - this.frameOffset} bytes of it read)`);
    }
    return undefined;
  }

  private expect(length: number): void {
    this.want = length;
    this.filled = 0;
    this.buffer = new Uint8Array(length);
  }

  private fail(kind: DataFaultKind, message: string): DataPlaneError {
    this.fault = new DataPlaneError(kind, this.frameOffset, message);
    this.buffer = new Uint8Array(0);
    return this.fault;
  }

  private step(): DataFrame | DataPlaneError | undefined {
    if (this.state === "prefix") {
      const length = new DataView(this.buffer.buffer, this.buffer.byteOffset, 4).getUint32(0);
      if (length === 0 || length > MAX_DATA_HEADER_BYTES) {
        return this.fail("header-too-large", `a header of ${length} bytes; a header has 1 to ${MAX_DATA_HEADER_BYTES}`);
      }
      this.state = "header";
      this.expect(length);
      return undefined;
    }
    if (this.state === "header") {
      const header = parseHeader(this.buffer);
      if (typeof header === "string") return this.fail("invalid-header", header);
      const fault = this.admit(header);
      if (fault !== undefined) return fault;
      this.header = header;
      this.state = "payload";
      this.expect(header.length);
      return undefined;
    }
    const header = this.header as DataFrameHeader;
    const payload = this.buffer;
    const stream = this.streams.get(header.stream_id) as Stream;
    stream.last = header.sequence;
    stream.closed = header.final;
    this.state = "prefix";
    this.header = undefined;
    this.expect(4);
    this.frameOffset = this.offset;
    return { header, payload };
  }

  private admit(header: DataFrameHeader): DataPlaneError | undefined {
    if (header.length > this.maxFrameBytes) {
      return this.fail("too-large", `a ${header.length}-byte payload, over the bound of ${this.maxFrameBytes} bytes`);
    }
    const stream = this.streams.get(header.stream_id);
    if (stream === undefined) return this.fail("unknown-stream", `stream ${JSON.stringify(header.stream_id)} was never announced`);
    if (stream.invocationId !== header.invocation_id || stream.attemptId !== header.attempt_id) {
      return this.fail("identity-mismatch", `stream ${JSON.stringify(header.stream_id)} belongs to another invocation or attempt`);
    }
    if (stream.closed) return this.fail("after-final", `a frame for stream ${JSON.stringify(header.stream_id)} after its final frame`);
    if (stream.last !== undefined && header.sequence <= stream.last) {
      return this.fail("out-of-sequence", `sequence ${header.sequence} after ${stream.last}`);
    }
    return undefined;
  }
}
