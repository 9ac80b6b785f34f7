/**
 * Protocols from a folder at run time: `protocol.json` and the schema files
 * it lists, checked like the core checks them (the manifest against
 * `schemas/wirekit-protocol.schema.json`, each schema file against JSON
 * Schema Draft 2020-12, the manifest's cross-references, every `$ref`
 * resolved), then compiled with ajv into the descriptor's validators.
 * Anything broken is refused with a {@link ManifestError} naming the file
 * and the JSON pointer at fault.
 *
 * ```ts
 * import { loadProtocol, spawnServer } from "@wirekit/protocols";
 *
 * const mine = loadProtocol("./schemas/my-protocol/1.0");
 * const client = spawnServer("my-server", [], mine);
 * ```
 *
 * The generated descriptors (`gzkitAuthoringGuide`, ...) stay the default:
 * they need no file at run time.
 *
 * @module
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

import { Ajv2020 } from "ajv/dist/2020.js";

import { JsonSyntaxError, parseJson } from "./json.js";
import { Overlaps } from "./overlap.js";
import {
  checkConsistency,
  escapeToken,
  ManifestError,
  protocolFromManifest,
  type NotificationMap,
  type ProtocolDescriptor,
  type RequestMap,
  schemaTypeOf,
} from "./protocol.js";
import type { SchemaValidator } from "./validation.js";
import { validators as manifestValidators } from "../validators/manifest.js";

/** The name of a version's manifest file. */
export const MANIFEST_FILE = "protocol.json";

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function readJson(dir: string, file: string): unknown {
  let text: string;
  try {
    text = readFileSync(join(dir, file), "utf8");
  } catch (error) {
    throw new ManifestError(file, "", `cannot read: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    return parseJson(text, { detectDuplicates: true }).value;
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new ManifestError(file, "", `not valid JSON: ${error.message}`);
    throw error;
  }
}

/** The first issue ajv found, as a pointer and a sentence. */
function firstIssue(errors: readonly { instancePath: string; keyword: string; params: Record<string, unknown>; message?: string }[] | null | undefined): [string, string] {
  const error = errors?.[0];
  if (error === undefined) return ["", "is not valid"];
  const missing = error.params["missingProperty"];
  const extra = error.params["additionalProperty"] ?? error.params["unevaluatedProperty"];
  if (typeof missing === "string") return [`${error.instancePath}/${escapeToken(missing)}`, "required member is missing"];
  if (typeof extra === "string") return [`${error.instancePath}/${escapeToken(extra)}`, "member is not allowed here"];
  return [error.instancePath, error.message ?? `fails \`${error.keyword}\``];
}

/** Rewrites every `$ref` that starts with another file's `$id` to that file's own URL (so files refer to each other by name or by `$id`). */
function rewriteRefs(value: unknown, ids: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, ids));
  if (!isObj(value)) return value;
  const out: Obj = {};
  for (const [key, member] of Object.entries(value)) {
    if (key === "$ref" && typeof member === "string") {
      const [base = "", fragment] = member.split("#", 2);
      const target = ids.get(base);
      out[key] = target === undefined ? member : fragment === undefined ? target : `${target}#${fragment}`;
    } else {
      out[key] = rewriteRefs(member, ids);
    }
  }
  return out;
}

/**
 * Loads the protocol version in `dir` (`protocol.json` and its schema
 * files; every other `*.json` of the folder when the manifest lists none).
 * Throws a {@link ManifestError} (file, pointer, reason) when the folder does
 * not hold a protocol the runtime can use. Supply the generated method maps
 * as type arguments when there are some; they are not checked.
 */
export function loadProtocol<
  R extends RequestMap<R> = Record<string, { params: unknown; result: unknown }>,
  N extends NotificationMap<N> = Record<string, { params: unknown }>,
  SN extends NotificationMap<SN> = Record<string, { params: unknown }>,
