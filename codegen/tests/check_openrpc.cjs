// Validate the generated OpenRPC documents against the OpenRPC meta-schema:
//   node codegen/tests/check_openrpc.cjs docs/openrpc/*.openrpc.json
// Uses @open-rpc/meta-schema and ajv from bindings/typescript (npm ci there).
// The JSON Schemas inside a document are accepted as they are: this checks
// the OpenRPC structure (methods, params, results, errors, components).
const path = require("path");
const fs = require("fs");
const { createRequire } = require("module");
const req = createRequire(path.join(__dirname, "../../bindings/typescript/package.json"));
const meta = req("@open-rpc/meta-schema").default;
const Ajv = req("ajv").default;

function strip(v) {
  if (Array.isArray(v)) return v.map(strip);
  if (v && typeof v === "object") {
    if (typeof v.$ref === "string" && v.$ref.startsWith("https://meta.json-schema.tools")) return {};
    const o = {};
    for (const [k, x] of Object.entries(v)) o[k] = strip(x);
    return o;
  }
  return v;
}

const validate = new Ajv({ strict: false, validateSchema: false, logger: false }).compile(strip(meta));
let bad = 0;
for (const file of process.argv.slice(2)) {
  const doc = JSON.parse(fs.readFileSync(file, "utf8"));
  if (validate(doc)) {
    console.log(`openrpc ${doc.openrpc}: ${path.basename(file)} ok`);
  } else {
    bad++;
    console.log(`openrpc: ${file} invalid: ${JSON.stringify(validate.errors.slice(0, 5))}`);
  }
}
process.exit(bad ? 1 : 0);
