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

/** Whether `value` holds a bigint anywhere (the encoders accept bigints as exact integers). */
function holdsBigint(value: unknown): boolean {
  if (typeof value === "bigint") return true;
  if (typeof value !== "object" || value === null) return false;
  return Object.values(value).some(holdsBigint);
}

/** A copy of `value` with each bigint as the number closest to it: JSON Schema sees integers, whatever their JavaScript type. */
function withNumbers(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(withNumbers);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withNumbers(v)]));
  }
  return value;
}

/** The issues of `value` against `validator`, pointers rooted at `part` of the message; `written` is the text of a top-level number as it came. */
export function validate(validator: SchemaValidator, value: unknown, part: MessagePart, written?: string): SchemaIssue[] {
  void written;
  const subject = holdsBigint(value) ? withNumbers(value) : value;
  if (validator(subject)) return [];
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
    let message = `${where} ${error.message ?? `fails \`${error.keyword}\``}`;
    if (error.keyword === "required") message = `${where}: required member is missing`;
    if (typeof extra === "string") message = `${where}: member is not allowed here`;
    return { pointer, keyword: error.keyword, message };
  });
}

/** The issues as one line each. */
export function describeIssues(issues: readonly SchemaIssue[]): string {
  return issues.map((issue) => issue.message).join("; ");
}
