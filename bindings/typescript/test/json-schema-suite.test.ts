/**
 * The official JSON-Schema-Test-Suite (json-schema-org/JSON-Schema-Test-Suite,
 * read at test time from `../shared/upstream/json-schema-test-suite`, never
 * copied into the project) through the public path: each group's schema is
 * put in a one-method protocol folder (the convention the Rust and Python
 * harnesses share), loaded with `loadProtocol`, and every case's `data` is
 * checked as the method's result (as it comes on the wire) and, when it is
 * an object or an array, as its params, by the checks the client applies
 * (`resultIssues`, `paramsIssues`).
 *
 * Required tests of `tests/draft2020-12` and `tests/draft7`, and their
 * `optional/format` with `json_schema.formats: "assert"`. One summary line;
 * every disagreement and every refused group in full. It fails on any
 * invalid value accepted, any valid value refused, any group refused.
 */

import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { after, describe, it } from "node:test";

import { paramsIssues, resultIssues } from "../src/runtime/client.js";
import { decodeMessage } from "../src/runtime/envelope.js";
import { loadProtocol } from "../src/runtime/folder.js";
import { numberText, parseJson, stringifyJson, type JsonObject, type JsonValue } from "../src/runtime/json.js";
import type { SchemaIssue } from "../src/runtime/validation.js";
import { repoRoot } from "./support.js";

const SUITE = join(dirname(repoRoot()), "shared", "upstream", "json-schema-test-suite");

/** The suite folders run, with their dialect and the `remotes/` folders left out (the other drafts' remotes). */
const DRAFTS = [
  {
    folder: "draft2020-12",
    dialect: "https://json-schema.org/draft/2020-12/schema",
    leftOut: ["draft3", "draft4", "draft6", "draft7", "draft2019-09", "v1"],
  },
  {
    folder: "draft7",
    dialect: "http://json-schema.org/draft-07/schema#",
    leftOut: ["draft3", "draft4", "draft6", "draft2019-09", "draft2020-12", "v1"],
  },
] as const;

interface Group {
  description: string;
  schema: JsonValue;
  tests: { description: string; data: JsonValue; valid: boolean }[];
}

/** Every `*.json` under `dir`, as paths relative to it, sorted. */
function jsonFiles(dir: string, under = ""): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(dir, under)).sort()) {
    const path = under === "" ? name : `${under}/${name}`;
    if (statSync(join(dir, path)).isDirectory()) out.push(...jsonFiles(dir, path));
    else if (name.endsWith(".json")) out.push(path);
  }
  return out;
}

/** The suite's files are read with the runtime's parser, so numbers keep their written text. */
function readJson(path: string): JsonValue {
  return parseJson(readFileSync(path, "utf8")).value;
}

/** `data` as the client sees a result: in a response body, decoded by the envelope. */
function asWireResult(data: JsonValue): { result: JsonValue; written: string | undefined } {
  const message = decodeMessage(`{"jsonrpc":"2.0","id":1,"result":${stringifyJson(data)}}`, { dialect: "jsonrpc-2.0", strict: false });
  if (message.kind !== "success_response") throw new Error(`the envelope read a ${message.kind}`);
  return { result: message.result, written: numberText(message, "result") };
}

function describeIssues(issues: readonly SchemaIssue[]): string {
  return issues.map((issue) => issue.message).join("; ");
}

