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
import "./temp-root.js";
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

type Store = import("../worker/portable/engine/index.js").SessionStateStore & import("../worker/portable/engine/index.js").CounterStore;

/** One store's operations, each a fresh reservation id / the next head of one session. */
function driver(name: string, store: Store) {
  let r = 0;
  let head = { count: 0, link: "" };
  return {
    store,
    get reservations() {
      return r;
    },
    reserve: () => store.reserve(`${name}-r${r}`, [item(r++)], NOV),
    commit: () => {
      const next = { count: head.count + 1, link: link(head.count + 1) };
      store.commit(`${name}-s`, { expect: head, next });
      head = next;
    },
  };
}

/**
 * The first costs and those at 20,000 reservations, measured in alternating batches on two stores
 * (one kept small, one filled first), so a change in the machine's load falls on both alike.
 */
async function storeCosts(make: (tag: string) => Store) {
  const warm = driver("warm", make("warm"));
  for (let i = 0; i < 3000; i++) {
    await warm.reserve();
    warm.commit();
  }
  const small = driver("small", make("small"));
  const big = driver("big", make("big"));
  while (big.reservations < 20_000) await big.reserve();
  const s = { reserve: [] as number[], commit: [] as number[] };
  const b = { reserve: [] as number[], commit: [] as number[] };
  for (let round = 0; round < 9; round++) {
    s.reserve.push(await perOp(100, 1, small.reserve));
    b.reserve.push(await perOp(100, 1, big.reserve));
    s.commit.push(await perOp(100, 1, small.commit));
    b.commit.push(await perOp(100, 1, big.commit));
  }
  const peek = await perOp(200, 7, () => big.store.peek([item(1)], NOV));
  const load = await perOp(200, 7, () => big.store.load("big-s"));
  return {
    first: { reserve: median(s.reserve), commit: median(s.commit), held: small.reservations },
    at20k: { reserve: median(b.reserve), commit: median(b.commit) },
    peek,
    load,
  };
}

async function spendChecks() {
  const core = nodeCore();
  const catalogue = catalogueFrom(
    { settings: { language: "en" }, tools: [{ name: "pay", writes: true, confirm: "when_held", currency: "USD", spend: [{ field: "amount", at_most: 1e12, per: "month", pool: "wallet" }], args: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] } }] },
    { schemaCompiler: ajvCompiler, sha256: (b) => core.sha256(b) },
  );
  let sessions = 0;
  const homes: string[] = [];
  function engineAt() {
    const home = mkdtempSync(join(tmpdir(), "stalwart-bench-state-"));
    homes.push(home);
    const store = state.nodeState(home, { now: () => NOV });
    return new engine.Engine({ core, key: installationKey(home), schemaCompiler: ajvCompiler, counters: store, state: store, now: () => new Date(NOV) });
  }
  /** µs per allowed spend check, over fresh sessions of 50 checks each (the history stays short). */
  async function checks(e: InstanceType<typeof engine.Engine>, total: number): Promise<number[]> {
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
    return samples;
  }
  const small = engineAt();
  const big = engineAt();
  await checks(small, 1000); // warm (a few hundred reservations in the small store)
  await checks(big, 20_000);
  const s: number[] = [];
  const b: number[] = [];
  for (let round = 0; round < 9; round++) {
    s.push(...(await checks(small, 100)));
    b.push(...(await checks(big, 100)));
  }
  for (const h of homes) state.closeState(h);
  return { first: median(s), at20k: median(b) };
}

/** The floor on this machine, now: a bare LMDB write transaction of 5 puts (no checks, no witness). */
async function lmdbFloor(): Promise<number> {
  const { open } = await import("lmdb");
  const env = open({ path: join(mkdtempSync(join(tmpdir(), "stalwart-bench-lmdb-")), "floor.mdb"), noSync: true, maxDbs: 8 });
  const dbs = ["a", "b", "c", "d", "e"].map((name) => env.openDB({ name }));
  const op = (i: number) => env.transactionSync(() => dbs.forEach((d) => d.putSync(`k${i}`, [i, 1, 2, 3])));
  for (let i = 0; i < 2000; i++) op(-i - 1);
  const us = await perOp(200, 9, op);
  await env.close();
  return us;
}

const fmt = (us: number) => `${us.toFixed(1)} µs`;
const ratio = (a: number, b: number) => `${(b / a).toFixed(2)}×`;

const homes: string[] = [];
const node = await storeCosts(() => {
  const home = mkdtempSync(join(tmpdir(), "stalwart-bench-state-"));
  homes.push(home);
  return state.nodeState(home, { now: () => NOV });
});
for (const h of homes) state.closeState(h);
const mem = await storeCosts(() => new engine.MemoryStateStore({ now: () => NOV }));
const spend = await spendChecks();
const floor = await lmdbFloor();

console.log(`\nstalwart-agents bench:state — the session-state and counter store, one run, medians (Node ${process.version})\n`);
console.log(`"first": a store holding at most ${node.first.held.toLocaleString("en")} reservations; both measured in alternating batches\n`);
console.log("| case | first | at 20,000 reservations | ratio | target |");
console.log("|---|---|---|---|---|");
console.log(`| reservation (Node store, LMDB under the home) | ${fmt(node.first.reserve)} | ${fmt(node.at20k.reserve)} | ${ratio(node.first.reserve, node.at20k.reserve)} | within 2× of the first |`);
console.log(`| commit (head compare-and-set, Node store) | ${fmt(node.first.commit)} | ${fmt(node.at20k.commit)} | ${ratio(node.first.commit, node.at20k.commit)} | |`);
console.log(`| spend check in-process (session + Node store) | ${fmt(spend.first)} | ${fmt(spend.at20k)} | ${ratio(spend.first, spend.at20k)} | within 2× of the first |`);
console.log(`| peek / load (Node store, at 20,000) | ${fmt(node.peek)} | ${fmt(node.load)} | | |`);
console.log(`| floor: a bare LMDB write transaction of 5 puts, this machine now | ${fmt(floor)} | | | |`);
console.log(`| reservation / commit (memory store) | ${fmt(mem.first.reserve)} / ${fmt(mem.first.commit)} | ${fmt(mem.at20k.reserve)} / ${fmt(mem.at20k.commit)} | | |`);
