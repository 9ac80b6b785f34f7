// A concise reporter for node's test runner (`node --test --test-reporter=...`):
// nothing for a passing test, each failure in full (its name, file, line and
// error with the stack), and one summary line: tests passed, failed, skipped,
// todo, the number of test files, and the time taken.
import { inspect } from "node:util";

export default async function* conciseReporter(source) {
  const counts = { passed: 0, failed: 0, skipped: 0, todo: 0 };
  const files = new Set();
  const started = Date.now();
  for await (const event of source) {
    const data = event.data ?? {};
    if (data.file) files.add(data.file);
    switch (event.type) {
      case "test:pass":
        if (data.details?.type === "suite") break;
        if (data.skip !== undefined) counts.skipped += 1;
        else if (data.todo !== undefined) counts.todo += 1;
        else counts.passed += 1;
        break;
      case "test:fail": {
        const error = data.details?.error;
        // A suite that failed because a test inside it failed: that test is reported.
        if (data.details?.type === "suite" || error?.failureType === "subtestsFailed") break;
        counts.failed += 1;
        const where = data.file ? ` (${data.file}${data.line ? `:${data.line}` : ""})` : "";
        const shown = inspect(error?.cause ?? error, { depth: 6, colors: false });
        yield `\nFAIL ${data.name}${where}\n${shown.replace(/^/gm, "    ")}\n`;
        break;
      }
      case "test:stderr":
        yield data.message;
        break;
      default:
        break;
    }
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  yield (
    `node --test: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped, ` +
    `${counts.todo} todo in ${files.size} files (${seconds} s)\n`
  );
}