describe("JSON-Schema-Test-Suite through loadProtocol and the client's checks", () => {
  it("every case agrees with the suite, every group loads", (t) => {
    if (!existsSync(SUITE)) {
      process.stderr.write(`json-schema-test-suite (typescript): ${SUITE} is absent; nothing counted\n`);
      t.skip("the suite is absent");
      return;
    }
    const scratch = mkdtempSync(join(tmpdir(), "wirekit-suite-"));
    after(() => rmSync(scratch, { recursive: true, force: true }));
    let agreed = 0;
    let invalidAccepted = 0;
    let validRefused = 0;
    let groupsRefused = 0;
    let groupCount = 0;
    let caseCount = 0;
    const faults: string[] = [];
    let folderIndex = 0;
    for (const draft of DRAFTS) {
      const remotesDir = join(SUITE, "remotes");
      const remotes = jsonFiles(remotesDir).filter((path) => !(draft.leftOut as readonly string[]).includes(path.split("/")[0] ?? ""));
      for (const format of [false, true]) {
        const testsDir = format ? join(SUITE, "tests", draft.folder, "optional", "format") : join(SUITE, "tests", draft.folder);
        for (const file of readdirSync(testsDir).filter((name) => name.endsWith(".json")).sort()) {
          const shown = relative(join(SUITE, "tests"), join(testsDir, file));
          for (const group of readJson(join(testsDir, file)) as unknown as Group[]) {
            groupCount += 1;
            caseCount += group.tests.length;
            const dir = join(scratch, `g${folderIndex++}`);
            mkdirSync(dir);
            writeFileSync(join(dir, "schema.json"), stringifyJson(group.schema));
            for (const remote of remotes) {
              mkdirSync(dirname(join(dir, remote)), { recursive: true });
              writeFileSync(join(dir, remote), readFileSync(join(remotesDir, remote)));
            }
            const manifest: JsonObject = {
              protocol: "suite",
              version: "1",
              title: "JSON-Schema-Test-Suite group",
              description: `${shown}: ${group.description}`,
              roles: { client: "client", server: "server" },
              transport: { framing: "ndjson", envelope: "jsonrpc-2.0", max_frame_bytes: 1048576 },
              json_schema: { dialect: draft.dialect, base_uri: "http://localhost:1234/", formats: format ? "assert" : "annotate" },
              schemas: ["schema.json", ...remotes],
              methods: {
                m: { kind: "request", direction: "client-to-server", description: "The group's schema as params and result.", params: { $ref: "schema.json" }, result: { $ref: "schema.json" } },
              },
            };
            writeFileSync(join(dir, "protocol.json"), JSON.stringify(manifest));
            let protocol;
            try {
              protocol = loadProtocol(dir);
            } catch (error) {
              groupsRefused += 1;
              faults.push(`group refused: ${shown} | ${group.description}: ${error instanceof Error ? error.message : String(error)}`);
              continue;
            } finally {
              rmSync(dir, { recursive: true, force: true });
            }
            for (const test of group.tests) {
              const where = `${shown} | ${group.description} | ${test.description}`;
              const checks: [string, () => SchemaIssue[]][] = [
                [
                  "result",
                  () => {
                    const { result, written } = asWireResult(test.data);
                    return resultIssues(protocol, "m", result, written);
                  },
                ],
              ];
              if (typeof test.data === "object" && test.data !== null) checks.push(["params", () => paramsIssues(protocol, "m", test.data)]);
              let agrees = true;
              for (const [part, check] of checks) {
                let issues: SchemaIssue[];
                try {
                  issues = check();
                } catch (error) {
                  issues = [{ pointer: "", keyword: "", message: `threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}` }];
                }
                if ((issues.length === 0) === test.valid) continue;
                agrees = false;
                if (test.valid) {
                  validRefused += 1;
                  faults.push(`valid refused (${part}): ${where}: ${describeIssues(issues)}`);
                } else {
                  invalidAccepted += 1;
                  faults.push(`invalid accepted (${part}): ${where}`);
                }
                break;
              }
              if (agrees) agreed += 1;
            }
          }
        }
      }
    }
    const summary =
      `json-schema-test-suite (typescript): ${agreed} agreed, ${invalidAccepted} invalid accepted, ${validRefused} valid refused, ` +
      `${groupsRefused} groups refused (of ${groupCount} groups, ${caseCount} cases)`;
    process.stderr.write(`${summary}\n${faults.map((fault) => `  ${fault}\n`).join("")}`);
    assert.ok(groupCount > 600 && caseCount > 3000, `the suite looks truncated: ${summary}`);
    assert.equal(faults.length, 0, `${summary}\n${faults.join("\n")}`);
  });
});
