/**
 * An AgentAPI driver (protocol 1) on the TypeScript runtime, its descriptor
 * from the protocol folder's files (`protocolFromFiles`): strict NDJSON,
 * canonical output, the driver's own error shapes; `driver.invoke` streams
 * its observations and `driver.completed` through `context.notify`. For
 * `wirekit conformance --protocol agentapi-driver@1 -- node dist/.test/test/servers/driver_server.js`
 * (test/server.test.ts runs it).
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";

import { protocolFromFiles, serveStdio, type agentapi_driver as driver, type ServerHandlers } from "../../src/index.js";
import { repoRoot } from "../support.js";

type R = driver.AgentapiDriverRequests;
type N = driver.AgentapiDriverNotifications;
type SN = driver.AgentapiDriverServerNotifications;

const folder = join(repoRoot(), "schemas", "agentapi-driver", "1");
const files: Record<string, string> = {};
for (const name of ["protocol.json", "driver.schema.json"]) files[name] = readFileSync(join(folder, name), "utf8");
const descriptor = protocolFromFiles<R, N, SN>(files);

const capabilities: driver.CapabilitiesResult["capabilities"] = {
  protocols: ["openai.responses"],
  operations: ["responses.create"],
  streaming: true,
  cancellation: true,
  retry_observed: false,
  concurrency: false,
  max_concurrency: 1,
};

const handlers: ServerHandlers<R, N, SN> = {
  "driver.hello": () => ({
    driver_version_range: { minimum: "1.0.0", maximum: "1.0.0" },
    identity: {
      name: "wirekit-typescript-test",
      version: "1.0.0",
      sdk_name: "none",
      sdk_version: "0.0.0",
      runtime_name: "node",
      runtime_version: process.versions.node,
      os: "linux",
      architecture: "amd64",
      artifact_digest: `sha256:${"0".repeat(64)}`,
      lockfile_digest: `sha256:${"1".repeat(64)}`,
    },
    capabilities,
    requested_permissions: [],
  }),
  "driver.prepare": ({ approved_permissions }) => ({ accepted_permissions: approved_permissions }),
  "driver.capabilities": () => ({ capabilities }),
  "driver.invoke": ({ invocation_id, attempt_id }, context) => {
    // Sent right after the invoke's answer, in order.
    for (const sequence of [0, 1]) {
      context.notify("driver.observation", { invocation_id, attempt_id, sequence, kind: "sdk.event", monotonic_ns: 100 * (sequence + 1), payload: { type: "delta" } });
    }
    context.notify("driver.completed", { invocation_id, attempt_id, status: "completed", last_sequence: 1, summary_digest: `sha256:${"2".repeat(64)}` });
    return {};
  },
  "driver.cancel": () => ({ acknowledged: true }),
  "driver.reset": () => ({}),
  "driver.shutdown": () => ({}),
};

await serveStdio(descriptor, handlers);
