/** Every case of tests/vectors/envelope/*.json: classification, error kind, code, pointer, answer id; reencode and canonical. */

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";

import {
  decodeMessage,
  type Dialect,
  encodeCanonical,
  encodeMessage,
  ENVELOPE_ERROR_KINDS,
  idWarning,
  EnvelopeError,
  type Id,
  type Message,
} from "../src/runtime/envelope.js";
import { integerOf, type JsonObject, numberText } from "../src/runtime/json.js";
import { inputBytes, isObject, loadVectors, str } from "./support.js";

/** The id a vector states (`expect.id`, `expect.answer_id`), exactly: big integers from their digits. */
function expectedId(holder: JsonObject, key: string): Id | null {
  const v = holder[key];
  if (v === null || typeof v === "string") return v as Id | null;
  const text = numberText(holder, key) ?? String(v);
  // A strict id beyond 64 bits is the integer RFC 8785 writes (its digits).
  const n = integerOf(text) ?? (/^-?\d+$/.test(text) ? BigInt(text) : undefined);
  // A fractional id (lenient protocols) compares by value.
  if (n === undefined && typeof v === "number") return v;
  assert.ok(n !== undefined, `vector ${key} is not an id`);
  return Number.isSafeInteger(Number(n)) ? Number(n) : n;
}

function decodeError(run: () => unknown): EnvelopeError {
  try {
    run();
  } catch (error) {
    if (error instanceof EnvelopeError) return error;
    throw error;
  }
  assert.fail("expected an EnvelopeError");
}

function idOfMessage(m: Message): Id | null {
  return m.kind === "notification" ? null : m.id;
}

const seen = new Set<string>();

for (const { file, cases } of loadVectors("envelope")) {
  describe(`envelope/${file}`, () => {
    for (const c of cases) {
      it(str(c, "name"), () => {
        const options = { dialect: str(c, "dialect") as Dialect, strict: c["strict"] === true };
        const input = inputBytes(c);
        const expect = c["expect"];
        assert.ok(isObject(expect));
        if (typeof expect["error"] === "string") {
          const error = decodeError(() => decodeMessage(input, options));
          seen.add(expect["error"]);
          assert.equal(error.kind, expect["error"], `kind (${error.message})`);
          assert.equal(error.code, expect["code"], "code");
          assert.equal(error.pointer, expect["pointer"], "pointer");
          assert.equal(error.id, expectedId(expect, "answer_id"), "answer id");
          const answer = error.toResponse();
          assert.equal(answer.id, error.id);
          assert.equal(answer.error.code, error.code);
          assert.deepEqual(answer.error.data, { kind: error.kind, pointer: error.pointer });
          return;
        }
        const message = decodeMessage(input, options);
        assert.equal(message.kind, expect["kind"], "kind");
        assert.equal(idOfMessage(message), expectedId(expect, "id"), "id");
        assert.equal(idWarning(message), expect["warning"] ?? undefined, "id warning");
        assert.equal(message.kind === "request" || message.kind === "notification" ? message.method : null, expect["method"], "method");
        const encoded = encodeMessage(message, options.dialect);
        if (typeof c["reencode"] === "string") assert.equal(encoded, c["reencode"], "reencode");
        // Encoding and decoding again gives an equal message, which encodes the same.
        const again = decodeMessage(encoded, options);
        assert.deepEqual(again, message, "round trip");
        assert.equal(encodeMessage(again, options.dialect), encoded, "round trip encoding");
        if (typeof c["canonical"] === "string") {
          assert.equal(encodeCanonical(message, options.dialect), c["canonical"], "canonical");
        }
        const refusal = c["canonical_error"];
        if (isObject(refusal)) {
          const error = decodeError(() => encodeCanonical(message, options.dialect));
          seen.add("NotCanonicalizable");
          assert.equal(error.kind, refusal["error"]);
          assert.equal(error.pointer, refusal["pointer"]);
          assert.equal(error.code, -32603);
        }
      });
    }
  });
}

