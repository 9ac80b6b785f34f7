/**
 * The client against hostile servers (issue 15): one that floods stdout with
 * garbage, one that sends one endless line, one that writes a Content-Length
 * of 2 GiB, one that answers an id never sent, one that answers twice, one
 * that sleeps forever, one that closes stdout but keeps running, one that
 * dies mid-frame. Each request ends with a precise error in bounded time,
 * the server is gone afterwards, and this process's memory stays within the
 * frame bound (plus slack for the runtime).
 */

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { ClientError, ProtocolError, ServerExitedError, spawnServer, TimeoutError } from "../src/runtime/client.js";
import { gazeAnalyzerV1_0_0, gzkitAuthoringGuide } from "../src/index.js";

const INIT_RESULT =
  '{"capabilities": {"discover": False, "test_mapping": False, "classify_signals": False}, "analyzer_name": "a", "protocol_version": "1.0.0", "language": "python"}';

/** The error a promise rejects with, and how long it took. */
async function rejection(promise: Promise<unknown>): Promise<[Error, number]> {
  const started = Date.now();
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof Error);
    return [error, Date.now() - started];
  }
  assert.fail("expected a rejection");
}

/** Runs `body`, then checks that the resident size grew by less than `mib`. */
async function withinMemory(mib: number, body: () => Promise<void>): Promise<void> {
  global.gc?.();
  const before = process.memoryUsage().rss;
  await body();
  const grown = (process.memoryUsage().rss - before) / (1 << 20);
  assert.ok(grown < mib, `resident size grew by ${grown.toFixed(1)} MiB`);
}

