/**
 * The standard's validator: `@hyperjump/json-schema`, which passes the whole
 * official JSON-Schema-Test-Suite (draft-07, 2019-09, 2020-12: `$id`,
 * `$anchor`, `$dynamicRef`, `unevaluated*`, vocabularies, formats), with the
 * keywords that compare values made exact:
 *
 * - `maximum`, `minimum`, `exclusiveMaximum`, `exclusiveMinimum`,
 *   `multipleOf`, `const`, `enum`, `uniqueItems` compare numbers by their
 *   written text (`exact.ts`), on the message's side (the runtime's side
 *   table, `json.ts`) and on the schema's (the text in the schema files);
 * - `format` asserts or annotates as the protocol chose
 *   (`json_schema.formats`), whatever the library's global setting, and a
 *   format check that throws counts as a failure.
 *
 * Schemas are compiled in `schema-worker.ts` (the library compiles
 * asynchronously, `loadProtocol` is synchronous); the compiled schema comes
 * back serialized and is interpreted here, synchronously.
 *
 * @module
 */

import "@hyperjump/json-schema/draft-2020-12";
import "@hyperjump/json-schema/draft-2019-09";
import "@hyperjump/json-schema/draft-07";
import "@hyperjump/json-schema/formats";
import { setShouldValidateFormat } from "@hyperjump/json-schema/draft-2020-12";
import { isIri, isIriReference, isUri, isUriReference } from "@hyperjump/json-schema-formats";
import { addFormat, addKeyword, BASIC, deserialize, getKeyword, getKeywordName, interpret, type CompiledSchema } from "@hyperjump/json-schema/experimental";
import * as Instance from "@hyperjump/json-schema/instance/experimental";
import * as Browser from "@hyperjump/browser";

import { compareExact, equalityKey, exactKey, exactOf, exactOfKey, isMultipleOf, type Exact } from "./exact.js";
import { numberText } from "./json.js";
import type { SchemaValidator, ValidatorError } from "./validation.js";

/** What the schema side of a compilation knows: set by the worker for each protocol it compiles. */
export interface CompileContext {
  /** Whether `format` asserts (`json_schema.formats: "assert"`). */
  assertFormats: boolean;
  /** The exact value of a number of the schema files, by its double (throws when the files write two values with one double). */
  schemaNumber: (value: number) => Exact;
}

const compileContext: CompileContext = {
  assertFormats: false,
  schemaNumber: (value) => exactOf(value),
};

/** Sets what the next compilations know (the worker, before each protocol). */
export function setCompileContext(context: CompileContext): void {
  compileContext.assertFormats = context.assertFormats;
  compileContext.schemaNumber = context.schemaNumber;
}

/** The text of the top-level number being validated, for the call in progress. */
let rootWritten: string | undefined;

/** The library's instance node, as far as the exact keywords read it. */
interface Node {
  readonly value: unknown;
  readonly type: string;
  readonly parent: Node | undefined;
  readonly children: Node[];
}
/** What the keywords read of the library's schema cursor. */
type SchemaCursor = { document: { dialectId: string } };

/** The exact value of the number at `node`, from the text the runtime kept beside its container. */
function instanceExact(node: Node): Exact {
  const value = node.value as number;
  const parent = node.parent;
  if (parent === undefined) return exactOf(value, rootWritten);
  if (parent.type === "array") return exactOf(value, numberText(parent.value as object, parent.children.indexOf(node)));
  // An object member's node hangs under a property node: [name, value].
  const object = parent.parent;
  const name = parent.children[0]?.value;
  return object === undefined || typeof name !== "string" ? exactOf(value) : exactOf(value, numberText(object.value as object, name));
}

/** The equality text of the value at `node` (numbers exact, from the side table). */
function instanceKey(node: Node): string {
  let written: string | undefined;
  const parent = node.parent;
  if (typeof node.value === "number") return `n${exactKey(instanceExact(node))}`;
  if (parent === undefined) written = rootWritten;
  return equalityKey(node.value, written);
}

