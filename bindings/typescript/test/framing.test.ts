/** Every case of tests/vectors/framing/*.json: whole, one byte at a time, split at every index; and re-encoding. */

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  decoderFor,
  defaultLimits,
  encoderFor,
  FAULT_KINDS,
  type FrameLimits,
  type Framing,
  FramingError,
} from "../src/runtime/framing.js";
import type { JsonObject } from "../src/runtime/json.js";
import { inputBytes, loadVectors, str } from "./support.js";

type Outcome = { frame: string; offset: number } | { fault: string; offset: number };

function limitsOf(c: JsonObject, framing: Framing): FrameLimits {
  const base = defaultLimits(framing);
  const frame = c["max_frame_bytes"];
  const header = c["max_header_bytes"];
  return {
    maxFrameBytes: typeof frame === "number" ? frame : base.maxFrameBytes,
    maxHeaderBytes: typeof header === "number" ? header : base.maxHeaderBytes,
    strictLineEndings: c["strict_line_endings"] === true,
  };
}

function decode(framing: Framing, limits: FrameLimits, pieces: Uint8Array[]): Outcome[] {
  const decoder = decoderFor(framing, limits);
  const out: Outcome[] = [];
  const take = (): void => {
    for (const item of decoder.drain()) {
      out.push(item instanceof FramingError ? { fault: item.kind, offset: item.offset } : { frame: item.body, offset: item.offset });
    }
  };
  for (const piece of pieces) {
    decoder.push(piece);
    take();
  }
  decoder.finish();
  take();
  // Input after the end of input yields nothing.
  decoder.push(new TextEncoder().encode('Content-Length: 2\r\n\r\n{}\n{}\n'));
  decoder.finish();
  take();
  return out;
}

function expected(c: JsonObject): Outcome[] {
  return (c["expect"] as JsonObject[]).map((e) =>
    typeof e["frame"] === "string"
      ? { frame: e["frame"], offset: e["offset"] as number }
      : { fault: e["fault"] as string, offset: e["offset"] as number },
  );
}

for (const { file, cases } of loadVectors("framing")) {
  describe(`framing/${file}`, () => {
    for (const c of cases) {
      const framing = str(c, "framing") as Framing;
      const limits = limitsOf(c, framing);
      const input = inputBytes(c);
      const expect = expected(c);
      it(str(c, "name"), () => {
        for (const e of expect) {
          if ("fault" in e) assert.ok(FAULT_KINDS.includes(e.fault as never), `unknown fault ${e.fault}`);
        }
        assert.deepEqual(decode(framing, limits, [input]), expect, "whole input");
        const bytes = Array.from(input, (_, i) => input.subarray(i, i + 1));
        assert.deepEqual(decode(framing, limits, bytes), expect, "one byte a push");
        for (let at = 0; at <= input.length; at++) {
          const got = decode(framing, limits, [input.subarray(0, at), input.subarray(at)]);
          assert.deepEqual(got, expect, `split at ${at}`);
        }
        if (c["encodes_to_input"] === true) {
          const encoder = encoderFor(framing, limits);
          const parts = expect.map((e) => {
            assert.ok("frame" in e, "encodes_to_input cases hold frames only");
            return encoder.encode(e.frame);
          });
          assert.deepEqual(Buffer.concat(parts), Buffer.from(input), "re-encoding reproduces the input");
        }
      });
    }
  });
}

describe("framing encoders", () => {
  it("refuse what would not decode back, in the Rust core's order", () => {
    const nd = encoderFor("ndjson", { maxFrameBytes: 4, maxHeaderBytes: 8192 });
    const kind = (f: () => unknown): string | undefined => {
      try {
        f();
        return undefined;
      } catch (e) {
        assert.ok(e instanceof FramingError && e.isEncode && !e.endsStream);
        return e.kind;
      }
    };
    assert.equal(kind(() => nd.encode("abcde")), "FrameTooLong");
    assert.equal(kind(() => nd.encode("")), "EmptyFrame");
    assert.equal(kind(() => nd.encode("a\rb")), "EmbeddedNewline");
    assert.equal(kind(() => nd.encode(Uint8Array.of(0xff))), "BodyNotUtf8");
    assert.equal(kind(() => nd.encode("\ud800")), "BodyNotUtf8");
    assert.deepEqual(Buffer.from(nd.encode("abcd")), Buffer.from("abcd\n"));
    const cl = encoderFor("content-length", { maxFrameBytes: 3, maxHeaderBytes: 100 });
    assert.equal(kind(() => cl.encode("abcd")), "FrameTooLong");
    assert.equal(kind(() => cl.encode(Uint8Array.of(0xff))), "BodyNotUtf8");
    const tiny = encoderFor("content-length", { maxFrameBytes: 3, maxHeaderBytes: 20 });
    assert.equal(kind(() => tiny.encode("")), "HeaderTooLong");
    assert.deepEqual(Buffer.from(encoderFor("content-length").encode("{\"é\":1}")), Buffer.from('Content-Length: 8\r\n\r\n{"é":1}'));
  });

  it("hold nothing of an oversized frame", () => {
    const cl = decoderFor("content-length");
    cl.push(new TextEncoder().encode("Content-Length: 20000000\r\n\r\n"));
    cl.push(new Uint8Array(4096));
    assert.equal(cl.bufferedBytes, 0);
    const fault = cl.next();
    assert.ok(fault instanceof FramingError && fault.kind === "FrameTooLong" && fault.endsStream);
    assert.equal(fault.detail, "declared Content-Length 20000000 exceeds the frame bound of 16777216 bytes");
    assert.ok(cl.isDead && cl.next() === undefined);
    const nd = decoderFor("ndjson", { maxFrameBytes: 4, maxHeaderBytes: 8192 });
    for (const piece of ["abc", "def", "ghi", "\nok"]) {
      nd.push(new TextEncoder().encode(piece));
      assert.ok(nd.bufferedBytes <= 5);
    }
    nd.finish();
    const got = nd.drain().map((r) => (r instanceof FramingError ? r.kind : r.body));
    assert.deepEqual(got, ["FrameTooLong", "ok"]);
  });
});

describe("framing fault details", () => {
  it("name the first invalid UTF-8 byte as the Rust core does", () => {
    const cases: [number[], number][] = [
      [[0xc3, 0xa9, 0xff], 2],
      [[0x61, 0xe0, 0x80, 0x80], 1],
      [[0x61, 0xed, 0xa0, 0x80], 1],
      [[0xf0, 0x9f, 0x98, 0x80, 0xf4, 0x90, 0x80, 0x80], 4],
      [[0x61, 0x62, 0xc3], 2],
      [[0xc0, 0xaf], 0],
    ];
    for (const [bytes, at] of cases) {
      const decoder = decoderFor("ndjson");
      decoder.push(Uint8Array.from([...bytes, 0x0a]));
      const fault = decoder.next();
      assert.ok(fault instanceof FramingError && fault.kind === "BodyNotUtf8");
      assert.match(fault.detail, new RegExp(`first invalid byte at line byte ${at}\\)$`), fault.detail);
    }
  });
});
