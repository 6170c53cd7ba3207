/**
 * `node --cpu-prof --import tsx bench/profile.ts b|d [seconds]`: one bench case in a loop, long
 * enough for the sampling profiler to say where its time goes (docs/perf/ holds what it showed).
 *   b — the write check on a 20-entry session (refund_card, model amount → confirm)
 *   d — resume a saved 2,000-entry session and run one check: the full verification
 * Measures the compiled dist/ build, as `npm run bench` does.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dist = new URL("../dist/", import.meta.url).href;
const { Engine } = (await import(dist + "worker/portable/engine/engine.js")) as typeof import("../worker/portable/engine/engine.js");
const { Session } = (await import(dist + "worker/portable/engine/session.js")) as typeof import("../worker/portable/engine/session.js");
const { nodeCore } = (await import(dist + "cli/sdk/wasm-node.js")) as typeof import("../cli/sdk/wasm-node.js");
const { installationKey } = (await import(dist + "cli/sdk/home.js")) as typeof import("../cli/sdk/home.js");
const { catalogueFrom } = (await import(dist + "cli/sdk/catalogue-input.js")) as typeof import("../cli/sdk/catalogue-input.js");
const { ajvCompiler } = (await import(dist + "cli/sdk/ajv-compiler.js")) as typeof import("../cli/sdk/ajv-compiler.js");

const which = process.argv[2] ?? "b";
const seconds = Number(process.argv[3] ?? 10);
const core = nodeCore();
const engine = new Engine({ core, key: installationKey(mkdtempSync(join(tmpdir(), "stalwart-prof-"))), schemaCompiler: ajvCompiler });
const catalogue = catalogueFrom(join(import.meta.dirname, "../examples/store/agent.yaml"), { schemaCompiler: ajvCompiler, sha256: (b) => core.sha256(b) });
const refund = { order_id: "4411", amount: 40.0 };
const refundOpts = { origins: { order_id: "typed", amount: "model" } };

async function sessionWith(entries: number) {
  const s = new Session(engine, "billing", catalogue);
  await s.read("estorne 40,00 do pedido 4411");
  while (s.history.entries.length < entries) await s.checkToolCall("refund_card", refund, refundOpts);
  return s;
}

const until = Date.now() + seconds * 1000;
let ops = 0;
const cpu0 = process.cpuUsage();
if (which === "b") {
  while (Date.now() < until) {
    const s = await sessionWith(20);
    for (let k = 0; k < 50; k++) await s.checkToolCall("refund_card", refund, refundOpts);
    ops += 50;
  }
} else {
  const saved = JSON.stringify((await sessionWith(2000)).toJSON());
  while (Date.now() < until) {
    const s = Session.resume(engine, catalogue, JSON.parse(saved));
    await s.checkToolCall("get_order", { order_id: "4411" });
    ops += 2000;
  }
}
const cpu = process.cpuUsage(cpu0);
console.log(`${which}: ${ops} ${which === "b" ? "checks" : "entries verified"}; CPU ${((cpu.user + cpu.system) / ops).toFixed(2)} µs each (setup included)`);