/** A schema value as plain JSON (the library keeps `$ref`-shaped members of `const` and `enum` as references). */
function plain(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/** The equality text of a schema value, its numbers exact as the schema files write them. */
function schemaKey(value: unknown): string {
  return equalityKey(plain(value), undefined, (v) => compileContext.schemaNumber(Number(v)));
}

/** The value at a schema cursor, as the library's own keywords read it. */
const browserValue = (schema: unknown): unknown => Browser.value(schema as never);

type Comparison = (order: number) => boolean;

function bound(id: string, holds: Comparison): void {
  const original = getKeyword<unknown>(id);
  addKeyword<string>({
    ...original,
    id,
    compile: async (schema) => exactKey(compileContext.schemaNumber(Number(browserValue(schema)))),
    interpret: (limit, instance) => Instance.typeOf(instance) !== "number" || holds(compareExact(instanceExact(instance as unknown as Node), exactOfKey(limit))),
  });
}

/** Replaces the library's comparing keywords by exact ones, and its format keywords by ones that follow the protocol's choice. */
function installKeywords(): void {
  bound("https://json-schema.org/keyword/maximum", (order) => order <= 0);
  bound("https://json-schema.org/keyword/minimum", (order) => order >= 0);
  bound("https://json-schema.org/keyword/exclusiveMaximum", (order) => order < 0);
  bound("https://json-schema.org/keyword/exclusiveMinimum", (order) => order > 0);
  const multipleOf = "https://json-schema.org/keyword/multipleOf";
  addKeyword<string>({
    ...getKeyword<unknown>(multipleOf),
    id: multipleOf,
    compile: async (schema) => exactKey(compileContext.schemaNumber(Number(browserValue(schema)))),
    interpret: (divisor, instance) => Instance.typeOf(instance) !== "number" || isMultipleOf(instanceExact(instance as unknown as Node), exactOfKey(divisor)),
  });
  const constId = "https://json-schema.org/keyword/const";
  addKeyword<string>({
    ...getKeyword<unknown>(constId),
    id: constId,
    compile: async (schema, _ast, parentSchema) => {
      const name = getKeywordName((schema as unknown as SchemaCursor).document.dialectId, constId);
      return schemaKey((browserValue(parentSchema) as Record<string, unknown>)[name]);
    },
    interpret: (key, instance) => instanceKey(instance as unknown as Node) === key,
  });
  const enumId = "https://json-schema.org/keyword/enum";
  addKeyword<string[]>({
    ...getKeyword<unknown>(enumId),
    id: enumId,
    compile: async (schema, _ast, parentSchema) => {
      const name = getKeywordName((schema as unknown as SchemaCursor).document.dialectId, enumId);
      const values = (browserValue(parentSchema) as Record<string, unknown>)[name];
      return Array.isArray(values) ? values.map(schemaKey) : [];
    },
    interpret: (keys, instance) => keys.includes(instanceKey(instance as unknown as Node)),
  });
  const uniqueItems = "https://json-schema.org/keyword/uniqueItems";
  addKeyword<boolean>({
    ...getKeyword<unknown>(uniqueItems),
    id: uniqueItems,
    compile: async (schema) => browserValue(schema) === true,
    interpret: (unique, instance) => {
      if (!unique || Instance.typeOf(instance) !== "array") return true;
      const keys = (instance as unknown as Node).children.map(instanceKey);
      return new Set(keys).size === keys.length;
    },
  });
  for (const id of [
    "https://json-schema.org/keyword/draft-07/format",
    "https://json-schema.org/keyword/draft-2019-09/format-assertion",
    "https://json-schema.org/keyword/draft-2020-12/format",
  ]) {
    const original = getKeyword<string>(id);
    addKeyword<[string, boolean]>({
      ...(original as object),
      id,
      compile: async (schema) => [String(browserValue(schema)), compileContext.assertFormats],
      interpret: ([format, assert], instance, context) => {
        if (!assert) return true;
        try {
          return original.interpret(format, instance, context);
        } catch {
          return false;
        }
      },
      annotation: ([format]) => format,
    } as Parameters<typeof addKeyword<[string, boolean]>>[0]);
  }
  // The format keywords above decide by the protocol's choice; the library's own switch stays on.
  setShouldValidateFormat(true);
  installFormats();
}

const FULL_TIME = /^(\d\d):(\d\d):(\d\d)(?:\.\d+)?(?:[zZ]|([+-])(\d\d):(\d\d))$/;

/**
 * RFC 3339 `full-time`, a leap second (`:60`) allowed where it can fall: at
 * 23:59 UTC, once the offset is taken off (the suite's rule; the library
 * refuses every leap second in a time without a date).
 */
export function isFullTime(text: string): boolean {
  const match = FULL_TIME.exec(text);
  if (match === null) return false;
  const [, h = "", m = "", sec = "", sign, oh = "0", om = "0"] = match;
  const [hour, minute, second, offsetHour, offsetMinute] = [h, m, sec, oh, om].map(Number) as [number, number, number, number, number];
  if (hour > 23 || minute > 59 || second > 60 || offsetHour > 23 || offsetMinute > 59) return false;
  if (second < 60) return true;
  const offset = (sign === "-" ? -1 : 1) * (offsetHour * 60 + offsetMinute);
  return (((hour * 60 + minute - offset) % 1440) + 1440) % 1440 === 23 * 60 + 59;
}

/**
 * `text` with an IPvFuture host (RFC 3986 `IP-literal`: `"v" 1*HEXDIG "."
 * 1*( unreserved / sub-delims / ":" )`, `v` in either case as ABNF strings
 * are) written as the IPv6 literal `[::1]`: the library throws on every
 * IPvFuture, and the rest of the URI is checked as it was written.
 */
function ipvFutureAsIpv6(text: string): string {
  return text.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/(?:[^@/?#[\]]*@)?)\[[vV][0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+\]/, "$1[::1]");
}

/** The format checks the library gets wrong against the official suite, replaced. */
function installFormats(): void {
  addFormat({ id: "https://json-schema.org/format/time", handler: (value: unknown) => typeof value !== "string" || isFullTime(value) });
  const uriLike: [string, (text: string) => boolean][] = [
    ["https://json-schema.org/format/uri", isUri],
    ["https://json-schema.org/format/uri-reference", isUriReference],
    ["https://json-schema.org/format/iri", isIri],
    ["https://json-schema.org/format/iri-reference", isIriReference],
  ];
  for (const [id, check] of uriLike) {
    addFormat({
      id,
      handler: (value: unknown) => {
        if (typeof value !== "string") return true;
        try {
          return check(ipvFutureAsIpv6(value));
        } catch {
          return false;
        }
      },
    });
  }
}

installKeywords();

const KEYWORD_LOCATION = /#(.*)$/;

function lastToken(location: string): string {
  const pointer = decodeURIComponent(KEYWORD_LOCATION.exec(location)?.[1] ?? "");
  const token = pointer.slice(pointer.lastIndexOf("/") + 1);
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** The value at RFC 6901 `pointer` in `value` (own members only). */
function valueAt(value: unknown, pointer: string): unknown {
  let at = value;
  for (const raw of pointer === "" ? [] : pointer.slice(1).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof at !== "object" || at === null || !Object.prototype.hasOwnProperty.call(at, token)) return undefined;
    at = (at as Record<string, unknown>)[token];
  }
  return at;
}

/** The keywords whose failure is reported (the library leaves out applicators that only pass their subschemas' failures on). */
function errorsOf(compiled: CompiledSchema, value: unknown, written: string | undefined): ValidatorError[] | undefined {
  rootWritten = written;
  try {
    const output = interpret(compiled, Instance.fromJs(value as never), BASIC);
    if (output.valid) return undefined;
    const keywordValues = compiled.ast as unknown as Record<string, [string, string, unknown][] | boolean>;
    return (output.errors ?? []).flatMap((error): ValidatorError[] => {
      const instancePath = decodeURI(KEYWORD_LOCATION.exec(error.instanceLocation)?.[1] ?? "");
      const keyword = error.keyword === "https://json-schema.org/evaluation/validate" ? "false" : lastToken(error.absoluteKeywordLocation);
      const schemaPath = `#${decodeURI(KEYWORD_LOCATION.exec(error.absoluteKeywordLocation)?.[1] ?? "")}`;
      if (keyword === "false") return [{ instancePath, schemaPath, keyword: "false schema", params: {}, message: "is refused by a false schema" }];
      if (error.keyword === "https://json-schema.org/keyword/required") {
        const parent = error.absoluteKeywordLocation.slice(0, error.absoluteKeywordLocation.lastIndexOf("/"));
        const node = (keywordValues[parent] as [string, string, unknown][] | undefined)?.find(([, at]) => at === error.absoluteKeywordLocation);
        const names = Array.isArray(node?.[2]) ? (node[2] as string[]) : [];
        const at = valueAt(value, instancePath);
        const missing = at !== undefined && typeof at === "object" && at !== null ? names.filter((name) => !Object.prototype.hasOwnProperty.call(at, name)) : names;
        if (missing.length > 0) return missing.map((name) => ({ instancePath, schemaPath, keyword, params: { missingProperty: name }, message: `must have required property '${name}'` }));
      }
      return [{ instancePath, schemaPath, keyword, params: {}, message: `fails \`${keyword}\`` }];
    });
  } finally {
    rootWritten = undefined;
  }
}

/** A validator of a schema compiled by the worker (`serialized`), interpreted with the exact keywords. */
export function hyperjumpValidator(serialized: string): SchemaValidator & { withText: (data: unknown, written: string | undefined) => boolean } {
  const compiled = deserialize(serialized);
  const check = (data: unknown, written: string | undefined): boolean => {
    const errors = errorsOf(compiled, data, written);
    validator.errors = errors ?? null;
    return errors === undefined;
  };
  const validator = Object.assign((data: unknown): boolean => check(data, undefined), { withText: check }) as SchemaValidator & {
    withText: (data: unknown, written: string | undefined) => boolean;
  };
  return validator;
}
