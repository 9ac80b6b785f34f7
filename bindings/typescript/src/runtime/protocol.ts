/**
 * Protocol descriptors: what a client needs to know about a protocol at run
 * time (framing, dialect, bounds, per-method timeouts, which capability
 * gates which optional method, how to shut down), typed by the method maps
 * that `wirekit generate` writes.
 *
 * Ready-made descriptors for the wirekit protocols are in `protocols.ts`;
 * {@link protocolFromManifest} builds one from any `protocol.json` manifest.
 *
 * @module
 */

import type { Dialect } from "./envelope.js";
import type { Framing } from "./framing.js";

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
  /** `boolean-object`: `{"name": true|false}`, declared when true. `string-array`: `["name", ...]`, declared when listed. */
  readonly style: "boolean-object" | "string-array";
}

/** What the runtime knows of one method. */
export interface MethodInfo {
  /** A request (answered) or a notification. */
  readonly kind: "request" | "notification";
  /** Who sends it. */
  readonly direction: "client-to-server" | "server-to-client";
  /** How long the client waits for the answer; absent: the client's default. */
  readonly timeoutMs?: number;
  /** Optional methods only: the capability the server must have declared before this may be sent. */
  readonly capability?: string;
  /** Whether params may be omitted. */
  readonly paramsOptional?: boolean;
  /** Whether the answer is a stream rather than a JSON-RPC response (not served by `Client.request`). */
  readonly stream?: boolean;
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
  /** The frame bound, in bytes. */
  readonly maxFrameBytes: number;
  /** Where the server declares its capabilities, when capabilities gate methods. */
  readonly capabilities?: CapabilityDeclaration;
  /** Every method of the protocol. */
  readonly methods: Readonly<Record<string, MethodInfo>>;
  /** The request that ends the session cleanly (sent by `Client.close`). */
  readonly shutdown?: string;
  /** Phantom member carrying the method map types; never present at run time. */
  readonly __types?: { requests: R; notifications: N; serverNotifications: SN };
}

/** A manifest that does not describe a protocol the runtime can use. */
export class ManifestError extends Error {
  /** Built by {@link protocolFromManifest}. */
  constructor(message: string) {
    super(message);
    this.name = "ManifestError";
  }
}

function field(object: unknown, key: string): unknown {
  return typeof object === "object" && object !== null ? (object as Record<string, unknown>)[key] : undefined;
}

function text(object: unknown, key: string, where: string): string {
  const value = field(object, key);
  if (typeof value !== "string") throw new ManifestError(`${where}.${key} must be a string`);
  return value;
}

/**
 * A descriptor from a parsed `protocol.json` manifest (the format of
 * `schemas/wirekit-protocol.schema.json`). Supply the generated method maps
 * as type arguments; they are not checked against the manifest.
 */
export function protocolFromManifest<
  R extends RequestMap<R> = Record<string, { params: unknown; result: unknown }>,
  N extends NotificationMap<N> = Record<string, { params: unknown }>,
  SN extends NotificationMap<SN> = Record<string, { params: unknown }>,
>(manifest: unknown): ProtocolDescriptor<R, N, SN> {
  const transport = field(manifest, "transport");
  const framing = text(transport, "framing", "transport");
  if (framing !== "ndjson" && framing !== "content-length") throw new ManifestError(`unknown framing ${framing}`);
  const dialect = text(transport, "envelope", "transport");
  if (dialect !== "jsonrpc-2.0" && dialect !== "bare") throw new ManifestError(`unknown envelope ${dialect}`);
  const maxFrameBytes = field(transport, "max_frame_bytes");
  if (typeof maxFrameBytes !== "number") throw new ManifestError("transport.max_frame_bytes must be a number");
  const methods: Record<string, MethodInfo> = {};
  let shutdown: string | undefined;
  const listed = field(manifest, "methods");
  if (typeof listed !== "object" || listed === null) throw new ManifestError("methods must be an object");
  for (const [name, spec] of Object.entries(listed)) {
    const kind = text(spec, "kind", `methods.${name}`);
    const direction = text(spec, "direction", `methods.${name}`);
    if (kind !== "request" && kind !== "notification") throw new ManifestError(`methods.${name}: unknown kind ${kind}`);
    if (direction !== "client-to-server" && direction !== "server-to-client") {
      throw new ManifestError(`methods.${name}: unknown direction ${direction}`);
    }
    const info: { -readonly [K in keyof MethodInfo]: MethodInfo[K] } = { kind, direction };
    const timeout = field(spec, "timeout_ms");
    if (typeof timeout === "number") info.timeoutMs = timeout;
    const capability = field(spec, "capability");
    if (typeof capability === "string") info.capability = capability;
    if (field(spec, "params_optional") === true) info.paramsOptional = true;
    const stream = field(spec, "result_stream") !== undefined;
    if (stream) info.stream = true;
    if (field(field(spec, "lifecycle"), "ends_session") === true && !stream && kind === "request") shutdown = name;
    methods[name] = info;
  }
  const out: {
    -readonly [K in keyof ProtocolDescriptor<R, N, SN>]: ProtocolDescriptor<R, N, SN>[K];
  } = {
    name: text(manifest, "protocol", "manifest"),
    version: text(manifest, "version", "manifest"),
    framing,
    dialect,
    strict: field(transport, "strict") === true,
    canonical: field(transport, "canonical") === true,
    maxFrameBytes,
    methods,
  };
  const caps = field(manifest, "capabilities");
  if (caps !== undefined) {
    const style = text(caps, "style", "capabilities");
    if (style !== "boolean-object" && style !== "string-array") throw new ManifestError(`unknown capability style ${style}`);
    out.capabilities = { method: text(caps, "method", "capabilities"), pointer: text(caps, "pointer", "capabilities"), style };
  }
  if (shutdown !== undefined) out.shutdown = shutdown;
  return out;
}
