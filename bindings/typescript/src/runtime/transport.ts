/**
 * Transports: the byte pipes a client talks over. {@link ChildProcessTransport}
 * spawns a server and talks over its stdin/stdout, keeping the tail of its
 * stderr (reserved for diagnostics by every wirekit protocol) for error
 * reports.
 *
 * @module
 */

import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";

/** How a transport ended. */
export interface TransportEnd {
  /** The server's exit code, when it exited. */
  readonly code: number | null;
  /** The signal that ended the server, when one did. */
  readonly signal: NodeJS.Signals | null;
  /** The last bytes the server wrote to stderr (decoded as UTF-8, lossy). */
  readonly stderr: string;
  /** Why the transport could not run at all (e.g. the command was not found). */
  readonly error?: Error;
  /** The server closed its stdout and did not exit, so it was killed (no answer could come). */
  readonly stdoutClosed?: boolean;
}

/** A duplex byte pipe to one server. */
export interface Transport {
  /** Sends bytes to the server. */
  write(bytes: Uint8Array): void;
  /** Registers the listener of bytes from the server (one listener). */
  onData(listener: (chunk: Uint8Array) => void): void;
  /** Registers the listener called once when the server is gone and its output drained. */
  onEnd(listener: (end: TransportEnd) => void): void;
  /** Closes the server's input (end of its stdin). */
  endInput(): void;
  /** Ends the server now. */
  kill(): void;
  /** Asks the server to end (SIGTERM), where the transport can. */
  terminate?(): void;
  /** The last bytes the server wrote to stderr so far. */
  readonly stderrTail: string;
}

/** Options of {@link ChildProcessTransport}. */
export interface ChildProcessOptions {
  /** Passed to `child_process.spawn` (`stdio` is always three pipes). */
  spawn?: Omit<SpawnOptions, "stdio">;
  /** How many trailing stderr bytes to keep (default 8192). */
  stderrTailBytes?: number;
  /** Called with every stderr chunk as it arrives. */
  onStderr?: (chunk: Uint8Array) => void;
}

/** How long a server whose stdout closed may take to exit before it is killed. */
const STDOUT_CLOSED_GRACE_MS = 500;

/** A server spawned as a child process, spoken to over its stdin/stdout. */
export class ChildProcessTransport implements Transport {
  /** The child process. */
  readonly child: ChildProcess;
  private stderrChunks: Buffer[] = [];
  private stderrBytes = 0;
  private readonly keep: number;
  private dataListener: ((chunk: Uint8Array) => void) | undefined;
  private endListener: ((end: TransportEnd) => void) | undefined;
  private ended: TransportEnd | undefined;
  private spawnError: Error | undefined;
  private stdoutClosed = false;

  /** Spawns `command` with `args`. Spawn failures are reported through {@link onEnd}. */
  constructor(command: string, args: readonly string[], options: ChildProcessOptions = {}) {
    this.keep = options.stderrTailBytes ?? 8192;
    this.child = spawn(command, args, { ...options.spawn, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout?.on("data", (chunk: Buffer) => this.dataListener?.(chunk));
    // A server that closes its stdout but keeps running can never answer:
    // unless it exits promptly (as one does when its stdout closes at exit),
    // it is killed, so pending requests end now rather than at their timeout.
    this.child.stdout?.on("end", () => {
      setTimeout(() => {
        if (this.ended === undefined && this.child.exitCode === null && this.child.signalCode === null) {
          this.stdoutClosed = true;
          this.child.kill("SIGKILL");
        }
      }, STDOUT_CLOSED_GRACE_MS).unref();
    });
    this.child.stderr?.on("data", (chunk: Buffer) => {
      options.onStderr?.(chunk);
      this.stderrChunks.push(chunk);
      this.stderrBytes += chunk.length;
      while (this.stderrChunks.length > 1 && this.stderrBytes - (this.stderrChunks[0]?.length ?? 0) >= this.keep) {
        this.stderrBytes -= this.stderrChunks.shift()?.length ?? 0;
      }
    });
    // A server that exits early makes writes fail with EPIPE; its exit is reported by "close".
    this.child.stdin?.on("error", () => undefined);
    this.child.on("error", (error: Error) => {
      this.spawnError = error;
      // A spawn failure emits no "close" when no process ever ran.
      if (this.child.pid === undefined) this.finish(null, null);
    });
    this.child.on("close", (code: number | null, signal: NodeJS.Signals | null) => this.finish(code, signal));
  }

  private finish(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.ended !== undefined) return;
    const base = { code, signal, stderr: this.stderrTail, ...(this.stdoutClosed ? { stdoutClosed: true } : {}) };
    const end: TransportEnd = this.spawnError === undefined ? base : { ...base, error: this.spawnError };
    this.ended = end;
    this.endListener?.(end);
  }

  write(bytes: Uint8Array): void {
    const stdin = this.child.stdin;
    if (stdin === null || stdin.destroyed || stdin.writableEnded) return;
    stdin.write(bytes);
  }

  onData(listener: (chunk: Uint8Array) => void): void {
    this.dataListener = listener;
  }

  onEnd(listener: (end: TransportEnd) => void): void {
    this.endListener = listener;
    if (this.ended !== undefined) listener(this.ended);
  }

  endInput(): void {
    this.child.stdin?.end();
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
  }

  terminate(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGTERM");
  }

  get stderrTail(): string {
    const all = Buffer.concat(this.stderrChunks);
    return all.subarray(Math.max(0, all.length - this.keep)).toString("utf8");
  }
}
