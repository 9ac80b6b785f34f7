/**
 * `@wirekit/protocols`: the shipped protocols' generated bindings (`./generated`, written by
 * `wirekit generate` and `node scripts/generate-validators.mjs`) and the hand-written runtime
 * (`./runtime`: framing, envelope, schema checks, protocols from a folder or from files, the typed client and server).
 *
 * @module
 */
export * from "./generated/index.js";
export * from "./runtime/index.js";
