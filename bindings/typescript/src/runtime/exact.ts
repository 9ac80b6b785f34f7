/**
 * Exact numbers for schema checks. The runtime keeps the written text of
 * every number whose JavaScript form differs (integers beyond 2^53, `9.0`,
 * see `json.ts`); JSON Schema compares numbers by their mathematical value,
 * so `maximum: 9007199254740992` must refuse `9007199254740993` even though
 * both are the same double. A number here is a fraction of two bigints read
 * from its decimal text (the written one, else JavaScript's shortest form,
 * which is what was written whenever no text was kept), so comparisons,
 * `multipleOf`, `const`, `enum` and `uniqueItems` are exact.
 *
 * @module
 */

import { memberOrder, numberText } from "./json.js";

/** A rational number `num / den`, `den` > 0 (not necessarily reduced). */
export interface Exact {
  readonly num: bigint;
  readonly den: bigint;
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** The exact value of a decimal number's text (`9007199254740993`, `1.5e-7`, `1e+21`); `undefined` when it is not one. */
export function exactOfText(text: string): Exact | undefined {
  const match = DECIMAL.exec(text);
  if (match === null) return undefined;
  const [, sign = "", whole = "", fraction = "", exponentText = "0"] = match;
  const exponent = Number(exponentText) - fraction.length;
  // A written exponent far beyond double range never reaches here (the parser refuses such numbers).
  let num = BigInt(`${whole}${fraction}`);
  let den = 1n;
  if (exponent >= 0) num *= 10n ** BigInt(exponent);
  else den = 10n ** BigInt(-exponent);
  return { num: sign === "-" ? -num : num, den };
}

/** The exact value of a JavaScript number (or bigint), from `written` when that is its text. */
export function exactOf(value: number | bigint, written?: string): Exact {
  if (typeof value === "bigint") return { num: value, den: 1n };
  if (written !== undefined && Object.is(Number(written), value)) {
    const exact = exactOfText(written);
    if (exact !== undefined) return exact;
  }
  const exact = exactOfText(String(value));
  if (exact === undefined) throw new TypeError(`${value} is not a JSON number`);
  return exact;
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`. */
export function compareExact(a: Exact, b: Exact): number {
  const left = a.num * b.den;
  const right = b.num * a.den;
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Whether `a` is an integer multiple of `m` (`m` > 0). */
export function isMultipleOf(a: Exact, m: Exact): boolean {
  return (a.num * m.den) % (a.den * m.num) === 0n;
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

/** The reduced form of `x` as text (`3/2`, `-7`): equal numbers give equal text. */
export function exactKey(x: Exact): string {
  const divisor = x.num === 0n ? x.den : gcd(x.num, x.den);
  const num = x.num / divisor;
  const den = x.den / divisor;
  return den === 1n ? num.toString() : `${num}/${den}`;
}

/** The exact text of an `Exact` written as `exactKey` wrote it. */
export function exactOfKey(key: string): Exact {
  const [num = "0", den = "1"] = key.split("/");
  return { num: BigInt(num), den: BigInt(den) };
}

/**
 * A text equal for two JSON values exactly when JSON Schema calls them equal
 * (`const`, `enum`, `uniqueItems`): numbers by exact value (`1` and `1.0`
 * alike, `9007199254740993` and `9007199254740992` not), objects whatever
 * their member order. `written` is the text of a top-level number;
 * `numberOf` gives the exact value of a number, by its container and key
 * (`undefined` at the top; by default from the runtime's side table).
 */
export function equalityKey(
  value: unknown,
  written?: string,
  numberOf: (value: number | bigint, container: object | undefined, key: string | number) => Exact = (v, container, key) =>
    exactOf(v, container === undefined ? written : numberText(container, key)),
): string {
  const walk = (v: unknown, exact: () => Exact): string => {
    if (typeof v === "number" || typeof v === "bigint") return `n${exactKey(exact())}`;
    if (typeof v === "string") return `s${JSON.stringify(v)}`;
    if (v === null) return "null";
    if (typeof v === "boolean") return v ? "true" : "false";
    if (Array.isArray(v)) return `[${v.map((item, i) => walk(item, () => numberOf(item as number, v, i))).join(",")}]`;
    if (typeof v === "object") {
      const record = v as Record<string, unknown>;
      const names = memberOrder(v).sort();
      return `{${names.map((name) => `${JSON.stringify(name)}:${walk(record[name], () => numberOf(record[name] as number, v, name))}`).join(",")}}`;
    }
    throw new TypeError(`a ${typeof v} is not JSON`);
  };
  return walk(value, () => numberOf(value as number, undefined, ""));
}