after(() => {
  // Every error kind is covered by some case (as the Rust runner checks).
  assert.deepEqual([...ENVELOPE_ERROR_KINDS].filter((k) => !seen.has(k)), []);
});

describe("envelope numbers and ids", () => {
  it("keeps 9.0 and big integers as written, and edits replace them", () => {
    const body = '{"id":2,"result":{"hints":[{"crossing_value":9.0,"n":18446744073709551615}]}}';
    const message = decodeMessage(body, { dialect: "bare" });
    assert.equal(encodeMessage(message, "bare"), body);
    assert.ok(message.kind === "success_response");
    const hint = ((message.result as JsonObject)["hints"] as JsonObject[])[0] as JsonObject;
    assert.equal(hint["crossing_value"], 9);
    hint["crossing_value"] = 9.5;
    assert.equal(encodeMessage(message, "bare"), '{"id":2,"result":{"hints":[{"crossing_value":9.5,"n":18446744073709551615}]}}');
  });

  it("reads ids beyond 2^53 as bigint, exactly", () => {
    const m = decodeMessage('{"jsonrpc":"2.0","id":9007199254740993,"method":"m"}', { dialect: "jsonrpc-2.0" });
    assert.ok(m.kind === "request");
    assert.equal(m.id, 9007199254740993n);
    const small = decodeMessage('{"jsonrpc":"2.0","id":9007199254740991,"method":"m"}', { dialect: "jsonrpc-2.0" });
    assert.ok(small.kind === "request" && small.id === 9007199254740991);
  });

  it("keeps member order of integer-like keys", () => {
    const body = '{"id":1,"method":"m","params":{"b":1,"2":2,"a":[1.50]}}';
    assert.equal(encodeMessage(decodeMessage(body, { dialect: "bare" }), "bare"), body);
  });

  it("refuses nesting of 128 levels, as serde_json", () => {
    const ok = `{"method":"m","params":${"[".repeat(126)}${"]".repeat(126)}}`;
    assert.equal(decodeMessage(ok, { dialect: "bare" }).kind, "notification");
    const deep = `{"method":"m","params":${"[".repeat(127)}${"]".repeat(127)}}`;
    assert.equal(decodeError(() => decodeMessage(deep, { dialect: "bare" })).kind, "Parse");
  });

  it("keeps a __proto__ member as data", () => {
    const body = '{"method":"m","params":{"__proto__":{"x":1}}}';
    const m = decodeMessage(body, { dialect: "bare" });
    assert.equal(encodeMessage(m, "bare"), body);
    assert.equal(Object.getPrototypeOf(m.kind === "notification" ? m.params : null), Object.prototype);
  });
});

describe("envelope text input and encoder refusals", () => {
  it("refuses a JavaScript string holding a lone surrogate as InvalidUtf8", () => {
    const error = decodeError(() => decodeMessage('{"method":"\ud800"}', { dialect: "bare" }));
    assert.equal(error.kind, "InvalidUtf8");
    assert.equal(error.code, -32700);
  });

  it("refuses values JSON cannot hold", () => {
    const params = { n: Number.NaN } as unknown as JsonObject;
    assert.throws(() => encodeMessage({ kind: "notification", method: "m", params }, "bare"), TypeError);
    assert.throws(() => encodeMessage({ kind: "notification", method: "m", params: [undefined as never] }, "bare"), TypeError);
  });

  it("writes bigint values exactly, and refuses them canonically when their double prints other digits", () => {
    const message: Message = { kind: "request", id: 18446744073709551615n, method: "m", params: { n: 1n } };
    assert.equal(encodeMessage(message, "jsonrpc-2.0"), '{"jsonrpc":"2.0","id":18446744073709551615,"method":"m","params":{"n":1}}');
    const error = decodeError(() => encodeCanonical(message, "jsonrpc-2.0"));
    assert.equal(error.kind, "NotCanonicalizable");
    assert.equal(error.pointer, "/id");
  });
});
