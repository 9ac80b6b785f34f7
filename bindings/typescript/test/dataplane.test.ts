/** The data-plane decoder against tests/vectors/dataplane: whole, byte by byte, halved. */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";

import { DataDecoder, DataPlaneError, DEFAULT_MAX_DATA_FRAME_BYTES } from "../src/runtime/dataplane.js";
import { repoRoot } from "./support.js";

interface Vector {
  name: string;
  max_frame_bytes?: number;
  announce: { stream_id: string; invocation_id: string; attempt_id: string }[];
  input_hex: string;
  expect: unknown[];
}

const vectors = JSON.parse(readFileSync(join(repoRoot(), "tests", "vectors", "dataplane", "vectors.json"), "utf8")) as {
  decode: Vector[];
};

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

function decode(vector: Vector, input: Uint8Array, chunk: number): unknown[] {
  const decoder = new DataDecoder(vector.max_frame_bytes ?? DEFAULT_MAX_DATA_FRAME_BYTES);
  for (const s of vector.announce) decoder.announce(s.stream_id, s.invocation_id, s.attempt_id);
  const out: unknown[] = [];
  for (let at = 0; at < input.length; at += chunk) {
    for (const item of decoder.push(input.subarray(at, at + chunk))) {
      out.push(item instanceof DataPlaneError ? { fault: item.kind } : { header: item.header, payload_hex: hex(item.payload) });
    }
  }
  if (decoder.fault === undefined) {
    const fault = decoder.finish();
    if (fault !== undefined) out.push({ fault: fault.kind });
  }
  return out;
}

describe("data plane vectors", () => {
  for (const vector of vectors.decode) {
    it(vector.name, () => {
      const input = new Uint8Array(Buffer.from(vector.input_hex, "hex"));
      for (const chunk of [Math.max(input.length, 1), 1, Math.max(Math.floor(input.length / 2), 1)]) {
        assert.deepEqual(decode(vector, input, chunk), vector.expect, `chunk ${chunk}`);
      }
    });
  }
});
