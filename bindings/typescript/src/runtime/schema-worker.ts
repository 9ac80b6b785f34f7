/**
 * The worker that compiles a protocol's schemas with
 * `@hyperjump/json-schema` (which compiles asynchronously) for the
 * synchronous `loadProtocol` (`schema-compiler.ts` waits for it). Each
 * request holds the schema files with their retrieval URIs and the entry
 * points to compile; every file is a schema resource of its own, its `$id`
 * and embedded `$id`s kept, and references resolve among these files and
 * the dialects' meta-schemas only: nothing is ever fetched.
 *
 * @module
 */

import { workerData } from "node:worker_threads";
import type { MessagePort } from "node:worker_threads";

import { removeUriSchemePlugin } from "@hyperjump/browser";
import { buildSchemaDocument, compile, getSchema, serialize, unloadDialect, type SchemaDocument } from "@hyperjump/json-schema/experimental";

import { exactKey, exactOf, exactOfKey, type Exact } from "./exact.js";
import { setCompileContext } from "./hyperjump.js";
import { numberText, parseJson } from "./json.js";
import type { CompileReply, CompileRequest, CompiledEntry } from "./schema-compiler.js";

// Nothing is retrieved: a reference outside the protocol's files and the dialects' meta-schemas fails.
for (const scheme of ["http", "https", "file"]) removeUriSchemePlugin(scheme);

/** The exact value of each number the files write, by its double; two different values with one double are ambiguous. */
function schemaNumbers(values: readonly unknown[]): (value: number) => Exact {
  const byDouble = new Map<number, Set<string>>();
  const visit = (value: unknown, written: string | undefined): void => {
    if (typeof value === "number") {
      const keys = byDouble.get(value) ?? new Set<string>();
      keys.add(exactKey(exactOf(value, written)));
      byDouble.set(value, keys);
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => visit(item, numberText(value, index)));
    } else if (typeof value === "object" && value !== null) {
      for (const name of Object.keys(value)) visit((value as Record<string, unknown>)[name], numberText(value, name));
    }
  };
  for (const value of values) visit(value, undefined);
  return (value) => {
    const keys = [...(byDouble.get(value) ?? [])];
    if (keys.length > 1) {
      throw new Error(
        `the schemas write the numbers ${keys.join(" and ")}, which JavaScript reads as the same double ${value}; a keyword comparing with it cannot tell which was meant (write them so that they differ as doubles)`,
      );
    }
    return keys[0] === undefined ? exactOf(value) : exactOfKey(keys[0]);
  };
}

const DRAFT_07 = new Set(["http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema"]);

/** Draft-07 keywords whose value is a schema, an array of schemas, or a map of schemas. */
const DRAFT_07_SCHEMA = new Set(["additionalItems", "items", "contains", "additionalProperties", "propertyNames", "not", "if", "then", "else"]);
const DRAFT_07_SCHEMA_ARRAY = new Set(["items", "allOf", "anyOf", "oneOf"]);
const DRAFT_07_SCHEMA_MAP = new Set(["definitions", "properties", "patternProperties", "dependencies"]);

/**
 * A draft-07 schema with every `$ref` alone in its object, as draft-07
 * says ("All other properties in a "$ref" object MUST be ignored"); the
 * library honours that except for a sibling `$id`, which it lets change the
 * base URI (the suite's "$ref prevents a sibling $id from changing the base
 * uri"). Only schema positions are walked: a `const` or `enum` value that
 * looks like a `$ref` object is left as it is.
 */
function draft07RefsAlone(schema: unknown): unknown {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return schema;
  const object = schema as Record<string, unknown>;
  if (typeof object["$ref"] === "string") return { $ref: object["$ref"] };
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(object)) {
    const value = object[key];
    let out = value;
    if (DRAFT_07_SCHEMA_ARRAY.has(key) && Array.isArray(value)) out = value.map(draft07RefsAlone);
    else if (DRAFT_07_SCHEMA.has(key)) out = draft07RefsAlone(value);
    else if (DRAFT_07_SCHEMA_MAP.has(key) && typeof value === "object" && value !== null && !Array.isArray(value)) {
      const members: Record<string, unknown> = {};
      for (const name of Object.keys(value)) {
        const member = (value as Record<string, unknown>)[name];
        Object.defineProperty(members, name, { value: Array.isArray(member) ? member : draft07RefsAlone(member), writable: true, enumerable: true, configurable: true });
      }
      out = members;
    }
    Object.defineProperty(copy, key, { value: out, writable: true, enumerable: true, configurable: true });
  }
  return copy;
}

