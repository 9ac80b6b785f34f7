/**
 * A gzkit authoring guide 1.0 server on the TypeScript runtime, for
 * `wirekit conformance --protocol gzkit-authoring-guide@1.0 -- node dist/.test/test/servers/gzkit_server.js`
 * (test/server.test.ts runs it). Its descriptor is built by `protocolFromFiles`
 * from the protocol folder's files, as a file written by
 * `wirekit generate --out DIR --target typescript` builds it; `--generated`
 * serves the package's generated `gzkitAuthoringGuide` instead, which does not
 * carry the manifest's `server_errors` and violation answers.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";

import { gzkitAuthoringGuide, protocolFromFiles, ResponseError, serveStdio, type gzkit_authoring_guide as gz, type ServerHandlers } from "../../src/index.js";
import { repoRoot } from "../support.js";

type Maps = [gz.GzkitAuthoringGuideRequests, gz.GzkitAuthoringGuideNotifications, gz.GzkitAuthoringGuideServerNotifications];

const folder = join(repoRoot(), "schemas", "gzkit-authoring-guide", "1.0");
const files: Record<string, string> = {};
for (const name of ["protocol.json", "authoring_guide_protocol.json", "authoring_hint.json"]) files[name] = readFileSync(join(folder, name), "utf8");

const descriptor = process.argv.includes("--generated") ? gzkitAuthoringGuide : protocolFromFiles<Maps[0], Maps[1], Maps[2]>(files);

const SERVER_VERSION = "1.0";

const handlers: ServerHandlers<Maps[0], Maps[1], Maps[2]> = {
  initialize: ({ clientVersion }, context) => {
    // The descriptor from the files refuses another major version itself (version_negotiation); the generated one leaves it here.
    const [client, server] = [clientVersion.split(".")[0], SERVER_VERSION.split(".")[0]];
    if (client !== server) {
      throw new ResponseError(-32099, `VERSION_MISMATCH: client major version ${client} is incompatible with server major version ${server}`);
    }
    return { version: SERVER_VERSION, capabilities: context.capabilities<string[]>() };
  },
  analyze: ({ file_path }) => {
    let text: string;
    try {
      text = readFileSync(file_path, "utf8");
    } catch {
      return { hints: [] };
    }
    const lines = text.split("\n").length;
    return {
      hints: [
        {
          metric: "radon_cc",
          precedence_band: "approaching",
          crossing_value: 9,
          archetype: "arrowhead",
          doctrinal_frame_headline: "Nesting depth approaching warn threshold",
          recommended_move: "Flatten nested conditions using early returns",
          file_path,
          start_line: 1,
          end_line: Math.max(1, lines),
        },
      ],
    };
  },
  shutdown: () => ({}),
};

await serveStdio(descriptor, handlers);
