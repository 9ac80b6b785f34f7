/**
 * Which schemas make validation exponential in the depth of the instance:
 * alternatives that overlap and recurse into the same place, such as
 * `{"anyOf": [R, R]}` where `R` is an array of the `anyOf` again. ajv tries
 * every alternative at every level and keeps every error (14 nested arrays:
 * 31 s and 21 million errors), and the value is the peer's, so
 * `loadProtocol` refuses a folder whose messages use such a schema.
 *
 * The rule is the Rust core's (`bindings/rust/src/validate/overlap.rs`,
 * where the core, whose validator memoizes, reports such schemas along one
 * bounded path instead); both run the shared vectors of
 * `tests/vectors/schemas/overlap.json`. A state is a subschema; an in-place
 * edge applies another subschema to the same value (`$ref`, `allOf`,
 * `anyOf`, `oneOf`, `then`, `else`, `dependentSchemas`), a child edge one
 * to a member or an item, labelled by which. In-place edges are folded into
 * the child edges that follow them, counting distinct paths; a schema
 * explodes when some state has two distinct walks back to itself whose
 * labels can name the same places: a folded edge taken twice inside a cycle,
 * or two walks of one strongly connected component that part and meet
 * again (found in the component's square).
 *
 * @module
 */

import { escapeToken } from "./protocol.js";

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Where a child edge leads: a member (`null`: any), an item (`null`: any), or the keys. */
type Label = { member: string | null } | { item: number | null } | { key: true };

function overlaps(a: Label, b: Label): boolean {
  if ("member" in a && "member" in b) return a.member === null || b.member === null || a.member === b.member;
  if ("item" in a && "item" in b) return a.item === null || b.item === null || a.item === b.item;
  return "key" in a && "key" in b;
}

/** A component's square with more edges than this counts as overlapping. */
const MAX_SQUARE_EDGES = 1 << 20;

/** `file#pointer` of every subschema that reaches an exploding component, with the component member it reaches. */
export class Overlaps {
  private constructor(private readonly reaching: ReadonlyMap<string, string>) {}

