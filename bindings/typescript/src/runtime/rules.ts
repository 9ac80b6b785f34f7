/**
 * The manifest's semantic rules, which JSON Schema cannot state, kept by the
 * client as the Rust core keeps them (`validate/rules.rs`,
 * `session/scope.rs`):
 *
 * * `not_before` (one message): at every object `at` matches (`*` segments
 *   match every item or member), the number at `second` is not less than the
 *   one at `first` (gzkit: a hint's `end_line` is not before its `start_line`);
 * * over a scope of messages that opens when its `scope.start` request
 *   succeeds (its params are the scope's identity) and closes with its
 *   `scope.end` message: `increasing_sequence`, `last_sequence_matches`,
 *   `matches_scope`, `not_reused` (the driver's invocations).
 *
 * Messages may use `{value}`, `{previous}` and `{expected}`.
 *
 * @module
 */

import type { MessagePart, SchemaIssue } from "./validation.js";

/** One rule as the manifest writes it: its name and its arguments. */
export interface RuleSpec {
  /** The rule's name. */
  readonly rule: string;
  /** Its arguments (`method`, `part`, `at`, `scope`, `message`, ...). */
  readonly [argument: string]: unknown;
}

/** The rules the session keeps (they need state across messages). */
export const SESSION_RULES: readonly string[] = ["increasing_sequence", "last_sequence_matches", "matches_scope", "not_reused"];

/** A scope rule failed: which, where in the params, and a sentence. */
export interface RuleFault {
  /** The rule's name. */
  readonly rule: string;
  /** JSON pointer within the params. */
  readonly pointer: string;
  /** What is wrong. */
  readonly message: string;
}

type Obj = Record<string, unknown>;

function obj(value: unknown): Obj | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** RFC 6901 lookup (`undefined` when absent). */
export function lookup(value: unknown, pointer: string): unknown {
  if (pointer === "") return value;
  let at: unknown = value;
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(at)) at = /^(0|[1-9]\d*)$/.test(token) ? at[Number(token)] : undefined;
    else if (obj(at) !== undefined && Object.prototype.hasOwnProperty.call(at, token)) at = (at as Obj)[token];
    else return undefined;
  }
  return at;
}

/** JSON text of a value, for messages and identity (as serde_json writes a parsed value). */
function show(value: unknown): string {
  return value === undefined ? "absent" : JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? Number(v) : v));
}

function fill(template: string, value: string, previous: string, expected: string): string {
  return template.replace(/\{value\}/g, value).replace(/\{previous\}/g, previous).replace(/\{expected\}/g, expected);
}

/** The objects `segments` reach, `*` matching every item or member, with their pointers. */
function walk(value: unknown, segments: readonly string[], pointer: string, out: [string, Obj][]): void {
  const [head, ...rest] = segments;
  if (head === undefined) {
    const o = obj(value);
    if (o !== undefined) out.push([pointer, o]);
    return;
  }
  if (head === "*") {
    const entries: [string, unknown][] = Array.isArray(value)
      ? value.map((item, i) => [String(i), item])
      : Object.entries(obj(value) ?? {});
    for (const [key, item] of entries) walk(item, rest, `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`, out);
    return;
  }
  const next = lookup(value, `/${head}`);
  if (next !== undefined) walk(next, rest, `${pointer}/${head}`, out);
}

const PART_POINTER: Record<MessagePart, string> = { params: "/params", result: "/result", error: "/error", "error-data": "/error/data", item: "" };

/** The issues of one message's `part` against the per-message rules (`not_before`) of `method`. */
export function checkMessageRules(rules: readonly RuleSpec[] | undefined, method: string, part: MessagePart, value: unknown): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  for (const rule of rules ?? []) {
    if (rule.rule !== "not_before" || rule["method"] !== method || rule["part"] !== part) continue;
    const at = text(rule["at"]) ?? "";
    const first = text(rule["first"]) ?? "";
    const second = text(rule["second"]) ?? "";
    const message = text(rule["message"]) ?? "a value comes before the one it must not precede";
    const matches: [string, Obj][] = [];
    walk(value, at === "" ? [] : at.slice(1).split("/"), "", matches);
    for (const [pointer, object] of matches) {
      const low = object[first];
      const high = object[second];
      if (typeof low !== "number" || typeof high !== "number" || high >= low) continue;
      const where = `${PART_POINTER[part]}${pointer}/${second}`;
      issues.push({ pointer: where, keyword: "not_before", message: `${where}: ${message} (${second} ${String(high)} < ${first} ${String(low)})` });
    }
  }
  return issues;
}

