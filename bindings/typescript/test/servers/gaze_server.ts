/**
 * A Gaze analyzer (protocol 1.0.0) on the TypeScript runtime with the
 * package's generated descriptor `gazeAnalyzerV1_0_0`, for
 * `wirekit conformance --protocol gaze-analyzer@1.0.0 -- node dist/.test/test/servers/gaze_server.js`
 * (test/server.test.ts runs it). It handles `discover` and not the other
 * optional methods: the capabilities it declares are derived from that.
 */

import { gazeAnalyzerV1_0_0, serveStdio, type gaze_analyzer_v1_0_0 as gaze, type ServerHandlers } from "../../src/index.js";

type Handlers = ServerHandlers<gaze.GazeAnalyzerRequests, gaze.GazeAnalyzerNotifications, gaze.GazeAnalyzerServerNotifications>;

const handlers: Handlers = {
  initialize: (_params, context) => ({
    capabilities: context.capabilities<gaze.Capabilities>(),
    protocol_version: "1.0.0",
    analyzer_name: "wirekit-typescript-test",
    language: "typescript",
  }),
  analyze: async () => ({ functions: [] }),
  complexity: () => ({ functions: [] }),
  coverage: () => ({ functions: [] }),
  discover: () => ({ source_files: [], test_files: [], framework: "node:test" }),
  shutdown: () => ({}),
};

await serveStdio(gazeAnalyzerV1_0_0, handlers);
