/**
 * The licence gate's cost per check (cli/sdk/licence-gate.ts): the engine without a licence hook, the
 * SDK with a licence whose view is read (no count), the SDK with the real handle (view + count of
 * `tool_checks`), each 200 sessions x 50 reads, 11 rounds, medians; then view() and count() alone.
 *   node --expose-gc --import tsx bench/licence-gate.ts
 */
import { Client } from "../cli/sdk/index.js";
import { Engine } from "../worker/portable/engine/engine.js";
import { Session } from "../worker/portable/engine/session.js";
import { nodeCore } from "../cli/sdk/wasm-node.js";
import { ajvCompiler } from "../cli/sdk/ajv-compiler.js";
import { catalogueFrom } from "../cli/sdk/catalogue-input.js";
import { openLicence } from "../cli/licence/index.js";
import { licensedHome } from "../test/helpers/licensed-home.js";
import { randomBytes } from "node:crypto";

const catalogue = new URL("../examples/store/agent.yaml", import.meta.url).pathname;
const SESSIONS = 200, PER = 50;
const args = { order_id: "4411" };

async function bench(name: string, mk: () => { checkToolCall: (t: string, a: unknown) => Promise<unknown> }) {
  // warm-up
  for (let i = 0; i < 20; i++) { const s = mk(); for (let j = 0; j < PER; j++) await s.checkToolCall("get_order", args); }
  const t = process.hrtime.bigint();
  for (let i = 0; i < SESSIONS; i++) { const s = mk(); for (let j = 0; j < PER; j++) await s.checkToolCall("get_order", args); }
  const us = Number(process.hrtime.bigint() - t) / 1e3 / (SESSIONS * PER);
  console.log(`${name.padEnd(44)} ${us.toFixed(2)} µs/check`);
  return us;
}

const core = nodeCore();
const cat = catalogueFrom(catalogue, { schemaCompiler: ajvCompiler, sha256: (b) => core.sha256(b) });
const bare = new Engine({ core, key: randomBytes(32), schemaCompiler: ajvCompiler });
const home = licensedHome("bench");
const handle = await openLicence({ home, renew: false });
const client = new Client({ home: licensedHome("bench-state"), licence: handle });
const fake = { view: () => handle.view(), count: () => {}, answered: () => {} };
const clientNoCount = new Client({ home: licensedHome("bench-state2"), licence: fake });

const results: number[][] = [[], [], []];
for (let round = 0; round < 11; round++) {
  (globalThis as any).gc?.();
  results[0]!.push(await bench("engine Session, no licence hook", () => new Session(bare, "b", cat)));
  results[1]!.push(await bench("Client + licence (view only, no count)", () => clientNoCount.session("b", { catalogue })));
  results[2]!.push(await bench("Client + licence handle (view + count)", () => client.session("b", { catalogue })));
}
const med = (a: number[]) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
console.log("medians:", results.map(med).map((x) => x.toFixed(2)));
const N = 1_000_000;
let t = process.hrtime.bigint();
for (let i = 0; i < N; i++) handle.view();
console.log(`handle.view(): ${(Number(process.hrtime.bigint() - t) / N).toFixed(0)} ns`);
t = process.hrtime.bigint();
for (let i = 0; i < N; i++) handle.count("tool_checks");
console.log(`handle.count(): ${(Number(process.hrtime.bigint() - t) / N).toFixed(0)} ns`);
handle.flush();