/** The dialect a file is read in: its own `$schema`, else the protocol's. */
function dialectOf(value: unknown, dialect: string): string {
  const own = typeof value === "object" && value !== null ? (value as Record<string, unknown>)["$schema"] : undefined;
  return typeof own === "string" ? own : dialect;
}

async function compileRequest(request: CompileRequest): Promise<CompileReply> {
  const values = request.files.map((file) => parseJson(file.text).value);
  setCompileContext({ assertFormats: request.assertFormats, schemaNumber: schemaNumbers(values) });
  const documents = new Map<string, SchemaDocument>();
  const built: SchemaDocument[] = [];
  // A file whose `$schema` is another file (a meta-schema of the protocol's own) is built after it.
  let pending = request.files.map((file, index) => {
    const value = values[index];
    return { file, value: DRAFT_07.has(dialectOf(value, request.dialect)) ? draft07RefsAlone(value) : value };
  });
  while (pending.length > 0) {
    const failed: typeof pending = [];
    let lastError: unknown;
    for (const item of pending) {
      try {
        const document = buildSchemaDocument(item.value as never, item.file.uri, request.dialect);
        built.push(document);
        documents.set(item.file.uri, document);
      } catch (error) {
        failed.push(item);
        lastError = error;
      }
    }
    if (failed.length === pending.length) {
      return { error: { file: failed[0]?.file.uri, message: messageOf(lastError) } };
    }
    pending = failed;
  }
  const cache: Record<string, SchemaDocument> = {};
  for (const [uri, document] of documents) {
    for (const [id, resource] of [[uri, document] as const, ...Object.entries(document.embedded ?? {})]) {
      const existing = cache[id];
      if (existing !== undefined && existing !== resource) {
        return { error: { file: uri, message: `the URI ${id} names two schema resources of the protocol` } };
      }
      cache[id] = resource as SchemaDocument;
    }
  }
  const entries: CompiledEntry[] = [];
  try {
    for (const uri of request.entries) {
      try {
        const schema = await getSchema(uri, { _cache: { ...cache } } as never);
        const compiled = await compile(schema);
        const keywords = new Set<string>();
        for (const node of Object.values(compiled.ast)) {
          if (Array.isArray(node)) for (const keyword of node as unknown as [string][]) keywords.add(keyword[0]);
        }
        const dialects = new Set<string>();
        for (const base of Object.keys((compiled.ast as { metaData: Record<string, unknown> }).metaData)) {
          dialects.add(cache[base]?.dialectId ?? "unknown");
        }
        entries.push({ compiled: serialize(compiled), keywords: [...keywords], dialects: [...dialects] });
      } catch (error) {
        entries.push({ error: messageOf(error) });
      }
    }
  } finally {
    for (const document of built) unloadDialect(document.baseUri);
  }
  return { entries };
}

function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const output = (error as { output?: { errors?: { instanceLocation: string; absoluteKeywordLocation: string }[] } }).output;
    const first = output?.errors?.[0];
    return first === undefined ? error.message : `${error.message}: ${first.instanceLocation} fails ${first.absoluteKeywordLocation}`;
  }
  return String(error);
}

const { port, signal } = workerData as { port: MessagePort; signal: Int32Array };
port.on("message", (request: CompileRequest) => {
  compileRequest(request)
    .catch((error: unknown): CompileReply => ({ error: { message: messageOf(error) } }))
    .then((reply) => {
      port.postMessage(reply);
      Atomics.store(signal, 0, 1);
      Atomics.notify(signal, 0);
    });
});
