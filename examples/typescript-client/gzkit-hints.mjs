// An editor plugin's view of the gzkit authoring guide: spawn the guide
// server, ask for hints on a file, print them. Uses the TypeScript runtime
// built from bindings/typescript (`npm run build` there writes dist/).
//
//   node examples/typescript-client/gzkit-hints.mjs SERVER_COMMAND... -- FILE
import { gzkitAuthoringGuide, spawnServer } from "../../bindings/typescript/dist/index.js";

const argv = process.argv.slice(2);
const split = argv.indexOf("--");
if (split < 1 || split === argv.length - 1) {
  console.error("usage: gzkit-hints.mjs SERVER_COMMAND [ARGS...] -- FILE");
  process.exit(2);
}
const [command, ...args] = argv.slice(0, split);
const file = argv[split + 1];

const client = spawnServer(command, args, gzkitAuthoringGuide);
try {
  const init = await client.request("initialize", { clientVersion: "1.0" });
  console.log(`guide ${init.version}, capabilities: ${init.capabilities.join(", ")}`);
  const { hints } = await client.request("analyze", { file_path: file });
  for (const hint of hints) {
    console.log(`${hint.file_path}:${hint.start_line}-${hint.end_line} [${hint.precedence_band}] ${hint.archetype}: ${hint.recommended_move}`);
  }
  if (hints.length === 0) console.log("no hints");
} finally {
  await client.close();
}
