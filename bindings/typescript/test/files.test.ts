/**
 * `protocolFromFiles`: a protocol folder given as files in memory is judged
 * exactly as `loadProtocol` judges it on disk (one code path): the same
 * descriptors and verdicts for the shipped folders and a protocol of one's
 * own (a schema in a subfolder), the same `ManifestError` (file, pointer,
 * message) for broken ones.
 */

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";

import { loadProtocol, ManifestError, protocolFromFiles, validate, type ProtocolDescriptor } from "../src/index.js";
import { kvFiles, KV_MANIFEST, KV_SCHEMA } from "./kv.js";
import { repoRoot } from "./support.js";

/** Every file under `dir`, by its path relative to it. */
function filesOf(dir: string, under = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(dir, under))) {
    const path = under === "" ? name : `${under}/${name}`;
    if (statSync(join(dir, path)).isDirectory()) Object.assign(out, filesOf(dir, path));
    else out[path] = readFileSync(join(dir, path), "utf8");
  }
  return out;
}

/** `files` written to a fresh folder; removed after `body`. */
function inFolder<T>(files: Record<string, string>, body: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "wirekit-files-"));
  try {
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    return body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The two descriptors are the same: every member but the validators equal, the same validators judging `values` alike. */
function assertSame(fromDisk: ProtocolDescriptor, fromFiles: ProtocolDescriptor, values: [string, "params" | "result", unknown][]): void {
  const { validators: diskValidators, ...disk } = fromDisk;
  const { validators: fileValidators, ...files } = fromFiles;
  assert.deepEqual(files, disk);
  assert.deepEqual(Object.keys(fileValidators ?? {}).sort(), Object.keys(diskValidators ?? {}).sort());
  assert.ok(values.length > 0);
  for (const [method, part, value] of values) {
    const type = fromDisk.methods[method]?.[part];
    assert.ok(type !== undefined, `${method} has a ${part} type`);
    const a = validate(diskValidators?.[type] ?? assert.fail(type), value, part);
    const b = validate(fileValidators?.[type] ?? assert.fail(type), value, part);
    assert.deepEqual(b, a, `${method} ${part} ${JSON.stringify(value)}`);
  }
}

/** The error `run` throws, as a ManifestError. */
function refusal(run: () => unknown): ManifestError {
  try {
    run();
  } catch (error) {
    if (error instanceof ManifestError) return error;
    throw error;
  }
  assert.fail("accepted");
}

describe("protocolFromFiles gives what loadProtocol gives", () => {
  it("gzkit-authoring-guide 1.0: the same descriptor and verdicts", () => {
    const dir = join(repoRoot(), "schemas", "gzkit-authoring-guide", "1.0");
    assertSame(loadProtocol(dir), protocolFromFiles(filesOf(dir)), [
      ["initialize", "params", { clientVersion: "1.0" }],
      ["initialize", "params", { clientVersion: "one" }],
      ["initialize", "params", {}],
      ["analyze", "result", { hints: [{ start_line: "1" }] }],
      ["analyze", "result", { hints: [] }],
    ]);
  });

  it("mcp 2025-06-18 (draft-07 published schema, a meta/ subfolder beside): the same descriptor and verdicts", () => {
    const dir = join(repoRoot(), "schemas", "mcp", "2025-06-18");
    const files = filesOf(dir);
    assert.ok("meta/derive.json" in files);
    assertSame(loadProtocol(dir), protocolFromFiles(files), [
      ["initialize", "params", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } }],
      ["initialize", "params", { protocolVersion: 7 }],
      ["tools/call", "params", { name: "add", arguments: { a: 1 } }],
      ["tools/call", "params", { name: 3 }],
    ]);
  });

  it("a protocol of one's own with a schema in a subfolder: the same descriptor, verdicts and serving details", () => {
    const files = kvFiles();
    const fromFiles = protocolFromFiles(files);
    inFolder(files, (dir) =>
      assertSame(loadProtocol(dir), fromFiles, [
        ["put", "params", { key: "a", value: 9.0 }],
        ["put", "params", { key: "A", value: 1 }],
        ["put", "params", { key: "", value: "x" }],
        ["get", "result", { value: null }],
      ]),
    );
    assert.deepEqual(fromFiles.serving?.violation, { code: -32002, message: "{method} needs {allowed}, not {state}" });
    assert.deepEqual(fromFiles.serving?.serverErrors, { invalid_params: { data: { errors: "{errors}", method: "{method}" } } });
  });

  it("numbers and duplicate member names are judged by their text, as from disk", () => {
    const files = kvFiles();
    // `9.0` written as such, and a duplicate `minLength` (the last one counts in both).
    files["kv.schema.json"] = files["kv.schema.json"]!.replace('"value": {\n          "type": "number"\n        }', '"value": {\n          "type": "number",\n          "maximum": 9.0\n        }');
    files["meta/common.json"] = files["meta/common.json"]!.replace('"minLength": 1,', '"minLength": 5,\n      "minLength": 1,');
    assert.match(files["kv.schema.json"]!, /"maximum": 9\.0/);
    assert.match(files["meta/common.json"]!, /"minLength": 5,/);
    inFolder(files, (dir) =>
      assertSame(loadProtocol(dir), protocolFromFiles(files), [
        ["put", "params", { key: "ab", value: 9 }],
        ["put", "params", { key: "ab", value: 9.5 }],
        ["put", "params", { key: "abcdef", value: 1e300 }],
      ]),
    );
    const put = protocolFromFiles(files).validators?.["PutParams"] ?? assert.fail();
    assert.deepEqual(validate(put, { key: "ab", value: 9 }, "params"), []);
    assert.deepEqual(validate(put, { key: "ab", value: 9.5 }, "params").map((i) => i.pointer), ["/params/value"]);
  });
});

