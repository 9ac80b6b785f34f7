/**
 * A protocol of one's own for the tests (issue 42): `kv` 1.0, NDJSON and
 * JSON-RPC 2.0, its files given in memory as `wirekit generate --out DIR
 * --target typescript` embeds them (a schema in a subfolder, `meta/common.json`,
 * referenced from `kv.schema.json`), with the method maps such a file holds.
 */

/** The manifest. */
export const KV_MANIFEST = {
  protocol: "kv",
  version: "1.0",
  title: "kv test protocol",
  description: "A key-value store served over stdio, for the TypeScript server's tests.",
  roles: { client: "editor", server: "store" },
  transport: { framing: "ndjson", envelope: "jsonrpc-2.0", max_frame_bytes: 4096 },
  schemas: ["kv.schema.json", "meta/common.json"],
  capabilities: { method: "initialize", pointer: "/capabilities", style: "boolean-object" },
  methods: {
    initialize: {
      description: "The initialize method.",
      kind: "request",
      direction: "client-to-server",
      params: { $ref: "kv.schema.json#/$defs/InitializeParams" },
      result: { $ref: "kv.schema.json#/$defs/InitializeResult" },
      lifecycle: { allowed_in: ["new"], on_success: "ready" },
    },
    put: {
      description: "The put method.",
      kind: "request",
      direction: "client-to-server",
      params: { $ref: "kv.schema.json#/$defs/PutParams" },
      result: { $ref: "kv.schema.json#/$defs/PutResult" },
      lifecycle: { allowed_in: ["ready"] },
    },
    get: {
      description: "The get method.",
      kind: "request",
      direction: "client-to-server",
      params: { $ref: "kv.schema.json#/$defs/GetParams" },
      result: { $ref: "kv.schema.json#/$defs/GetResult" },
      lifecycle: { allowed_in: ["ready"] },
    },
    watch: {
      description: "The watch method.",
      kind: "request",
      direction: "client-to-server",
      capability: "watch",
      params: { $ref: "kv.schema.json#/$defs/GetParams" },
      result: { $ref: "kv.schema.json#/$defs/PutResult" },
      lifecycle: { allowed_in: ["ready"] },
    },
    changed: {
      description: "The changed method.",
      kind: "notification",
      direction: "server-to-client",
      params: { $ref: "kv.schema.json#/$defs/ChangedParams" },
      lifecycle: { allowed_in: ["ready"] },
    },
    ping: {
      description: "The ping method.",
      kind: "notification",
      direction: "client-to-server",
      params: { $ref: "kv.schema.json#/$defs/PingParams" },
    },
    shutdown: {
      description: "The shutdown method.",
      kind: "request",
      direction: "client-to-server",
      params_optional: true,
      params: { $ref: "kv.schema.json#/$defs/Empty" },
      result: { $ref: "kv.schema.json#/$defs/Empty" },
      lifecycle: { allowed_in: ["new", "ready"], on_success: "done", ends_session: true },
    },
  },
  errors: [{ code: -32002, name: "NOT_READY", description: "A method before initialize." }],
  server_errors: { invalid_params: { data: { errors: "{errors}", method: "{method}" } } },
  lifecycle: {
    initial: "new",
    states: { new: "Spawned.", ready: "Initialized.", done: "Shut down." },
    terminal: ["done"],
    violation: { code: -32002, message: "{method} needs {allowed}, not {state}", data: null },
  },
};

const key = { $ref: "meta/common.json#/$defs/Key" };

/** The schema file. */
export const KV_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $defs: {
    InitializeParams: { type: "object", properties: { client: { type: "string" } }, required: ["client"], additionalProperties: false },
    InitializeResult: {
      type: "object",
      properties: { capabilities: { type: "object", properties: { watch: { type: "boolean" } }, required: ["watch"], additionalProperties: false } },
      required: ["capabilities"],
      additionalProperties: false,
    },
    PutParams: { type: "object", properties: { key, value: { type: "number" } }, required: ["key", "value"], additionalProperties: false },
    PutResult: { type: "object", properties: { previous: { type: ["number", "null"] } }, required: ["previous"], additionalProperties: false },
    GetParams: { type: "object", properties: { key }, required: ["key"], additionalProperties: false },
    GetResult: { type: "object", properties: { value: { type: ["number", "null"] } }, required: ["value"], additionalProperties: false },
    ChangedParams: { type: "object", properties: { key, value: { type: "number" } }, required: ["key", "value"], additionalProperties: false },
    PingParams: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    Empty: { type: "object", additionalProperties: false },
  },
};

/** The schema in a subfolder. */
export const KV_COMMON = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $defs: { Key: { type: "string", minLength: 1, pattern: "^[a-z]+$" } },
};

/** The protocol's files as text, keyed by their path in the folder. */
export function kvFiles(): Record<string, string> {
  return {
    "protocol.json": JSON.stringify(KV_MANIFEST, null, 2),
    "kv.schema.json": JSON.stringify(KV_SCHEMA, null, 2),
    "meta/common.json": JSON.stringify(KV_COMMON, null, 2),
  };
}

/** The method maps, as the generated file would hold them. */
export interface KvRequests {
  initialize: { params: { client: string }; result: { capabilities: { watch: boolean } } };
  put: { params: { key: string; value: number }; result: { previous: number | null } };
  get: { params: { key: string }; result: { value: number | null } };
  watch: { params: { key: string }; result: { previous: number | null } };
  shutdown: { params: Record<string, never> | undefined; result: Record<string, never> };
}
export interface KvNotifications {
  ping: { params: { n: number } };
}
export interface KvServerNotifications {
  changed: { params: { key: string; value: number } };
}
