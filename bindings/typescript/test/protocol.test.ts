/**
 * Protocol descriptors: the generated ones (from the core's manifest model,
 * by `wirekit generate`) and the ones loaded from a folder at run time agree
 * for every protocol in schemas/, and a broken folder is refused with the
 * file and the JSON pointer at fault.
 */

import assert from "node:assert/strict";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";

import {
  agentapiDriver,
  gazeAnalyzerV1_0_0,
  gazeAnalyzerV1_1_0,
  gzkitAuthoringGuide,
  mcpV2025_06_18,
  mcpV2025_11_25,
} from "../src/index.js";
import { loadProtocol } from "../src/runtime/folder.js";
import { Overlaps } from "../src/runtime/overlap.js";
import { ManifestError, type ProtocolDescriptor } from "../src/runtime/protocol.js";
import { numberText, parseJson, stringifyJson } from "../src/runtime/json.js";
import { validate, type SchemaValidator } from "../src/runtime/validation.js";
import { repoRoot } from "./support.js";

const GENERATED: [string, ProtocolDescriptor<never, never, never>][] = [
  ["gzkit-authoring-guide/1.0", gzkitAuthoringGuide as never],
  ["gaze-analyzer/1.0.0", gazeAnalyzerV1_0_0 as never],
  ["gaze-analyzer/1.1.0", gazeAnalyzerV1_1_0 as never],
  ["agentapi-driver/1", agentapiDriver as never],
  ["mcp/2025-06-18", mcpV2025_06_18 as never],
  ["mcp/2025-11-25", mcpV2025_11_25 as never],
];

type Obj = Record<string, unknown>;

/** Every worked example of a manifest, as [method, part, value]. */
function examples(manifest: Obj): [string, "params" | "result" | "item", unknown][] {
  const out: [string, "params" | "result" | "item", unknown][] = [];
  for (const [method, spec] of Object.entries(manifest["methods"] as Obj)) {
    for (const example of ((spec as Obj)["examples"] as Obj[] | undefined) ?? []) {
      if (example["params"] !== undefined) out.push([method, "params", example["params"]]);
      if (example["result"] !== undefined) out.push([method, "result", example["result"]]);
      for (const item of (example["items"] as unknown[] | undefined) ?? []) out.push([method, "item", item]);
    }
  }
  return out;
}

describe("generated descriptors and folders loaded at run time", () => {
  for (const [path, generated] of GENERATED) {
    it(`${path}: the folder gives the generated descriptor, and both validators accept the manifest's examples`, () => {
      const dir = join(repoRoot(), "schemas", path);
      const loaded = loadProtocol(dir);
      const { validators: genValidators, ...genRest } = generated;
      // The serving details (what a server needs beyond a client) included: the generated descriptors carry them too.
      const { validators: loadedValidators, ...loadedRest } = loaded;
      assert.deepEqual(loadedRest, genRest);
      assert.deepEqual(Object.keys(loadedValidators ?? {}).sort(), Object.keys(genValidators ?? {}).sort());
      const manifest = JSON.parse(readFileSync(join(dir, "protocol.json"), "utf8")) as Obj;
      const cases = examples(manifest);
      assert.ok(cases.length > 0);
      for (const [method, part, value] of cases) {
        const type = generated.methods[method]?.[part];
        assert.ok(type !== undefined, `${method} has a ${part} type`);
        for (const validators of [genValidators, loadedValidators]) {
          const validator: SchemaValidator | undefined = validators?.[type];
          assert.ok(validator !== undefined);
          assert.deepEqual(validate(validator, value, part), [], `${method} ${part} example`);
        }
      }
    });
  }

  it("both report the same pointers for the same invalid value", () => {
    const loaded = loadProtocol(join(repoRoot(), "schemas", "gzkit-authoring-guide", "1.0"));
    const bad = { hints: [{ start_line: "1" }] };
    const fromGenerated = validate(gzkitAuthoringGuide.validators?.["AnalyzeResult"] ?? assert.fail(), bad, "result");
    const fromLoaded = validate(loaded.validators?.["AnalyzeResult"] ?? assert.fail(), bad, "result");
    assert.deepEqual(fromLoaded, fromGenerated);
    assert.ok(fromGenerated.some((i) => i.pointer === "/result/hints/0/start_line" && i.keyword === "type"), JSON.stringify(fromGenerated));
  });
});

