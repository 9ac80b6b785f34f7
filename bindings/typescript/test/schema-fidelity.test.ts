/**
 * Issue 24's soundness cases through `loadProtocol` and the client's checks:
 * a `$ref` beside `allOf`, an `$anchor`, a `$ref: "#"` under a property named
 * `default` in another file, members named like `Object.prototype`'s,
 * integers beyond 2^53 compared exactly, formats asserted only when the
 * manifest asks, draft-07 files (MCP's published schema) loading.
 */

import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";

import { paramsIssues, resultIssues } from "../src/runtime/client.js";
import { decodeMessage } from "../src/runtime/envelope.js";
import { loadProtocol } from "../src/runtime/folder.js";
import { numberText, type JsonValue } from "../src/runtime/json.js";
import { ManifestError, type ProtocolDescriptor } from "../src/runtime/protocol.js";
import { repoRoot } from "./support.js";

const scratch = mkdtempSync(join(tmpdir(), "wirekit-fidelity-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
let folders = 0;

/** A one-method protocol folder: `m`'s params and result are `ref`; `files` are written as given (text). */
function protocol(files: Record<string, string>, ref: string, jsonSchema?: Record<string, string>): ProtocolDescriptor {
  const dir = join(scratch, `p${folders++}`);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const manifest: Record<string, unknown> = {
    protocol: "p",
    version: "1",
    title: "p",
    description: "one method",
    roles: { client: "client", server: "server" },
    transport: { framing: "ndjson", envelope: "jsonrpc-2.0", max_frame_bytes: 1048576 },
    schemas: Object.keys(files),
    methods: { m: { kind: "request", direction: "client-to-server", description: "m", params: { $ref: ref }, result: { $ref: ref } } },
  };
  if (jsonSchema !== undefined) manifest["json_schema"] = jsonSchema;
  writeFileSync(join(dir, "protocol.json"), JSON.stringify(manifest));
  return loadProtocol(dir);
}

/** Whether a result written as `body` (JSON text) passes, as the client reads it off the wire. */
function resultPasses(p: ProtocolDescriptor, body: string): boolean {
  const message = decodeMessage(`{"jsonrpc":"2.0","id":1,"result":${body}}`, { dialect: "jsonrpc-2.0", strict: false });
  assert.equal(message.kind, "success_response");
  if (message.kind !== "success_response") return false;
  return resultIssues(p, "m", message.result, numberText(message, "result")).length === 0;
}

describe("issue 24's soundness cases (loadProtocol, the client's checks)", () => {
  it("a $ref beside allOf is applied: {a: 1} against a string name is refused", () => {
    const p = protocol(
      { "x.json": JSON.stringify({ $defs: { Name: { type: "string" }, R: { type: "object", properties: { a: { $ref: "#/$defs/Name", allOf: [{}] } } } } }) },
      "x.json#/$defs/R",
    );
    assert.equal(resultPasses(p, '{"a": 1}'), false);
    assert.equal(resultPasses(p, '{"a": "n"}'), true);
    assert.deepEqual(
      paramsIssues(p, "m", { a: 1 }).map((i) => i.pointer),
      ["/params/a"],
    );
  });

  it("an anchor #s is the anchor, not a pointer: {name: []} refused, {name: \"x\"} accepted", () => {
    const p = protocol(
      {
        "node.json": JSON.stringify({
          title: "Node",
          type: "object",
          $defs: { Nodes: { type: "array" }, Str: { $anchor: "s", type: "string" } },
          properties: { name: { $ref: "#s" } },
        }),
      },
      "node.json",
    );
    assert.equal(resultPasses(p, '{"name": []}'), false);
    assert.equal(resultPasses(p, '{"name": "x"}'), true);
  });

  it("a $ref: \"#\" under a property named default resolves in its own file", () => {
    const p = protocol(
      {
        "a.json": JSON.stringify({ title: "A", type: "object", properties: { child: { $ref: "b.json" } } }),
        "b.json": JSON.stringify({ title: "B", type: "object", required: ["k"], properties: { default: { $ref: "#" } } }),
      },
      "a.json",
    );
    assert.equal(resultPasses(p, '{"child": {"k": 1, "default": {}}}'), false);
    assert.equal(resultPasses(p, '{"child": {"k": 1, "default": {"k": 2}}}'), true);
  });
});

describe("members named like Object.prototype's", () => {
  it("required toString, constructor, __proto__ refuse {} and accept them as own members", () => {
    const p = protocol({ "r.json": JSON.stringify({ type: "object", required: ["toString", "constructor", "__proto__"] }) }, "r.json");
    assert.equal(resultPasses(p, "{}"), false);
    assert.deepEqual(
      paramsIssues(p, "m", {}).map((i) => i.pointer).sort(),
      ["/params/__proto__", "/params/constructor", "/params/toString"],
    );
    assert.equal(resultPasses(p, '{"toString": 1, "constructor": 2, "__proto__": 3}'), true);
  });

  it('"properties": {"__proto__": {"not": {}}} refuses {"__proto__": 1}', () => {
    const p = protocol({ "q.json": '{"type": "object", "properties": {"__proto__": {"not": {}}}}' }, "q.json");
    assert.equal(resultPasses(p, '{"__proto__": 1}'), false);
    assert.equal(resultPasses(p, '{"other": 1}'), true);
  });
});

describe("integers beyond 2^53 are compared exactly", () => {
  const cases: [string, string, string, boolean][] = [
    ["maximum", '{"maximum": 9007199254740992}', "9007199254740993", false],
    ["maximum", '{"maximum": 9007199254740992}', "9007199254740992", true],
    ["minimum", '{"minimum": 9007199254740993}', "9007199254740992", false],
    ["minimum", '{"minimum": 9007199254740993}', "9007199254740993", true],
    ["exclusiveMaximum", '{"exclusiveMaximum": 9007199254740993}', "9007199254740993", false],
    ["exclusiveMaximum", '{"exclusiveMaximum": 9007199254740993}', "9007199254740992", true],
    ["exclusiveMinimum", '{"exclusiveMinimum": 9007199254740992}', "9007199254740992", false],
    ["exclusiveMinimum", '{"exclusiveMinimum": 9007199254740992}', "9007199254740993", true],
    ["const", '{"const": 9007199254740992}', "9007199254740993", false],
    ["const", '{"const": 9007199254740993}', "9007199254740993", true],
    ["const inside an object", '{"const": {"n": 9007199254740992}}', '{"n": 9007199254740993}', false],
    ["enum", '{"enum": [9007199254740992, 1]}', "9007199254740993", false],
    ["enum", '{"enum": [9007199254740993, 1]}', "9007199254740993", true],
    ["multipleOf", '{"multipleOf": 2}', "9007199254740993", false],
    ["multipleOf", '{"multipleOf": 2}', "9007199254740994", true],
    ["multipleOf in a member", '{"properties": {"n": {"multipleOf": 2}}}', '{"n": 18446744073709551615}', false],
    ["uniqueItems", '{"uniqueItems": true}', "[9007199254740992, 9007199254740993]", true],
    ["uniqueItems", '{"uniqueItems": true}', "[9007199254740993, 9007199254740993]", false],
    ["maximum of an item", '{"items": {"maximum": 9007199254740992}}', "[1, 9007199254740993]", false],
  ];
  for (const [keyword, schema, value, valid] of cases) {
    it(`${keyword}: ${schema} ${valid ? "accepts" : "refuses"} ${value}`, () => {
      const p = protocol({ "n.json": schema }, "n.json");
      assert.equal(resultPasses(p, value), valid);
    });
  }

  it("as params: bigints and parsed integers alike", () => {
    const p = protocol({ "n.json": '{"properties": {"n": {"maximum": 9007199254740992}}}' }, "n.json");
    assert.equal(paramsIssues(p, "m", { n: 9007199254740993n }).length, 1);
    assert.equal(paramsIssues(p, "m", { n: 9007199254740992n }).length, 0);
  });

  it("a schema writing two integers that are one double is refused at load, naming both", () => {
    assert.throws(
      () => protocol({ "n.json": '{"anyOf": [{"maximum": 9007199254740992}, {"minimum": 9007199254740993}]}' }, "n.json"),
      (error: unknown) => error instanceof ManifestError && /9007199254740992 and 9007199254740993/.test(error.message),
    );
  });
});

describe("formats by the manifest's choice", () => {
  const schema = JSON.stringify({ type: "string", format: "date" });
  it("annotate (the default): any string passes", () => {
    const p = protocol({ "f.json": schema }, "f.json");
    assert.equal(resultPasses(p, '"not a date"'), true);
  });
  it('"formats": "assert": a string must be a date', () => {
    const p = protocol({ "f.json": schema }, "f.json", { formats: "assert" });
    assert.equal(resultPasses(p, '"not a date"'), false);
    assert.equal(resultPasses(p, '"2024-02-29"'), true);
    assert.equal(resultPasses(p, '"2023-02-29"'), false);
  });
});

describe("references resolve as the standard says", () => {
  it("files keep their $id; base_uri places the folder; a relative $ref crosses to a subfolder", () => {
    const p = protocol(
      {
        "main.json": JSON.stringify({ $id: "https://example.com/schemas/main.json", properties: { n: { $ref: "sub/int.json" } } }),
        "sub/int.json": JSON.stringify({ type: "integer" }),
      },
      "main.json",
      { base_uri: "https://example.com/schemas/" },
    );
    assert.equal(resultPasses(p, '{"n": 1}'), true);
    assert.equal(resultPasses(p, '{"n": "1"}'), false);
  });

  it("the same $defs name in two files means each file's own", () => {
    const p = protocol(
      {
        "a.json": JSON.stringify({ properties: { b: { $ref: "b.json" }, t: { $ref: "#/$defs/T" } }, $defs: { T: { type: "string" } } }),
        "b.json": JSON.stringify({ properties: { t: { $ref: "#/$defs/T" } }, $defs: { T: { type: "integer" } } }),
      },
      "a.json",
    );
    assert.equal(resultPasses(p, '{"t": "s", "b": {"t": 1}}'), true);
    assert.equal(resultPasses(p, '{"t": 1, "b": {"t": "s"}}'), false);
  });

  it("a reference outside the folder is refused at load (nothing is fetched), naming the manifest's $ref", () => {
    assert.throws(
      () => protocol({ "o.json": JSON.stringify({ $ref: "https://example.com/elsewhere.json" }) }, "o.json"),
      (error: unknown) => error instanceof ManifestError && error.file === "protocol.json" && error.pointer === "/methods/m/params/$ref",
    );
  });
});

describe("draft-07 files", () => {
  const mcp = join(dirname(repoRoot()), "shared", "upstream", "mcp", "2025-06-18.schema.json");
  it("MCP's published schema (draft-07) loads, and its initialize messages are checked", (t) => {
    if (!existsSync(mcp)) {
      t.skip(`${mcp} is absent`);
      return;
    }
    const p = protocol({ "mcp.json": readFileSync(mcp, "utf8") }, "mcp.json#/definitions/InitializeResult");
    const good: JsonValue = { protocolVersion: "2025-06-18", capabilities: {}, serverInfo: { name: "s", version: "1" } };
    assert.deepEqual(resultIssues(p, "m", good), []);
    const bad = resultIssues(p, "m", { protocolVersion: "2025-06-18", capabilities: {} });
    assert.deepEqual(bad.map((i) => i.pointer), ["/result/serverInfo"]);
  });
});
