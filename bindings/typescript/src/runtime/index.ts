/**
 * The wirekit TypeScript runtime: framing, envelopes, JSON with exact
 * numbers, protocol descriptors (from a folder or from files), a typed
 * client and a typed server.
 *
 * @module
 */

export * from "./framing.js";
export * from "./json.js";
export * from "./envelope.js";
export * from "./protocol.js";
export * from "./validation.js";
export * from "./dataplane.js";
export * from "./rules.js";
export * from "./folder.js";
export * from "./transport.js";
export * from "./client.js";
export * from "./server.js";
