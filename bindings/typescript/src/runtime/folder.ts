/**
 * Protocols from a folder at run time ({@link loadProtocol}), or from the
 * folder's files given in memory ({@link protocolFromFiles}, which
 * `loadProtocol` calls once it has read them): `protocol.json` and the
 * schema files it lists, checked like the core checks them (the manifest against
 * `schemas/wirekit-protocol.schema.json`, each schema file against its
 * dialect's meta-schema, the manifest's cross-references, every `$ref`
 * resolved), then compiled into the descriptor's validators. Anything
 * broken is refused with a {@link ManifestError} naming the file and the
 * JSON pointer at fault.
 *
 * The schema files are JSON Schema resources read as the manifest's
 * `json_schema` says: each is registered under its retrieval URI (`base_uri`
 * joined with its name) with its own `$id`, a file without `$schema` takes
 * `dialect` (draft 2020-12, 2019-09 or draft-07), and references resolve as
 * the standard says, by the validators (`$id`, `$anchor`, `$dynamicRef`,
 * URNs, percent-encoded pointers), among the folder's files only: nothing is
 * fetched. `@hyperjump/json-schema` (which passes the official suite) decides
 * wherever ajv would not be right (`unevaluated*`, `$dynamicRef`, custom
 * dialects, members named `__proto__`, draft-07 `$ref` siblings, asserted
 * formats, numbers beyond a double's precision), ajv elsewhere (it is ~25x
 * faster on large messages); see `hyperjump.ts`.
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
import { join } from "node:path";

import { Ajv as AjvDraft07, type Ajv } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";

import { hyperjumpValidator } from "./hyperjump.js";
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
import { compileSchemas } from "./schema-compiler.js";
import { holdsInexactNumber, type SchemaValidator } from "./validation.js";
import { validators as manifestValidators } from "../generated/validators/manifest.js";

/** The name of a version's manifest file. */
export const MANIFEST_FILE = "protocol.json";

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function readText(dir: string, file: string): string {
  try {
    return readFileSync(join(dir, file), "utf8");
  } catch (error) {
    throw new ManifestError(file, "", `cannot read: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** A file's value, from its text. */
function parseFile(file: string, text: string): unknown {
  try {
    return parseJson(text, { detectDuplicates: true }).value;
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new ManifestError(file, "", `not valid JSON: ${error.message}`);
    throw error;
  }
}

/** One schema file of the folder. */
interface SchemaFileOfProtocol {
  /** Its path in the folder, as the manifest lists it. */
  readonly name: string;
  /** Its retrieval URI: the protocol's base URI joined with its name. */
  readonly uri: string;
  readonly schema: Obj | boolean;
  readonly text: string;
  /** Its own `$schema`, else the manifest's default dialect. */
  readonly dialect: string;
}

const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";
const DRAFT_2019_09 = "https://json-schema.org/draft/2019-09/schema";
const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

type AjvClass = typeof Ajv2020 | typeof Ajv2019 | typeof AjvDraft07;

/** The dialects ajv knows, each with its class and its name in messages. */
const STANDARD_DIALECTS = new Map<string, { ajv: AjvClass; name: string }>([
  [DRAFT_2020_12, { ajv: Ajv2020, name: "Draft 2020-12" }],
  [DRAFT_2019_09, { ajv: Ajv2019, name: "Draft 2019-09" }],
  [DRAFT_07, { ajv: AjvDraft07, name: "Draft-07" }],
  ["http://json-schema.org/draft-07/schema", { ajv: AjvDraft07, name: "Draft-07" }],
]);

/** Dialects in which a `$ref` makes its sibling keywords ignored (ajv applies them). */
const REF_SIBLINGS_IGNORED = new Set([DRAFT_07, "http://json-schema.org/draft-07/schema"]);

/**
 * Keywords ajv gets wrong against the official suite (`unevaluated*` with
 * `contains`, `if` without `then`, nested `items`; `$dynamicRef` scopes):
 * a schema reaching one is validated by the standard's validator alone.
 */
const AJV_WRONG = /unevaluated|dynamicRef|dynamicAnchor|recursiveRef|recursiveAnchor/;

/** Annotation keywords, which a `$ref` beside them leaves meaning what they meant. */
const ANNOTATIONS = new Set(["$comment", "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly"]);

/** Whether some object in `value` has a `$ref` beside keywords that validate (ignored in draft-07, applied by ajv). */
function refHasSiblings(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(refHasSiblings);
  if (!isObj(value)) return false;
  const keys = Object.keys(value);
  if (typeof value["$ref"] === "string" && keys.some((key) => key !== "$ref" && !ANNOTATIONS.has(key))) return true;
  return keys.some((key) => refHasSiblings(value[key]));
}

const metaValidators = new Map<AjvClass, Ajv>();

/** The ajv that checks schema files of `dialect` against its meta-schema (one a dialect, kept). */
function metaValidatorFor(dialect: AjvClass): Ajv {
  let ajv = metaValidators.get(dialect);
  if (ajv === undefined) {
    ajv = ajvFor(dialect, true);
    metaValidators.set(dialect, ajv);
  }
  return ajv;
}

/** An ajv of `dialect` with wirekit's options: every error, own properties only, no coercion, no defaults, formats left to the standard's validator. */
function ajvFor(dialect: AjvClass, validateSchema: boolean): Ajv {
  return new dialect({ allErrors: true, strict: false, validateFormats: false, ownProperties: true, validateSchema, logger: false });
}

/** `reference` resolved against `base` (`undefined` when it is not a URI reference). */
function resolveUri(reference: string, base: string): string | undefined {
  try {
    return new URL(reference, base).href;
  } catch {
    return undefined;
  }
}

/** `schema` with its root `$id` resolved against its retrieval URI (ajv takes a relative root `$id` as the base itself). */
function withAbsoluteId(schema: Obj | boolean, uri: string): Obj | boolean {
  if (!isObj(schema) || typeof schema["$id"] !== "string") return schema;
  const id = resolveUri(schema["$id"], uri) ?? schema["$id"];
  const copy: Obj = {};
  // defineProperty: a member named `__proto__` stays a member.
  for (const key of Object.keys(schema)) {
    Object.defineProperty(copy, key, { value: key === "$id" ? id : schema[key], writable: true, enumerable: true, configurable: true });
  }
  return copy;
}

/**
 * ajv's fast validator where it is right, the standard's where it is not:
 * a value holding a number that only its written text gives exactly (an
 * integer beyond 2^53) is checked by the exact keywords, and so is one
 * ajv's generated code cannot finish (its stack exhausted).
 */
function bothValidators(fast: SchemaValidator, exact: SchemaValidator & { withText: (data: unknown, written: string | undefined) => boolean }): SchemaValidator {
  const check = (data: unknown, written: string | undefined): boolean => {
    if (!holdsInexactNumber(data, written)) {
      try {
        const valid = fast(data);
        validator.errors = fast.errors ?? null;
        return valid;
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
      }
    }
    const valid = exact.withText(data, written);
    validator.errors = exact.errors ?? null;
    return valid;
  };
  const validator: SchemaValidator = Object.assign((data: unknown): boolean => check(data, undefined), { withText: check });
  return validator;
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

/**
 * Loads the protocol version in `dir` (`protocol.json` and its schema
 * files; every other `*.json` of the folder when the manifest lists none):
 * reads the files and hands them to {@link protocolFromFiles}, so a folder
 * and its files given in memory are judged alike. Throws a
 * {@link ManifestError} (file, pointer, reason) when the folder does not
 * hold a protocol the runtime can use. Supply the generated method maps as
 * type arguments when there are some; they are not checked.
 */
export function loadProtocol<
  R extends RequestMap<R> = Record<string, { params: unknown; result: unknown }>,
  N extends NotificationMap<N> = Record<string, { params: unknown }>,
  SN extends NotificationMap<SN> = Record<string, { params: unknown }>,
>(dir: string): ProtocolDescriptor<R, N, SN> {
  const manifestText = readText(dir, MANIFEST_FILE);
  const files: Record<string, string> = {};
  define(files, MANIFEST_FILE, manifestText);
  // The schema files the manifest lists (read now, judged in protocolFromFiles's order: a file that
  // cannot be read is refused where its turn comes); a manifest that does not parse lists none.
  let listed: unknown;
  try {
    const manifest = parseJson(manifestText, { detectDuplicates: true }).value;
    listed = isObj(manifest) ? manifest["schemas"] : undefined;
  } catch {
    listed = undefined;
  }
  const names = Array.isArray(listed)
    ? listed.filter((name): name is string => typeof name === "string")
    : readdirSync(dir).filter((name) => name.endsWith(".json") && name !== MANIFEST_FILE);
  const unreadable = new Map<string, ManifestError>();
  for (const name of names) {
    if (name === MANIFEST_FILE || Object.prototype.hasOwnProperty.call(files, name) || !existsSync(join(dir, name))) continue;
    try {
      define(files, name, readText(dir, name));
    } catch (error) {
      if (!(error instanceof ManifestError)) throw error;
      unreadable.set(name, error);
    }
  }
  return fromFiles<R, N, SN>(files, unreadable);
}

/** `record[key] = value`, a key named `__proto__` kept as a member. */
function define(record: Record<string, string>, key: string, value: string): void {
  Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * A protocol from its files in memory: the counterpart of
 * {@link loadProtocol} for files a program carries with it (what
 * `wirekit generate --out DIR --target typescript` embeds). Keys are the
 * files' paths relative to the protocol folder (`protocol.json`,
 * `kv.schema.json`, `meta/x.json`), values their JSON text, judged exactly
 * as the same files on disk: the manifest against the meta-schema, each
 * schema against its dialect, the cross-references, every `$ref` resolved
 * among the given files, a listed file that is not given refused. When the
 * manifest lists no `schemas`, every other `*.json` key outside a subfolder
 * is a schema file (as a folder's own `*.json` files). Throws the same
 * {@link ManifestError}s as {@link loadProtocol}.
 *
 * ```ts
 * import { protocolFromFiles, serveStdio } from "@wirekit/protocols";
 *
 * const kv = protocolFromFiles({ "protocol.json": manifestText, "kv.schema.json": schemaText });
 * ```
 */
export function protocolFromFiles<
  R extends RequestMap<R> = Record<string, { params: unknown; result: unknown }>,
  N extends NotificationMap<N> = Record<string, { params: unknown }>,
  SN extends NotificationMap<SN> = Record<string, { params: unknown }>,
>(files: Readonly<Record<string, string>>): ProtocolDescriptor<R, N, SN> {
  return fromFiles<R, N, SN>(files, new Map());
}

/** {@link protocolFromFiles}, with the files a folder listed but could not read (refused in their turn). */
function fromFiles<
  R extends RequestMap<R>,
  N extends NotificationMap<N>,
  SN extends NotificationMap<SN>,
>(files: Readonly<Record<string, string>>, unreadable: ReadonlyMap<string, ManifestError>): ProtocolDescriptor<R, N, SN> {
  const has = (name: string): boolean => Object.prototype.hasOwnProperty.call(files, name) && typeof files[name] === "string";
  if (!has(MANIFEST_FILE)) throw new ManifestError(MANIFEST_FILE, "", "cannot read: the protocol's files hold no `protocol.json`");
  const manifest = parseFile(MANIFEST_FILE, files[MANIFEST_FILE]!);
  const checkManifest = manifestValidators["Manifest"];
  if (checkManifest === undefined) throw new Error("the manifest validator is missing (regenerate the validators)");
  if (!checkManifest(manifest)) {
    const [pointer, detail] = firstIssue(checkManifest.errors);
    throw new ManifestError(MANIFEST_FILE, pointer, detail);
  }
  checkConsistency(manifest, MANIFEST_FILE);
  const m = manifest as Obj;
  const settings = isObj(m["json_schema"]) ? m["json_schema"] : {};
  const dialect = typeof settings["dialect"] === "string" ? settings["dialect"] : DRAFT_2020_12;
  const base = typeof settings["base_uri"] === "string" ? settings["base_uri"] : `https://wirekit.invalid/${String(m["protocol"])}/${String(m["version"])}/`;
  const assertFormats = settings["formats"] === "assert";
  const listed = Array.isArray(m["schemas"]) ? (m["schemas"] as string[]) : undefined;
  const names =
    listed ?? Object.keys(files).filter((name) => name.endsWith(".json") && name !== MANIFEST_FILE && !name.includes("/")).sort();
  const uriOf = (name: string): string => new URL(name, base).href;
  const schemaFiles = new Map<string, SchemaFileOfProtocol>();
  names.forEach((name, index) => {
    const failed = unreadable.get(name);
    if (failed !== undefined) throw failed;
    if (!has(name)) {
      throw new ManifestError(MANIFEST_FILE, `/schemas/${index}`, `schema file \`${name}\` is listed but not present`);
    }
    const text = files[name]!;
    const schema = parseFile(name, text);
    if (!isObj(schema) && typeof schema !== "boolean") throw new ManifestError(name, "", "a schema file must hold a JSON object or a boolean");
    const own = isObj(schema) && typeof schema["$schema"] === "string" ? schema["$schema"] : undefined;
    const fileDialect = own ?? dialect;
    const standard = STANDARD_DIALECTS.get(fileDialect);
    if (standard !== undefined && isObj(schema)) {
      const meta = metaValidatorFor(standard.ajv);
      if (!meta.validateSchema(schema)) {
        const [pointer, detail] = firstIssue(meta.errors as never);
        throw new ManifestError(name, pointer, `not a ${standard.name} schema: ${detail}`);
      }
    }
    schemaFiles.set(name, { name, uri: uriOf(name), schema, text, dialect: fileDialect });
  });
  // Schemas whose alternatives overlap recursively (overlap.ts): validating a value against one takes time
  // exponential in its depth, so a message using one is refused.
  const fileByUri = new Map<string, string>();
  for (const file of schemaFiles.values()) {
    fileByUri.set(file.uri, file.name);
    const id = isObj(file.schema) ? file.schema["$id"] : undefined;
    if (typeof id === "string") fileByUri.set(resolveUri(id, file.uri)?.replace(/#$/, "") ?? id, file.name);
  }
  const overlaps = Overlaps.of(new Map([...schemaFiles].map(([name, file]) => [name, file.schema])), (ref, from) => {
    if (ref === "") return from;
    const target = resolveUri(ref, schemaFiles.get(from)?.uri ?? base);
    return target === undefined ? undefined : fileByUri.get(target);
  });
  const manifestUri = new URL(MANIFEST_FILE, base).href;
  const entries: { type: string; pointer: string; ref: string; uri: string }[] = [];
  const entry = (schema: unknown, pointer: string): void => {
    const type = schemaTypeOf(schema);
    const ref = isObj(schema) ? schema["$ref"] : undefined;
    if (type === undefined || typeof ref !== "string" || entries.some((e) => e.type === type)) return;
    const uri = resolveUri(ref, manifestUri);
    if (uri === undefined) throw new ManifestError(MANIFEST_FILE, pointer, `\`${ref}\` is not a URI reference`);
    const hash = uri.indexOf("#");
    const fragment = hash < 0 ? "" : uri.slice(hash + 1);
    const file = fileByUri.get(hash < 0 ? uri : uri.slice(0, hash));
    let decoded: string | undefined;
    try {
      decoded = decodeURIComponent(fragment);
    } catch {
      decoded = undefined;
    }
    const exploding = file === undefined || decoded === undefined || !(decoded === "" || decoded.startsWith("/")) ? undefined : overlaps.reach(file, decoded);
    if (exploding !== undefined) {
      const [at = "", inner = ""] = exploding.split("#", 2);
      throw new ManifestError(
        at,
        inner,
        `alternatives here overlap and recurse into the same place, so validating a peer's value against \`${ref}\` (${pointer}) takes time exponential in its depth; the wirekit core reports such a schema along one bounded path, this runtime cannot: make at most one alternative recurse into each place`,
      );
    }
    entries.push({ type, pointer, ref, uri });
  };
  for (const [name, spec] of Object.entries(m["methods"] as Obj)) {
    for (const part of ["params", "result", "result_stream"]) {
      entry((spec as Obj)[part], `/methods/${escapeToken(name)}/${part}/$ref`);
    }
  }
  entry(m["error_data"], "/error_data/$ref");
  entry(m["error_object"], "/error_object/$ref");
  const reply = compileSchemas({
    files: [...schemaFiles.values()].map(({ uri, text }) => ({ uri, text })),
    dialect,
    assertFormats,
    entries: entries.map((e) => e.uri),
  });
  if (reply.error !== undefined || reply.entries === undefined) {
    const file = [...schemaFiles.values()].find((f) => f.uri === reply.error?.file);
    throw new ManifestError(file?.name ?? MANIFEST_FILE, "", reply.error?.message ?? "the schemas were not compiled");
  }
  const siblingsIgnored = [...schemaFiles.values()].some((file) => REF_SIBLINGS_IGNORED.has(file.dialect) && refHasSiblings(file.schema));
  // A schema writing a number its double does not hold (an integer beyond 2^53): ajv would compare the double.
  const inexactSchema = [...schemaFiles.values()].some((file) => holdsInexactNumber(file.schema));
  const ajvs = new Map<string, Ajv | undefined>();
  const ajvOf = (fileDialect: string): Ajv | undefined => {
    if (ajvs.has(fileDialect)) return ajvs.get(fileDialect);
    const standard = STANDARD_DIALECTS.get(fileDialect);
    let ajv: Ajv | undefined = standard === undefined ? undefined : ajvFor(standard.ajv, false);
    try {
      for (const file of schemaFiles.values()) if (file.dialect === fileDialect && ajv !== undefined) ajv.addSchema(withAbsoluteId(file.schema, file.uri) as never, file.uri);
    } catch {
      // ajv refuses what the standard's validator accepted (two files with one `$id`, ...): the standard's validator checks alone.
      ajv = undefined;
    }
    ajvs.set(fileDialect, ajv);
    return ajv;
  };
  const ajvCompile = (dialectOfEntry: string, uri: string): SchemaValidator | undefined => {
    try {
      return ajvOf(dialectOfEntry)?.compile({ $ref: uri }) as SchemaValidator | undefined;
    } catch {
      return undefined;
    }
  };
  const validators: Record<string, SchemaValidator> = {};
  reply.entries.forEach((compiled, index) => {
    const { type, uri, pointer, ref } = entries[index]!;
    if ("error" in compiled) {
      // The standard's validator could not compile it (a draft-07 pointer into an embedded resource, ...): ajv
      // alone, where nothing in the folder is what ajv gets wrong; else the folder is refused.
      const dialects = new Set([...schemaFiles.values()].map((file) => file.dialect));
      const [only] = dialects;
      const trusted =
        !assertFormats &&
        dialects.size === 1 &&
        only !== undefined &&
        STANDARD_DIALECTS.has(only) &&
        !siblingsIgnored &&
        !inexactSchema &&
        ![...schemaFiles.values()].some((file) => AJV_WRONG.test(file.text) || file.text.includes('"__proto__"'));
      const alone = trusted ? ajvCompile(only, uri) : undefined;
      if (alone === undefined) throw new ManifestError(MANIFEST_FILE, pointer, `\`${ref}\`: ${compiled.error}`);
      validators[type] = alone;
      return;
    }
    const exact = hyperjumpValidator(compiled.compiled);
    const onlyDialect = compiled.dialects.length === 1 ? compiled.dialects[0] : undefined;
    const ajvTrusted =
      !assertFormats &&
      !inexactSchema &&
      onlyDialect !== undefined &&
      STANDARD_DIALECTS.has(onlyDialect) &&
      !compiled.keywords.some((keyword) => AJV_WRONG.test(keyword)) &&
      !compiled.compiled.includes('"__proto__"') &&
      !(siblingsIgnored && REF_SIBLINGS_IGNORED.has(onlyDialect));
    const fast = ajvTrusted ? ajvCompile(onlyDialect, uri) : undefined;
    validators[type] = fast === undefined ? exact : bothValidators(fast, exact);
  });
  return protocolFromManifest<R, N, SN>(manifest, validators);
}