interface ScopeRule {
  name: string;
  method: string;
  at: string[];
  start: string | undefined;
  end: string | undefined;
  observed: [string, string] | undefined;
  consumed: [string, string] | undefined;
  message: string;
}

/** The open scope, the values consumed so far, and the scope rules of a protocol. */
export class ScopeRules {
  private readonly rules: ScopeRule[];
  private scope: { identity: unknown; last: number | undefined } | undefined;
  private opening: unknown;
  private readonly consumed = new Set<string>();

  /** The session rules among `specs`. */
  constructor(specs: readonly RuleSpec[] | undefined) {
    const pair = (value: unknown): [string, string] | undefined => {
      const o = obj(value);
      const method = text(o?.["method"]);
      const at = text(o?.["at"]);
      return method === undefined || at === undefined ? undefined : [method, at];
    };
    this.rules = (specs ?? [])
      .filter((spec) => SESSION_RULES.includes(spec.rule))
      .map((spec) => {
        const at = spec["at"];
        const scope = obj(spec["scope"]);
        return {
          name: spec.rule,
          method: text(spec["method"]) ?? "",
          at: typeof at === "string" ? [at] : Array.isArray(at) ? at.filter((p): p is string => typeof p === "string") : [],
          start: text(scope?.["start"]),
          end: text(scope?.["end"]),
          observed: pair(spec["observed"]),
          consumed: pair(spec["consumed"]),
          message: text(spec["message"]) ?? `rule \`${spec.rule}\` failed`,
        };
      });
  }

  /** Checks a message's params against every rule for its method; remembers a scope start's params. */
  check(method: string, params: unknown): RuleFault | undefined {
    const p = params ?? null;
    for (const rule of this.rules.filter((r) => r.method === method)) {
      const first = rule.at[0] ?? "";
      const value = lookup(p, first);
      const fault = (message: string): RuleFault => ({ rule: rule.name, pointer: first, message });
      const scope = this.scope;
      switch (rule.name) {
        case "increasing_sequence": {
          if (scope === undefined || typeof value !== "number" || !Number.isInteger(value) || value < 0) break;
          if (scope.last !== undefined && value <= scope.last) return fault(fill(rule.message, show(value), String(scope.last), ""));
          break;
        }
        case "last_sequence_matches": {
          if (scope === undefined) break;
          const matches = scope.last === undefined ? value === undefined : value === scope.last;
          if (!matches) {
            const expected = scope.last === undefined ? "absent (nothing was observed)" : String(scope.last);
            return fault(fill(rule.message, show(value), "", expected));
          }
          break;
        }
        case "matches_scope": {
          if (scope === undefined) break;
          for (const pointer of rule.at) {
            const mine = lookup(p, pointer);
            const theirs = lookup(scope.identity, pointer);
            if (show(mine) !== show(theirs)) {
              return { rule: rule.name, pointer, message: `${rule.message} (${pointer} is ${show(mine)}, the scope's is ${show(theirs)})` };
            }
          }
          break;
        }
        case "not_reused": {
          if (value !== undefined && this.consumed.has(show(value))) return fault(fill(rule.message, show(value), "", ""));
          break;
        }
      }
    }
    if (this.rules.some((r) => r.start === method)) this.opening = p;
    return undefined;
  }

  /** Records a message that passed (a notification): closes the scope, tracks sequences and consumed values. */
  record(method: string, params: unknown): void {
    const p = params ?? null;
    for (const rule of this.rules) {
      if (this.scope !== undefined && rule.observed?.[0] === method) {
        const sequence = lookup(p, rule.observed[1]);
        if (typeof sequence === "number" && Number.isInteger(sequence) && sequence >= 0) this.scope.last = sequence;
      }
      if (rule.consumed?.[0] === method) {
        const value = lookup(p, rule.consumed[1]);
        if (value !== undefined) this.consumed.add(show(value));
      }
    }
    if (this.rules.some((r) => r.end === method)) this.scope = undefined;
  }

  /** The scope's start request succeeded: the scope opens with its params. */
  opened(method: string): void {
    if (this.rules.some((r) => r.start === method)) {
      this.scope = { identity: this.opening ?? null, last: undefined };
      this.opening = undefined;
    }
  }
}