describe("client against hostile servers", () => {
  it("garbage on stdout is a protocol error, and the flood is not buffered", async () => {
    await withinMemory(96, async () => {
      const script = "import sys\nsys.stdin.readline()\nwhile True:\n    sys.stdout.write('garbage \\x00 not json\\n' * 1000)\n";
      // Only the first report is kept: the flood yields one per line, and a
      // test that stored them all would measure its own array, not the client.
      let reported = 0;
      let first: ProtocolError | undefined;
      const client = spawnServer("python3", ["-c", script], gazeAnalyzerV1_0_0, {
        onProtocolError: (e) => {
          reported += 1;
          first ??= e;
        },
      });
      const [error, ms] = await rejection(client.request("initialize", { root_path: "/x" }, { timeoutMs: 3000 }));
      assert.ok(error instanceof ClientError, String(error));
      assert.ok(ms < 10000, `${ms} ms`);
      assert.ok(reported > 0, "the garbage was reported");
      assert.match(first?.message ?? "", /JSON|json|parse|Parse/);
      await client.close();
    });
  });

  it("one endless line stops at the frame bound", async () => {
    await withinMemory(96, async () => {
      const script = "import sys\nsys.stdin.readline()\nchunk = 'x' * 65536\nwhile True:\n    sys.stdout.write(chunk)\n";
      const problems: ProtocolError[] = [];
      const client = spawnServer("python3", ["-c", script], gazeAnalyzerV1_0_0, {
        onProtocolError: (e) => problems.push(e),
      });
      const [error, ms] = await rejection(client.request("initialize", { root_path: "/x" }, { timeoutMs: 20000 }));
      assert.ok(error instanceof ProtocolError, String(error));
      assert.equal(error.reason?.kind, "FrameTooLong", String(error));
      assert.ok(ms < 20000, `${ms} ms`);
      await client.ended;
    });
  });

  it("a Content-Length of 2 GiB is refused before buffering", async () => {
    await withinMemory(64, async () => {
      const script =
        "import sys, time\nsys.stdin.buffer.read(1)\nsys.stdout.write('Content-Length: 2147483648\\r\\n\\r\\n' + 'x' * 1000)\nsys.stdout.flush()\ntime.sleep(60)\n";
      const client = spawnServer("python3", ["-c", script], gzkitAuthoringGuide, { onProtocolError: () => {} });
      const [error, ms] = await rejection(client.request("initialize", { clientVersion: "1.0" }, { timeoutMs: 3000 }));
      assert.ok(error instanceof ProtocolError, String(error));
      assert.equal(error.reason?.kind, "FrameTooLong", String(error));
      assert.match(error.message, /2147483648/);
      assert.ok(ms < 3000, `${ms} ms: refused at the header, not by the timeout`);
      await client.ended;
    });
  });

  it("an answer to an id never sent is reported, and the call still ends", async () => {
    const script = `import sys, json\nsys.stdin.readline()\nprint(json.dumps({'jsonrpc': '2.0', 'id': 999, 'result': ${INIT_RESULT}}), flush=True)\nsys.stdin.read()\n`;
    const problems: ProtocolError[] = [];
    const client = spawnServer("python3", ["-c", script], gazeAnalyzerV1_0_0, { onProtocolError: (e) => problems.push(e) });
    const [error, ms] = await rejection(client.request("initialize", { root_path: "/x" }, { timeoutMs: 1500 }));
    assert.ok(error instanceof ClientError, String(error));
    assert.ok(ms < 5000, `${ms} ms`);
    assert.ok(
      problems.some((p) => /999/.test(p.message)),
      `the unknown id was reported: ${problems.map((p) => p.message).join("; ")}`,
    );
    await client.close();
  });

  it("a second answer to one request is reported", async () => {
    const script = `import sys, json\nfor line in sys.stdin:\n    rid = json.loads(line)['id']\n    for _ in range(2):\n        print(json.dumps({'jsonrpc': '2.0', 'id': rid, 'result': ${INIT_RESULT}}), flush=True)\n`;
    const problems: ProtocolError[] = [];
    const client = spawnServer("python3", ["-c", script], gazeAnalyzerV1_0_0, { onProtocolError: (e) => problems.push(e) });
    const init = await client.request("initialize", { root_path: "/x" }, { timeoutMs: 5000 });
    assert.equal(init.analyzer_name, "a");
    const deadline = Date.now() + 5000;
    while (problems.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(problems.length > 0, "the repeated answer was reported");
    await client.close();
  });

  it("a server that sleeps forever times out and is killed", async () => {
    const client = spawnServer("python3", ["-c", "import time\ntime.sleep(3600)\n"], gazeAnalyzerV1_0_0);
    const [error, ms] = await rejection(client.request("initialize", { root_path: "/x" }, { timeoutMs: 500 }));
    assert.ok(error instanceof TimeoutError, String(error));
    assert.ok(ms < 5000, `${ms} ms`);
    const end = await client.ended;
    assert.equal(end.signal, "SIGKILL");
  });

  it("a server that closes stdout but keeps running is reported before the timeout", async () => {
    const script = "import os, sys, time\nsys.stdin.readline()\nos.close(1)\ntime.sleep(3600)\n";
    const client = spawnServer("python3", ["-c", script], gazeAnalyzerV1_0_0);
    const [error, ms] = await rejection(client.request("initialize", { root_path: "/x" }, { timeoutMs: 30000 }));
    assert.ok(error instanceof ClientError, String(error));
    assert.ok(!(error instanceof TimeoutError), `waited for the timeout: ${String(error)}`);
    assert.ok(ms < 10000, `${ms} ms`);
    await client.close();
  });

  it("a server that dies mid-frame is reported with its stderr", async () => {
    const script =
      "import sys\nsys.stdin.readline()\nsys.stdout.write('{\"jsonrpc\": \"2.0\", \"id\": 1, \"res')\nsys.stdout.flush()\nsys.stderr.write('dying now\\n')\nsys.exit(1)\n";
    const client = spawnServer("python3", ["-c", script], gazeAnalyzerV1_0_0, { onProtocolError: () => {} });
    const [error, ms] = await rejection(client.request("initialize", { root_path: "/x" }, { timeoutMs: 10000 }));
    assert.ok(error instanceof ServerExitedError || error instanceof ProtocolError, String(error));
    assert.ok(ms < 10000, `${ms} ms`);
    if (error instanceof ServerExitedError) assert.match(error.stderr, /dying now/);
    await client.ended;
  });
});