  /**
   * Analyses the schema files (by name). `fileOf` maps a reference's part
   * before `#` (a file name or an `$id`; `""` is the referring file) to a
   * file name, or `undefined` for a document outside the set.
   */
  static of(files: ReadonlyMap<string, unknown>, fileOf: (base: string, from: string) => string | undefined): Overlaps {
    const index = new Map<string, number>();
    const nodes: { file: string; pointer: string; schema: Obj }[] = [];
    const collect = (file: string, value: unknown, pointer: string): void => {
      if (!isObj(value)) return;
      index.set(`${file}#${pointer}`, nodes.length);
      nodes.push({ file, pointer, schema: value });
      for (const [key, child] of Object.entries(value)) {
        const here = `${pointer}/${escapeToken(key)}`;
        if (["$defs", "definitions", "properties", "patternProperties", "dependentSchemas"].includes(key)) {
          if (isObj(child)) for (const [name, sub] of Object.entries(child)) collect(file, sub, `${here}/${escapeToken(name)}`);
        } else if (["allOf", "anyOf", "oneOf", "prefixItems"].includes(key)) {
          if (Array.isArray(child)) child.forEach((sub, i) => collect(file, sub, `${here}/${i}`));
        } else if (
          ["not", "if", "then", "else", "items", "contains", "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "propertyNames"].includes(key)
        ) {
          collect(file, child, here);
        }
      }
    };
    for (const [file, document] of files) collect(file, document, "");

    const inPlace: number[][] = nodes.map(() => []);
    const children: [Label, number][][] = nodes.map(() => []);
    nodes.forEach(({ file, pointer, schema }, node) => {
      const at = (path: string): number | undefined => index.get(`${file}#${pointer}/${path}`);
      const push = (list: number[], target: number | undefined): void => {
        if (target !== undefined) list.push(target);
      };
      for (const key of ["$ref", "$dynamicRef"]) {
        const reference = schema[key];
        if (typeof reference !== "string") continue;
        const hash = reference.indexOf("#");
        const base = hash < 0 ? reference : reference.slice(0, hash);
        const fragment = hash < 0 ? "" : reference.slice(hash + 1);
        const target = fileOf(base, file);
        if (target === undefined || !(fragment === "" || fragment.startsWith("/"))) continue;
        let decoded: string;
        try {
          decoded = decodeURIComponent(fragment);
        } catch {
          continue;
        }
        push(inPlace[node]!, index.get(`${target}#${decoded}`));
      }
      for (const key of ["allOf", "anyOf", "oneOf"]) {
        const items = schema[key];
        if (Array.isArray(items)) items.forEach((_, i) => push(inPlace[node]!, at(`${key}/${i}`)));
      }
      for (const key of ["then", "else"]) push(inPlace[node]!, at(key));
      for (const key of ["properties", "patternProperties", "dependentSchemas"]) {
        const members = schema[key];
        if (!isObj(members)) continue;
        for (const name of Object.keys(members)) {
          const target = at(`${key}/${escapeToken(name)}`);
          if (target === undefined) continue;
          if (key === "dependentSchemas") inPlace[node]!.push(target);
          else children[node]!.push([{ member: key === "properties" ? name : null }, target]);
        }
      }
      const childKeys: [string, Label][] = [
        ["additionalProperties", { member: null }],
        ["unevaluatedProperties", { member: null }],
        ["propertyNames", { key: true }],
        ["items", { item: null }],
        ["unevaluatedItems", { item: null }],
      ];
      for (const [key, label] of childKeys) {
        const target = at(key);
        if (target !== undefined) children[node]!.push([label, target]);
      }
      const prefix = schema["prefixItems"];
      if (Array.isArray(prefix)) {
        prefix.forEach((_, i) => {
          const target = at(`prefixItems/${i}`);
          if (target !== undefined) children[node]!.push([{ item: i }, target]);
        });
      }
    });

    const folded = nodes.map((_, node) => fold(node, inPlace, children));
    const flagged: (number | undefined)[] = nodes.map(() => undefined);
    for (const component of stronglyConnected(folded)) {
      if (!ambiguous(component, folded)) continue;
      // The component is named by its outermost subschema (the shortest pointer).
      const named = (n: number): string => `${nodes[n]!.file}#${nodes[n]!.pointer}`;
      const outermost = component.reduce((best, n) =>
        named(n).length < named(best).length || (named(n).length === named(best).length && named(n) < named(best)) ? n : best,
      );
      for (const member of component) flagged[member] = outermost;
    }
    // Every subschema that reaches a flagged one, through any edge.
    const reverse: number[][] = nodes.map(() => []);
    inPlace.forEach((edges, from) => edges.forEach((to) => reverse[to]!.push(from)));
    children.forEach((edges, from) => edges.forEach(([, to]) => reverse[to]!.push(from)));
    const queue = nodes.map((_, n) => n).filter((n) => flagged[n] !== undefined);
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head]!;
      for (const from of reverse[node]!) {
        if (flagged[from] === undefined) {
          flagged[from] = flagged[node];
          queue.push(from);
        }
      }
    }
    const reaching = new Map<string, string>();
    flagged.forEach((member, node) => {
      if (member === undefined) return;
      const at = nodes[member]!;
      reaching.set(`${nodes[node]!.file}#${nodes[node]!.pointer}`, `${at.file}#${at.pointer}`);
    });
    return new Overlaps(reaching);
  }

  /** The `file#pointer` of an exploding subschema that the one at `file#pointer` reaches, or `undefined`. */
  reach(file: string, pointer: string): string | undefined {
    return this.reaching.get(`${file}#${pointer}`);
  }
}

/** One state's child edges after folding, each with its number of distinct in-place paths (capped at 2). */
type Folded = [Label, number, number][][];

