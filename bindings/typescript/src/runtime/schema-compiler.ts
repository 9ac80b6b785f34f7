/**
 * Compiles a protocol's schemas with `@hyperjump/json-schema` from
 * synchronous code: the library compiles asynchronously, so a worker thread
 * (`schema-worker.ts`, started once and kept, not keeping the process
 * alive) does it while this thread waits on a shared flag, then reads the
 * answer off the port synchronously. A compiled schema comes back
 * serialized (`hyperjump.ts` interprets it).
 *
 * @module
 */

import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";

/** One schema file: its retrieval URI (the protocol's base joined with its name) and its text. */
export interface SchemaFile {
  readonly uri: string;
  readonly text: string;
}

/** What to compile. */
export interface CompileRequest {
  /** Every schema file of the protocol. */
  readonly files: readonly SchemaFile[];
  /** The dialect of a file without `$schema`. */
  readonly dialect: string;
  /** Whether `format` asserts. */
  readonly assertFormats: boolean;
  /** The absolute URIs of the schemas to compile (the manifest's `$ref`s, resolved). */
  readonly entries: readonly string[];
}

/** One compiled entry, or why it could not be compiled. */
export type CompiledEntry =
  | {
      /** The compiled schema, serialized. */
      readonly compiled: string;
      /** The ids of every keyword the entry reaches (`https://json-schema.org/keyword/unevaluatedProperties`, ...). */
      readonly keywords: readonly string[];
      /** The dialect of every schema resource the entry reaches. */
      readonly dialects: readonly string[];
    }
  | { readonly error: string };

/** The worker's answer: the entries in order, or the error that stopped them all (in a file, or none). */
export interface CompileReply {
  readonly entries?: readonly CompiledEntry[];
  readonly error?: { readonly file?: string | undefined; readonly message: string };
}

/** How long a compilation may take before the load is refused. */
const COMPILE_TIMEOUT_MS = 120_000;

let compiler: { worker: Worker; port: MessagePort; signal: Int32Array } | undefined;

function start(): NonNullable<typeof compiler> {
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL("./schema-worker.js", import.meta.url), {
    workerData: { port: port2, signal },
    transferList: [port2],
  });
  worker.unref();
  port1.unref();
  worker.on("exit", () => {
    if (compiler?.worker === worker) compiler = undefined;
  });
  worker.on("error", () => {
    if (compiler?.worker === worker) compiler = undefined;
  });
  return { worker, port: port1, signal };
}

/** Compiles `request` in the worker and waits for the answer. */
export function compileSchemas(request: CompileRequest): CompileReply {
  compiler ??= start();
  const { port, signal, worker } = compiler;
  Atomics.store(signal, 0, 0);
  port.postMessage(request);
  const waited = Atomics.wait(signal, 0, 0, COMPILE_TIMEOUT_MS);
  const reply = receiveMessageOnPort(port);
  if (waited === "timed-out" || reply === undefined) {
    compiler = undefined;
    void worker.terminate();
    return { error: { message: `compiling the schemas took longer than ${COMPILE_TIMEOUT_MS / 1000} s; given up` } };
  }
  return reply.message as CompileReply;
}