>(dir: string): ProtocolDescriptor<R, N, SN> {
  const manifest = readJson(dir, MANIFEST_FILE);
  const checkManifest = manifestValidators["Manifest"];
  if (checkManifest === undefined) throw new Error("the manifest validator is missing (regenerate the validators)");
  if (!checkManifest(manifest)) {
    const [pointer, detail] = firstIssue(checkManifest.errors);
    throw new ManifestError(MANIFEST_FILE, pointer, detail);
  }
  checkConsistency(manifest, MANIFEST_FILE);
  const m = manifest as Obj;
  const listed = Array.isArray(m["schemas"]) ? (m["schemas"] as string[]) : undefined;
  const names =
    listed ?? readdirSync(dir).filter((name) => name.endsWith(".json") && name !== MANIFEST_FILE).sort();
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
  const base = (name: string): string => pathToFileURL(join(resolve(dir), name)).href;
  const files = new Map<string, Obj>();
  const ids = new Map<string, string>();
  const fileById = new Map<string, string>();
  names.forEach((name, index) => {
    if (!existsSync(join(dir, name))) {
      throw new ManifestError(MANIFEST_FILE, `/schemas/${index}`, `schema file \`${name}\` is listed but not present`);
    }
    const schema = readJson(dir, name);
    if (!isObj(schema)) throw new ManifestError(name, "", "a schema file must hold a JSON object");
    if (!ajv.validateSchema(schema)) {
      const [pointer, detail] = firstIssue(ajv.errors as never);
      throw new ManifestError(name, pointer, `not a Draft 2020-12 schema: ${detail}`);
    }
    if (typeof schema["$id"] === "string") {
      ids.set(schema["$id"], base(name));
      fileById.set(schema["$id"], name);
    }
    files.set(name, schema);
  });
  for (const [name, schema] of files) {
    ajv.addSchema({ ...(rewriteRefs(schema, ids) as Obj), $id: base(name) });
  }
  // Schemas whose alternatives overlap recursively (overlap.ts): ajv's time on them grows
  // exponentially with the depth of the peer's value, so a message using one is refused.
  const overlaps = Overlaps.of(files, (ref, from) => {
    if (ref === "") return from;
    if (files.has(ref)) return ref;
    const byId = fileById.get(ref) ?? fileById.get(ref.replace(/#$/, ""));
    if (byId !== undefined) return byId;
    const last = ref.slice(ref.lastIndexOf("/") + 1);
    return !ref.includes("://") && files.has(last) ? last : undefined;
  });
  const validators: Record<string, SchemaValidator> = {};
  const compile = (schema: unknown, pointer: string): void => {
    const type = schemaTypeOf(schema);
    const ref = isObj(schema) ? schema["$ref"] : undefined;
    if (type === undefined || typeof ref !== "string" || validators[type] !== undefined) return;
    const [file = "", fragment = ""] = ref.split("#", 2);
    if (!files.has(file)) throw new ManifestError(MANIFEST_FILE, pointer, `\`${ref}\` names a file that is not one of the protocol's schemas`);
    let entry = fragment;
    try {
      entry = decodeURIComponent(fragment);
    } catch {
      // ajv refuses the reference below.
    }
    const exploding = overlaps.reach(file, entry);
    if (exploding !== undefined) {
      const [at = "", inner = ""] = exploding.split("#", 2);
      throw new ManifestError(
        at,
        inner,
        `alternatives here overlap and recurse into the same place, so validating a peer's value against \`${ref}\` (${pointer}) takes time exponential in its depth; the wirekit core reports such a schema along one bounded path, this runtime (ajv) cannot: make at most one alternative recurse into each place`,
      );
    }
    try {
      validators[type] = ajv.compile({ $ref: `${base(file)}#${fragment}` }) as SchemaValidator;
    } catch (error) {
      throw new ManifestError(MANIFEST_FILE, pointer, `\`${ref}\`: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  for (const [name, spec] of Object.entries(m["methods"] as Obj)) {
    for (const part of ["params", "result", "result_stream"]) {
      compile((spec as Obj)[part], `/methods/${escapeToken(name)}/${part}/$ref`);
    }
  }
  compile(m["error_data"], "/error_data/$ref");
  compile(m["error_object"], "/error_object/$ref");
  return protocolFromManifest<R, N, SN>(manifest, validators);
}