describe("a published schema used as it is", () => {
  it("the official MCP schema.json (draft-07, definitions), unchanged beside a hand-written manifest, loads and judges params as the derived folder", () => {
    const upstream = join(repoRoot(), "..", "shared", "upstream", "mcp", "2025-06-18.schema.json");
    if (!existsSync(upstream)) {
      process.stderr.write("mcp published schema (typescript): not run: ../shared/upstream/mcp/2025-06-18.schema.json is absent (CI has it)\n");
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), "wirekit-mcp-published-"));
    try {
      mkdirSync(join(dir, "mcp"));
      copyFileSync(upstream, join(dir, "mcp", "schema.json"));
      copyFileSync(join(repoRoot(), "tests", "mcp", "published-schema", "protocol.json"), join(dir, "mcp", "protocol.json"));
      assert.deepEqual(readFileSync(join(dir, "mcp", "schema.json")), readFileSync(upstream));
      const published = loadProtocol(join(dir, "mcp"));
      const derived = loadProtocol(join(repoRoot(), "schemas", "mcp", "2025-06-18"));
      for (const method of ["initialize", "tools/call", "ping", "notifications/cancelled"]) {
        assert.equal(published.methods[method]?.params, derived.methods[method]?.params, method);
      }
      let refused = 0;
      const cases: [string, unknown][] = [
        ["tools/call", { name: "add", arguments: { a: 1 } }],
        ["tools/call", { name: 3 }],
        ["tools/call", {}],
        ["initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } }],
        ["initialize", { protocolVersion: 2025, capabilities: {} }],
      ];
      for (const [method, value] of cases) {
        const type = derived.methods[method]?.params ?? assert.fail(method);
        const got = validate(published.validators?.[type] ?? assert.fail(type), value, "params");
        const want = validate(derived.validators?.[type] ?? assert.fail(type), value, "params");
        assert.deepEqual(got.map((i) => [i.pointer, i.keyword]).sort(), want.map((i) => [i.pointer, i.keyword]).sort(), `${method} ${JSON.stringify(value)}`);
        refused += got.length > 0 ? 1 : 0;
      }
      assert.equal(refused, 3, "the three invalid params are refused by both");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("validation keeps numbers exact", () => {
  it("a result with 9.0 and an integer beyond 2^53 validates as integers, and the values keep their written text", () => {
    const text = '{"functions":[{"name":"f","package":"p","file":"f.py","line":18446744073709551615,"complexity":9.0}]}';
    const parsed = parseJson(text).value;
    const validator = gazeAnalyzerV1_0_0.validators?.["ComplexityResult"] ?? assert.fail();
    assert.deepEqual(validate(validator, parsed, "result"), []);
    const fn = ((parsed as Obj)["functions"] as Obj[])[0] as Obj;
    assert.equal(numberText(fn, "line"), "18446744073709551615");
    assert.equal(numberText(fn, "complexity"), "9.0");
    assert.equal(stringifyJson(parsed), text, "validation changed nothing: re-encoded byte for byte");
    const exact = { functions: [{ name: "f", package: "p", file: "f.py", line: 18446744073709551615n, complexity: 2n }] };
    assert.deepEqual(validate(validator, exact, "result"), [], "bigints are integers to the schema");
    assert.equal(typeof exact.functions[0]?.line, "bigint", "and stay bigints");
    const fractional = validate(validator, parseJson('{"functions":[{"name":"f","package":"p","file":"f.py","line":1,"complexity":9.5}]}').value, "result");
    assert.deepEqual(fractional.map((i) => [i.pointer, i.keyword]), [["/result/functions/0/complexity", "type"]]);
  });
});

describe("a broken protocol folder is refused with the file and pointer at fault", () => {
  const scratch = mkdtempSync(join(tmpdir(), "wirekit-folder-"));
  after(() => rmSync(scratch, { recursive: true, force: true }));
  let count = 0;

  /** A copy of gaze-analyzer 1.0.0 with `edit` applied to its manifest (or another file), then loaded. */
  function refusal(edit: (files: { manifest: Obj; write: (name: string, text: string) => void }) => void): ManifestError {
    const dir = join(scratch, `case-${count++}`);
    cpSync(join(repoRoot(), "schemas", "gaze-analyzer", "1.0.0"), dir, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(dir, "protocol.json"), "utf8")) as Obj;
    const write = (name: string, text: string): void => writeFileSync(join(dir, name), text);
    edit({ manifest, write });
    if (!("__written" in manifest)) writeFileSync(join(dir, "protocol.json"), JSON.stringify(manifest));
    try {
      loadProtocol(dir);
    } catch (error) {
      assert.ok(error instanceof ManifestError, String(error));
      return error;
    }
    return assert.fail("the folder loaded");
  }

  const methods = (m: Obj): Record<string, Obj> => m["methods"] as Record<string, Obj>;

  it("a manifest that is not JSON", () => {
    const error = refusal(({ manifest, write }) => {
      manifest["__written"] = true;
      write("protocol.json", '{"protocol": "gaze-analyzer",');
    });
    assert.equal(error.file, "protocol.json");
    assert.match(error.message, /not valid JSON/);
  });

  it("a manifest the meta-schema refuses: the missing member's pointer", () => {
    const error = refusal(({ manifest }) => delete manifest["transport"]);
    assert.deepEqual([error.file, error.pointer, error.detail], ["protocol.json", "/transport", "required member is missing"]);
  });

  it("a wrong value deep in the manifest", () => {
    const error = refusal(({ manifest }) => {
      (methods(manifest)["analyze"] as Obj)["kind"] = "call";
    });
    assert.equal(error.file, "protocol.json");
    assert.equal(error.pointer, "/methods/analyze/kind");
  });

  it("a lifecycle state that does not exist (the core's consistency rule)", () => {
    const error = refusal(({ manifest }) => {
      ((methods(manifest)["analyze"] as Obj)["lifecycle"] as Obj)["allowed_in"] = ["ready", "busy"];
    });
    assert.deepEqual([error.file, error.pointer, error.detail], ["protocol.json", "/methods/analyze/lifecycle/allowed_in/1", "unknown state `busy`"]);
  });

  it("a schema file listed but absent", () => {
    const error = refusal(({ manifest }) => {
      manifest["schemas"] = ["gaze.schema.json", "extra.schema.json"];
    });
    assert.deepEqual([error.file, error.pointer], ["protocol.json", "/schemas/1"]);
  });

  it("a schema file that is not a Draft 2020-12 schema", () => {
    const error = refusal(({ write }) => {
      const schema = JSON.parse(readFileSync(join(repoRoot(), "schemas", "gaze-analyzer", "1.0.0", "gaze.schema.json"), "utf8")) as Obj;
      ((schema["$defs"] as Obj)["AnalyzeParams"] as Obj)["type"] = 5;
      write("gaze.schema.json", JSON.stringify(schema));
    });
    assert.equal(error.file, "gaze.schema.json");
    assert.equal(error.pointer, "/$defs/AnalyzeParams/type");
  });

  it("a $ref to a type no schema defines", () => {
    const error = refusal(({ manifest }) => {
      (methods(manifest)["complexity"] as Obj)["result"] = { $ref: "gaze.schema.json#/$defs/NoSuchType" };
    });
    assert.deepEqual([error.file, error.pointer], ["protocol.json", "/methods/complexity/result/$ref"]);
    assert.match(error.detail, /NoSuchType/);
  });

  it("a message schema whose alternatives overlap recursively: the alternatives' file and pointer", () => {
    const error = refusal(({ manifest, write }) => {
      write(
        "deep.json",
        JSON.stringify({
          $defs: {
            R: { anyOf: [{ type: "array", items: { $ref: "#/$defs/R" } }, { type: "array", items: { $ref: "#/$defs/R" } }] },
          },
        }),
      );
      (manifest["schemas"] as string[]).push("deep.json");
      methods(manifest)["analyze"]!["result"] = { $ref: "deep.json#/$defs/R" };
    });
    // The outermost subschema of the exploding component: the first alternative's recursion.
    assert.deepEqual([error.file, error.pointer], ["deep.json", "/$defs/R/anyOf/0/items"]);
    assert.match(error.detail, /overlap and recurse into the same place/);
    assert.match(error.detail, /\/methods\/analyze\/result\/\$ref/);
  });
});

describe("schemas whose alternatives overlap recursively (tests/vectors/schemas/overlap.json)", () => {
  const vectors = JSON.parse(readFileSync(join(repoRoot(), "tests", "vectors", "schemas", "overlap.json"), "utf8")) as {
    cases: { name: string; defs: Obj; overlaps: boolean }[];
  };
  for (const vector of vectors.cases) {
    it(vector.name, () => {
      const files = new Map([["v.json", { $defs: vector.defs }]]);
      const found = Overlaps.of(files, (ref, from) => (ref === "" ? from : undefined)).reach("v.json", "/$defs/R");
      assert.equal(found !== undefined, vector.overlaps);
      if (found !== undefined) assert.match(found, /^v\.json#\/\$defs\//);
    });
  }
  it("no protocol in schemas/ has one (every folder loads)", () => {
    for (const [path] of GENERATED) loadProtocol(join(repoRoot(), "schemas", path));
    loadProtocol(join(repoRoot(), "schemas", "lsp", "3.17"));
  });
});

describe("a protocol that states no frame bound", () => {
  it("loads, and every frame is held to wirekit's own bound", () => {
    const dir = mkdtempSync(join(tmpdir(), "wirekit-unbounded-"));
    try {
      cpSync(join(repoRoot(), "schemas", "gaze-analyzer", "1.0.0"), dir, { recursive: true });
      const manifest = JSON.parse(readFileSync(join(dir, "protocol.json"), "utf8")) as Record<string, Record<string, unknown>>;
      delete manifest["transport"]?.["max_frame_bytes"];
      writeFileSync(join(dir, "protocol.json"), JSON.stringify(manifest));
      const loaded = loadProtocol(dir);
      assert.equal(loaded.maxFrameBytes, 64 * 1024 * 1024);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
