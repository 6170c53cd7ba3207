/**
 * `npm run bench:gateway-memory`: how much heap the gateway's session keeps per call. The gateway
 * holds its whole history in memory (docs/gateway.md, "Not done yet"), so this is how fast a
 * long-running gateway grows. The session is made as `stalwart gateway` makes it (an in-process
 * `Client` with the session's state in the process), on the compiled JS in dist/; each call is
 * checked and reported `ran`. Two series, each on a new session:
 *   - a tool without `returns` and a small result (nothing of the result is recorded);
 *   - a read whose `returns` declares a text field (as `gateway init` writes for a tool server's
 *     `outputSchema`, e.g. server-filesystem's `read_text_file`), each result 4 KiB of text:
 *     the session records the declared fields whole (checks.md: `result:` origins compare values).
 * Printed, never asserted.
 */
import "./temp-root.js";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dist = new URL("../dist/", import.meta.url).href;
const { Client } = (await import(dist + "cli/sdk/index.js")) as typeof import("../cli/sdk/index.js");
const { copyLicence } = await import("../test/helpers/licensed-home.js");

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc (npm run bench:gateway-memory does)");
const heapMB = () => (gc(), gc(), process.memoryUsage().heapUsed / 1e6);

const home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-bench-gwmem-")));
const catalogue = join(home, "agent.yaml");
writeFileSync(
  catalogue,
  "settings: {language: en}\ntools:\n" +
    "  - {name: echo, args: {type: object, properties: {q: {type: string}}}}\n" +
    "  - {name: read_text, args: {type: object, properties: {path: {type: string}}}, returns: {type: object, properties: {content: {type: string}}}}\n",
);
const client = new Client({ home, now: () => new Date("2026-11-15T12:00:00Z") }, { sessionsInProcess: true });

const PER = 5000;
const TEXT = 4096;
console.log(`gateway session memory — ${PER} calls per row, each checked and reported (Node ${process.version})`);

interface Series {
  title: string;
  tool: string;
  args: (i: number) => Record<string, unknown>;
  origins: Record<string, string>;
  result: (i: number) => unknown;
}
const series: Series[] = [
  { title: "a tool without `returns`, a small result", tool: "echo", args: (i) => ({ q: `x${i}` }), origins: { q: "context" }, result: (i) => ({ content: [{ type: "text", text: `ok ${i}` }] }) },
  {
    title: `a read whose \`returns\` declares \`content\`, each result ${TEXT / 1024} KiB of text (structuredContent)`,
    tool: "read_text",
    args: (i) => ({ path: `/notes/${i}.txt` }),
    origins: { path: "context" },
    // each text its own (a file's contents differ), so no string is shared between entries
    result: (i) => ({ content: `${i} `.padEnd(TEXT, "abcdefghijklmnopqrstuvwxyz ") }),
  },
];
for (const [n, s] of series.entries()) {
  const session = client.session(`gateway-${n}`, { catalogue });
  const base = heapMB();
  console.log(`\n${s.title}\n`);
  console.log("| calls | history entries | heap after GC | kept per call |");
  console.log("|---|---|---|---|");
  // Entries are counted from the steps, not read from `session.history.entries`: once read, the
  // engine keeps a plain copy of every entry for the caller, which the gateway never asks for.
  let entries = 0;
  for (let k = 1; k <= 4; k++) {
    for (let i = 0; i < PER; i++) {
      const r = await session.checkToolCall(s.tool, s.args(i), { origins: s.origins });
      if (r.decision !== "allow") throw new Error(`call ${i} was not allowed: ${JSON.stringify(r)}`);
      entries = (await session.report(r.step, "ran", s.result(i))).step + 1;
    }
    const mb = heapMB();
    console.log(`| ${k * PER} | ${entries} | ${mb.toFixed(1)} MB | ${(((mb - base) * 1e6) / (k * PER)).toFixed(0)} B |`);
  }
}