function fold(node: number, inPlace: readonly number[][], children: readonly [Label, number][][]): [Label, number, number][] {
  // Post-order by depth-first search; a state met again while open closes an in-place cycle.
  const open = new Set<number>();
  const done = new Set<number>();
  const order: number[] = [];
  let looped = false;
  const stack: [number, boolean][] = [[node, false]];
  while (stack.length > 0) {
    const [state, closing] = stack.pop()!;
    if (closing) {
      open.delete(state);
      done.add(state);
      order.push(state);
      continue;
    }
    if (done.has(state)) continue;
    if (open.has(state)) {
      looped = true;
      continue;
    }
    open.add(state);
    stack.push([state, true]);
    for (const next of inPlace[state]!) {
      if (open.has(next)) looped = true;
      else stack.push([next, false]);
    }
  }
  const paths = new Map<number, number>([[node, 1]]);
  for (const state of order.reverse()) {
    const here = paths.get(state) ?? 0;
    for (const next of inPlace[state]!) paths.set(next, Math.min(2, (paths.get(next) ?? 0) + here));
  }
  const edges: [Label, number, number][] = [];
  for (const [state, count] of [...paths].sort((a, b) => a[0] - b[0])) {
    for (const [label, to] of children[state]!) edges.push([label, to, count]);
  }
  if (looped) edges.push([{ key: true }, node, 2]);
  return edges;
}

/** Tarjan's strongly connected components (iterative), keeping those that hold a cycle. */
function stronglyConnected(graph: Folded): number[][] {
  const n = graph.length;
  const index = new Array<number>(n).fill(-1);
  const low = new Array<number>(n).fill(0);
  const onStack = new Array<boolean>(n).fill(false);
  const stack: number[] = [];
  const components: number[][] = [];
  let next = 0;
  for (let start = 0; start < n; start++) {
    if (index[start] !== -1) continue;
    const work: [number, number][] = [[start, 0]];
    while (work.length > 0) {
      const [node, edge] = work.pop()!;
      if (edge === 0) {
        index[node] = low[node] = next++;
        stack.push(node);
        onStack[node] = true;
      }
      const out = graph[node]![edge];
      if (out !== undefined) {
        work.push([node, edge + 1]);
        const to = out[1];
        if (index[to] === -1) work.push([to, 0]);
        else if (onStack[to]) low[node] = Math.min(low[node]!, index[to]!);
        continue;
      }
      if (low[node] === index[node]) {
        const component: number[] = [];
        for (;;) {
          const member = stack.pop()!;
          onStack[member] = false;
          component.push(member);
          if (member === node) break;
        }
        if (component.length > 1 || graph[node]!.some(([, to]) => to === node)) components.push(component);
      }
      const parent = work[work.length - 1];
      if (parent !== undefined) low[parent[0]] = Math.min(low[parent[0]]!, low[node]!);
    }
  }
  return components;
}

/** Whether two distinct walks of `component` can part and meet again on labels that name the same places. */
function ambiguous(component: readonly number[], graph: Folded): boolean {
  const members = new Set(component);
  const inside = new Map(component.map((node) => [node, graph[node]!.filter(([, to]) => members.has(to))]));
  for (const edges of inside.values()) if (edges.some(([, , count]) => count > 1)) return true;
  const key = (a: number, b: number): string => `${a},${b}`;
  const diagonal = component.map((n) => [n, n] as [number, number]);
  const reached = new Set(diagonal.map(([a, b]) => key(a, b)));
  const reverse = new Map<string, [number, number][]>();
  const queue = [...diagonal];
  let explored = 0;
  for (let head = 0; head < queue.length; head++) {
    const [a, b] = queue[head]!;
    for (const [la, ta] of inside.get(a)!) {
      for (const [lb, tb] of inside.get(b)!) {
        if (!overlaps(la, lb)) continue;
        if (++explored > MAX_SQUARE_EDGES) return true;
        const to = key(ta, tb);
        const from = reverse.get(to);
        if (from === undefined) reverse.set(to, [[a, b]]);
        else from.push([a, b]);
        if (!reached.has(to)) {
          reached.add(to);
          queue.push([ta, tb]);
        }
      }
    }
  }
  const back = new Set(diagonal.map(([a, b]) => key(a, b)));
  const pending = [...diagonal];
  while (pending.length > 0) {
    const [a, b] = pending.pop()!;
    for (const [fa, fb] of reverse.get(key(a, b)) ?? []) {
      const from = key(fa, fb);
      if (!back.has(from)) {
        back.add(from);
        if (fa !== fb) return true;
        pending.push([fa, fb]);
      }
    }
  }
  return false;
}
