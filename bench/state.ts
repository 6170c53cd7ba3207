/**
 * `npm run bench:state`: what the home's session-state and counter store costs (issue 15), on the
 * compiled JS in dist/ as users run it. Printed, never asserted:
 *
 *   reservation   NodeStateStore.reserve with an empty store, then with 20,000 live reservations
 *                 (target: within 2× of the first — a reservation writes a few rows, never all)
 *   commit        the head compare-and-set of one session, first and after 20,000
 *   peek / load   the read paths
 *   spend check   a whole in-process spend check (session + store) at 0 and at 20,000
 *   memory        the in-memory store, for scale
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dist = new URL("../dist/", import.meta.url).href;
const engine = (await import(dist + "worker/portable/engine/index.js")) as typeof import("../worker/portable/engine/index.js");
const state = (await import(dist + "cli/sdk/state/index.js")) as typeof import("../cli/sdk/state/index.js");
const { nodeCore } = (await import(dist + "cli/sdk/wasm-node.js")) as typeof import("../cli/sdk/wasm-node.js");
const { installationKey } = (await import(dist + "cli/sdk/home.js")) as typeof import("../cli/sdk/home.js");
const { catalogueFrom } = (await import(dist + "cli/sdk/catalogue-input.js")) as typeof import("../cli/sdk/catalogue-input.js");
const { ajvCompiler } = (await import(dist + "cli/sdk/ajv-compiler.js")) as typeof import("../cli/sdk/ajv-compiler.js");

const NOV = Date.UTC(2026, 10, 15, 12);
const until = Date.UTC(2026, 11, 1);
const item = (n: number) => ({ key: `spend|wallet|USD|month|2026-11|${n % 8}`, amount: 1, limit: 1e12, until });
const link = (n: number) => n.toString(16).padStart(64, "0");

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Median µs per op over batches of `per` ops (no warm-up here: callers warm). */
async function perOp(per: number, batches: number, op: (i: number) => unknown): Promise<number> {
  const samples: number[] = [];
  let n = 0;
  for (let b = 0; b < batches; b++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < per; i++) await op(n++);
    samples.push(Number(process.hrtime.bigint() - t0) / 1000 / per);
  }
  return median(samples);
}

async function storeCosts(name: string, store: import("../worker/portable/engine/index.js").SessionStateStore & import("../worker/portable/engine/index.js").CounterStore) {
  let r = 0;
  let head = { count: 0, link: "" };
  const reserve = () => store.reserve(`${name}-r${r}`, [item(r++)], NOV);
  const commit = () => {
    const next = { count: head.count + 1, link: link(head.count + 1) };
    store.commit(`${name}-s`, { expect: head, next });
    head = next;
  };
  // Warm-up (JIT, the file's first pages) with a handful, then the first costs while the store is small.
  for (let i = 0; i < 200; i++) await reserve();
  for (let i = 0; i < 200; i++) commit();
  const first = { reserve: await perOp(100, 7, reserve), commit: await perOp(100, 7, commit) };
  while (r < 20_000) await reserve();
  const at20k = { reserve: await perOp(100, 7, reserve), commit: await perOp(100, 7, commit) };
  const peek = await perOp(200, 7, () => store.peek([item(1)], NOV));
  const load = await perOp(200, 7, () => store.load(`${name}-s`));
  return { first, at20k, peek, load };
}

async function spendChecks() {
  const home = mkdtempSync(join(tmpdir(), "stalwart-bench-state-"));
  const core = nodeCore();
  const store = state.nodeState(home, { now: () => NOV });
  const e = new engine.Engine({ core, key: installationKey(home), schemaCompiler: ajvCompiler, counters: store, state: store, now: () => new Date(NOV) });
  const catalogue = catalogueFrom(
    { settings: { language: "en" }, tools: [{ name: "pay", writes: true, money: true, confirm: "when_held", currency: "USD", spend: [{ field: "amount", at_most: 1e12, per: "month", pool: "wallet" }], args: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] } }] },
    { schemaCompiler: ajvCompiler, sha256: (b) => core.sha256(b) },
  );
  let sessions = 0;
  /** µs per allowed spend check, over fresh sessions of 50 checks each (the history stays short). */
  async function checks(total: number): Promise<number> {
    const samples: number[] = [];
    for (let done = 0; done < total; done += 50) {
      const s = new engine.Session(e, `b${sessions++}`, catalogue);
      await s.read("pay");
      const t0 = process.hrtime.bigint();
      for (let k = 0; k < 50; k++) {
        const a = await s.checkToolCall("pay", { amount: 1 }, { origins: { amount: "context" } });
        if (a.decision !== "allow") throw new Error(`bench: expected allow, got ${JSON.stringify(a)}`);
      }
      samples.push(Number(process.hrtime.bigint() - t0) / 1000 / 50);
    }
    return median(samples);
  }
  await checks(500); // warm
  const first = await checks(1000);
  while (sessions * 50 < 20_000) await checks(1000);
  const at20k = await checks(1000);
  state.closeState(home);
  return { first, at20k };
}

const fmt = (us: number) => `${us.toFixed(1)} µs`;
const ratio = (a: number, b: number) => `${(b / a).toFixed(2)}×`;

const home = mkdtempSync(join(tmpdir(), "stalwart-bench-state-"));
const node = await storeCosts("node", state.nodeState(home, { now: () => NOV }));
state.closeState(home);
const mem = await storeCosts("mem", new engine.MemoryStateStore({ now: () => NOV }));
const spend = await spendChecks();

console.log(`\nstalwart-agents bench:state — the session-state and counter store, one run, medians (Node ${process.version})\n`);
console.log("| case | first | at 20,000 reservations | ratio | target |");
console.log("|---|---|---|---|---|");
console.log(`| reservation (Node store, LMDB under the home) | ${fmt(node.first.reserve)} | ${fmt(node.at20k.reserve)} | ${ratio(node.first.reserve, node.at20k.reserve)} | within 2× of the first |`);
console.log(`| commit (head compare-and-set, Node store) | ${fmt(node.first.commit)} | ${fmt(node.at20k.commit)} | ${ratio(node.first.commit, node.at20k.commit)} | |`);
console.log(`| spend check in-process (session + Node store) | ${fmt(spend.first)} | ${fmt(spend.at20k)} | ${ratio(spend.first, spend.at20k)} | within 2× of the first |`);
console.log(`| peek / load (Node store, at 20,000) | ${fmt(node.peek)} | ${fmt(node.load)} | | |`);
console.log(`| reservation / commit (memory store) | ${fmt(mem.first.reserve)} / ${fmt(mem.first.commit)} | ${fmt(mem.at20k.reserve)} / ${fmt(mem.at20k.commit)} | | |`);
