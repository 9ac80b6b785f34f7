/**
 * Schema validation of messages: the validators a descriptor carries (ajv
 * standalone code generated from the protocol's schemas, or compiled with
 * ajv when a protocol is loaded from a folder) applied to params, results,
 * error data, notifications and streamed items, with the failures as
 * {@link SchemaIssue}s (a JSON pointer into the message and a sentence).
 *
 * Values are validated as the runtime decoded them: numbers keep their
 * written text beside them (`9.0`, integers beyond 2^53), and validation
 * never changes a value (no coercion, no defaults).
 *
 * @module
 */

import { exactKey, exactOf, exactOfText } from "./exact.js";
import { numberText, numberTexts, setNumberText } from "./json.js";

/** One failure as ajv reports it. */
export interface ValidatorError {
  /** JSON pointer to the failing value, within the validated value. */
  readonly instancePath: string;
  /** Where in the schema the failing keyword is. */
  readonly schemaPath: string;
  /** The failing keyword (`required`, `type`, `pattern`, ...). */
  readonly keyword: string;
  /** The keyword's parameters (`{ missingProperty: "x" }`, ...). */
  readonly params: Readonly<Record<string, unknown>>;
  /** ajv's sentence (`must be string`). */
  readonly message?: string;
}

/** A validator of one schema type: true when `data` is valid, else its `errors` say why. */
export interface SchemaValidator {
  (data: unknown): boolean;
  /** The failures of the last call (null or absent when it passed). */
  errors?: readonly ValidatorError[] | null;
  /** Validates `data`, a top-level number written as `written` (validators of protocols loaded from a folder: numbers compared exactly). */
  withText?: (data: unknown, written: string | undefined) => boolean;
}

/** What part of a message is checked. */
export type MessagePart = "params" | "result" | "error" | "error-data" | "item";

/** One way a value fails its schema. */
export interface SchemaIssue {
  /** JSON pointer into the message: `/params/file_path`, `/result/hints/0/start_line`, `/error/data/class`. */
  readonly pointer: string;
  /** The failing keyword. */
  readonly keyword: string;
  /** A sentence naming the value and what is wrong with it. */
  readonly message: string;
}

const PART_POINTER: Record<MessagePart, string> = {
  params: "/params",
  result: "/result",
  error: "/error",
  "error-data": "/error/data",
  item: "",
};

/**
 * A copy of `value` with each bigint as the number closest to it and its
 * digits kept beside it (the runtime's side table), so JSON Schema sees an
 * integer and the exact keywords its exact value. `undefined` when `value`
 * holds no bigint.
 */
function withNumbers(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return undefined;
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.keys(value).map((name) => [name, (value as Record<string, unknown>)[name]]);
  let copied = false;
  const out: [string | number, unknown, string | undefined][] = entries.map(([key, member]) => {
    if (typeof member === "bigint") {
      copied = true;
      return [key, Number(member), member.toString()];
    }
    const inner = withNumbers(member);
    if (inner !== undefined) copied = true;
    return [key, inner ?? member, numberText(value, key)];
  });
  if (!copied) return undefined;
  const copy: unknown[] | Record<string, unknown> = Array.isArray(value) ? [] : {};
  for (const [key, member, written] of out) {
    // defineProperty: a member named `__proto__` stays a member.
    Object.defineProperty(copy, key, { value: member, writable: true, enumerable: true, configurable: true });
    setNumberText(copy, key, written);
  }
  return copy;
}

/** Whether a number's written text names another value than its double (an integer beyond 2^53, more digits than a double holds). */
function inexact(value: number, written: string | undefined): boolean {
  if (written === undefined) return false;
  const exact = exactOfText(written);
  return exact !== undefined && exactKey(exact) !== exactKey(exactOf(value));
}

/** Whether `value` holds a number that only its written text gives exactly. */
export function holdsInexactNumber(value: unknown, written?: string): boolean {
  if (typeof value === "number") return inexact(value, written);
  if (typeof value !== "object" || value === null) return false;
  const texts = numberTexts(value);
  if (texts !== undefined) {
    for (const [key, text] of texts) {
      const member = (value as Record<string, unknown>)[key];
      if (typeof member === "number" && inexact(member, text)) return true;
    }
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === "object" && item !== null && holdsInexactNumber(item)) return true;
    }
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const name of Object.keys(record)) {
    const member = record[name];
    if (typeof member === "object" && member !== null && holdsInexactNumber(member)) return true;
  }
  return false;
}

/** Whether `value` holds a bigint anywhere (the encoders accept bigints as exact integers). */
function holdsBigint(value: unknown): boolean {
  if (typeof value === "bigint") return true;
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (holdsBigint(value[i])) return true;
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const name of Object.keys(record)) if (holdsBigint(record[name])) return true;
  return false;
}

/**
 * The issues of `value` against `validator`, pointers rooted at `part` of
 * the message; `written` is the text of a top-level number as it came.
 */
export function validate(validator: SchemaValidator, value: unknown, part: MessagePart, written?: string): SchemaIssue[] {
  return detailedIssues(validator, value, part, written).map(({ pointer, keyword, message }) => ({ pointer, keyword, message }));
}

/** A {@link SchemaIssue} with what a server's error `data` lists beside it. */
export interface DetailedIssue extends SchemaIssue {
  /** The sentence without the location (`must be string`, `required member is missing`). */
  readonly detail: string;
  /** Where in the schema the failing keyword is, as an RFC 6901 pointer (`/properties/file_path/type`). */
  readonly schemaPath: string;
}

/** {@link validate}, each issue with its sentence alone and its schema path. */
export function detailedIssues(validator: SchemaValidator, value: unknown, part: MessagePart, written?: string): DetailedIssue[] {
  let subject = value;
  let text = written;
  if (typeof value === "bigint") {
    subject = Number(value);
    text = value.toString();
  } else {
    subject = holdsBigint(value) ? (withNumbers(value) ?? value) : value;
  }
  let valid: boolean;
  try {
    valid = validator.withText === undefined ? validator(subject) : validator.withText(subject, text);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    // The schema recurses deeper than the stack allows for this value: refused, never accepted.
    const base = PART_POINTER[part];
    const detail = `the schema recurses too deeply to check this value (${error.message})`;
    return [{ pointer: base, keyword: "$ref", message: `${base === "" ? "the value" : base}: ${detail}`, detail, schemaPath: "" }];
  }
  if (valid) return [];
  const base = PART_POINTER[part];
  return (validator.errors ?? []).map((error) => {
    let pointer = `${base}${error.instancePath}`;
    const missing = error.params["missingProperty"];
    if (error.keyword === "required" && typeof missing === "string") {
      pointer = `${pointer}/${missing.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    }
    const extra = error.params["additionalProperty"] ?? error.params["unevaluatedProperty"];
    if (typeof extra === "string") pointer = `${pointer}/${extra.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    const where = pointer === "" ? "the value" : pointer;
    let detail = error.message ?? `fails \`${error.keyword}\``;
    let message = `${where} ${detail}`;
    if (error.keyword === "required") {
      detail = "required member is missing";
      message = `${where}: ${detail}`;
    }
    if (typeof extra === "string") {
      detail = "member is not allowed here";
      message = `${where}: ${detail}`;
    }
    const hash = error.schemaPath.indexOf("#");
    const schemaPath = hash < 0 ? error.schemaPath : error.schemaPath.slice(hash + 1);
    return { pointer, keyword: error.keyword, message, detail, schemaPath };
  });
}

/** The issues as one line each. */
export function describeIssues(issues: readonly SchemaIssue[]): string {
  return issues.map((issue) => issue.message).join("; ");
}
