/** Shared helpers of the TypeScript test suite: where the repository is, and the shared vectors. */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { parseJson, type JsonObject, type JsonValue } from "../src/runtime/json.js";

/** The repository root: the first ancestor of this file holding `tests/vectors`. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "tests", "vectors", "README.md"))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error("cannot find the repository root (tests/vectors)");
    dir = up;
  }
}

/** One vector file: its name and cases, parsed with the runtime's own parser (so big integers keep their digits). */
export interface VectorFile {
  file: string;
  description: string;
  cases: JsonObject[];
}

/** Every `*.json` file of `tests/vectors/<layer>`, sorted by name. */
export function loadVectors(layer: string): VectorFile[] {
  const dir = join(repoRoot(), "tests", "vectors", layer);
  return readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((file) => {
      const parsed = parseJson(readFileSync(join(dir, file), "utf8")).value as JsonObject;
      return {
        file,
        description: String(parsed["description"]),
        cases: parsed["cases"] as JsonObject[],
      };
    });
}

/** Bytes of a case's `input` (UTF-8) or `input_hex`. */
export function inputBytes(c: JsonObject): Uint8Array {
  const hex = c["input_hex"];
  if (typeof hex === "string") return Uint8Array.from(Buffer.from(hex, "hex"));
  return new TextEncoder().encode(c["input"] as string);
}

/** A string field of a case. */
export function str(c: JsonObject, key: string): string {
  const v = c[key];
  if (typeof v !== "string") throw new Error(`case field ${key} is not a string`);
  return v;
}

/** Whether a JSON value is an object. */
export function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