describe("broken files: the same ManifestError from disk and from memory", () => {
  const cases: [string, (files: Record<string, string>) => void, string][] = [
    ["a listed schema file missing", (f) => delete f["meta/common.json"], "protocol.json"],
    ["a schema file that is not JSON", (f) => (f["kv.schema.json"] = '{"$defs": {'), "kv.schema.json"],
    ["a manifest that is not JSON", (f) => (f["protocol.json"] = "{]"), "protocol.json"],
    ["a manifest the meta-schema refuses", (f) => (f["protocol.json"] = JSON.stringify({ ...KV_MANIFEST, transport: { framing: "smoke" } })), "protocol.json"],
    [
      "a manifest naming an unknown state",
      (f) => (f["protocol.json"] = JSON.stringify({ ...KV_MANIFEST, lifecycle: { ...KV_MANIFEST.lifecycle, initial: "nowhere" } })),
      "protocol.json",
    ],
    [
      "a schema its dialect refuses",
      (f) => (f["kv.schema.json"] = JSON.stringify({ ...KV_SCHEMA, $defs: { ...KV_SCHEMA.$defs, Empty: { type: 5 } } })),
      "kv.schema.json",
    ],
    [
      "a $ref to a file not among the given ones",
      (f) => (f["kv.schema.json"] = f["kv.schema.json"]!.split("meta/common.json").join("meta/absent.json")),
      "protocol.json",
    ],
  ];
  for (const [name, breakIt, file] of cases) {
    it(name, () => {
      const files = kvFiles();
      breakIt(files);
      const disk = inFolder(files, (dir) => refusal(() => loadProtocol(dir)));
      const memory = refusal(() => protocolFromFiles(files));
      assert.deepEqual({ file: memory.file, pointer: memory.pointer, message: memory.message }, { file: disk.file, pointer: disk.pointer, message: disk.message });
      assert.equal(memory.file, file, memory.message);
    });
  }

  it("no protocol.json at all", () => {
    const memory = refusal(() => protocolFromFiles({ "kv.schema.json": "{}" }));
    const disk = inFolder({ "kv.schema.json": "{}" }, (dir) => refusal(() => loadProtocol(dir)));
    assert.deepEqual([memory.file, memory.pointer], [disk.file, disk.pointer]);
    assert.match(memory.message, /^protocol\.json: cannot read/);
  });
});
