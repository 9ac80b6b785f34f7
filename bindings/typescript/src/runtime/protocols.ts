/**
 * Ready-made descriptors of the wirekit protocols, typed by their generated
 * method maps. They restate the `protocol.json` manifests in
 * `schemas/<protocol>/<version>/`; the test suite checks that they agree.
 *
 * @module
 */

import type * as driver from "../agentapi_driver.js";
import type * as gaze100 from "../gaze_analyzer_v1_0_0.js";
import type * as gaze110 from "../gaze_analyzer_v1_1_0.js";
import type * as gzkit from "../gzkit_authoring_guide.js";
import type { MethodInfo, ProtocolDescriptor } from "./protocol.js";

const request = (timeoutMs?: number, extra: Partial<MethodInfo> = {}): MethodInfo => ({
  kind: "request",
  direction: "client-to-server",
  ...(timeoutMs === undefined ? {} : { timeoutMs }),
  ...extra,
});

/** gzkit authoring guide protocol 1.0: Content-Length frames, bare envelopes; capabilities as a string array in `initialize`. */
export const gzkitAuthoringGuide: ProtocolDescriptor<
  gzkit.GzkitAuthoringGuideRequests,
  gzkit.GzkitAuthoringGuideNotifications,
  gzkit.GzkitAuthoringGuideServerNotifications
> = {
  name: "gzkit-authoring-guide",
  version: "1.0",
  framing: "content-length",
  dialect: "bare",
  strict: false,
  canonical: false,
  maxFrameBytes: 16777216,
  capabilities: { method: "initialize", pointer: "/capabilities", style: "string-array" },
  methods: { initialize: request(), analyze: request(), shutdown: request() },
  shutdown: "shutdown",
};

const gazeCommon = {
  name: "gaze-analyzer",
  framing: "ndjson",
  dialect: "jsonrpc-2.0",
  strict: false,
  canonical: false,
  maxFrameBytes: 16777216,
  capabilities: { method: "initialize", pointer: "/capabilities", style: "boolean-object" },
  shutdown: "shutdown",
} as const;

const gazeMethods100: Record<string, MethodInfo> = {
  initialize: request(30000),
  analyze: request(300000),
  complexity: request(300000),
  coverage: request(300000),
  shutdown: request(10000, { paramsOptional: true }),
  discover: request(300000, { capability: "discover" }),
  test_mapping: request(300000, { capability: "test_mapping" }),
  classify_signals: request(300000, { capability: "classify_signals" }),
};

/** Gaze analyzer protocol 1.0.0: NDJSON, JSON-RPC 2.0; optional methods gated by the boolean capabilities of `initialize`. */
export const gazeAnalyzerV1_0_0: ProtocolDescriptor<
  gaze100.GazeAnalyzerRequests,
  gaze100.GazeAnalyzerNotifications,
  gaze100.GazeAnalyzerServerNotifications
> = { ...gazeCommon, version: "1.0.0", methods: gazeMethods100 };

/** Gaze analyzer protocol 1.1.0: 1.0.0 plus `analyze/stream` (streamed, not served by `request`) and `doc_coverage`. */
export const gazeAnalyzerV1_1_0: ProtocolDescriptor<
  gaze110.GazeAnalyzerRequests,
  gaze110.GazeAnalyzerNotifications,
  gaze110.GazeAnalyzerServerNotifications
> = {
  ...gazeCommon,
  version: "1.1.0",
  methods: {
    initialize: request(30000),
    analyze: request(300000),
    "analyze/stream": request(300000, { capability: "streaming", stream: true }),
    complexity: request(300000),
    coverage: request(300000),
    shutdown: request(10000, { paramsOptional: true }),
    discover: request(300000, { capability: "discover" }),
    test_mapping: request(300000, { capability: "test_mapping" }),
    classify_signals: request(300000, { capability: "classify_signals" }),
    doc_coverage: request(300000, { capability: "doc_coverage" }),
  },
};

/** AgentAPI driver protocol 1: strict NDJSON control frames, JSON-RPC 2.0, canonical (RFC 8785) encoding, 1 MiB frames. */
export const agentapiDriver: ProtocolDescriptor<
  driver.AgentapiDriverRequests,
  driver.AgentapiDriverNotifications,
  driver.AgentapiDriverServerNotifications
> = {
  name: "agentapi-driver",
  version: "1",
  framing: "ndjson",
  dialect: "jsonrpc-2.0",
  strict: true,
  canonical: true,
  maxFrameBytes: 1048576,
  methods: {
    "driver.hello": request(),
    "driver.prepare": request(),
    "driver.capabilities": request(undefined, { paramsOptional: true }),
    "driver.invoke": request(),
    "driver.cancel": request(),
    "driver.reset": request(undefined, { paramsOptional: true }),
    "driver.shutdown": request(undefined, { paramsOptional: true }),
    "driver.observation": { kind: "notification", direction: "server-to-client" },
    "driver.completed": { kind: "notification", direction: "server-to-client" },
  },
  shutdown: "driver.shutdown",
};
