/**
 * `node --cpu-prof --import tsx bench/profile-adapters.ts check|stub|memory [seconds] [entries]`:
 * one case of `bench:adapters` in a loop, long enough for the sampling profiler to say where its
 * time goes (docs/perf/adapters-*.txt hold what it showed).
 *   check  — `checkToolCall` + `report` of a read on a Client session (the durable store)
 *   memory — the same on an engine whose state is the in-memory store (for comparison)
 *   stub   — the AI SDK guard over a session whose check allows at once (the adapter's own code)
 *   store  — the home's store alone: a load and a commit of one session, as each check and report makes
 * Prints µs of CPU per operation (a check + report, or a tool call). Measures the compiled dist/.
 */
import "./temp-root.js";
import { generateText, stepCountIs, tool as aiTool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { licensedHome } from "../test/helpers/licensed-home.js";
import { script } from "../test/adapters/ai-script.js";

// STALWART_BENCH_DIST: another build to compare with (a copy of dist/ made before a change), same sitting.
// (a path from the directory it is run in, as bench/run.ts and bench/profile.ts read it)
const dist = process.env.STALWART_BENCH_DIST ? new URL(process.env.STALWART_BENCH_DIST.replace(/\/?$/, "/"), "file://" + process.cwd() + "/").href : new URL("../dist/", import.meta.url).href;
const { Client } = (await import(dist + "cli/sdk/index.js")) as typeof import("../cli/sdk/index.js");
const ai = (await import(dist + "cli/adapters/ai/index.js")) as typeof import("../cli/adapters/ai/index.js");
const { describeSession, sessionInfo } = (await import(dist + "cli/sdk/session-info.js")) as typeof import("../cli/sdk/session-info.js");

const which = process.argv[2] ?? "check";
const seconds = Number(process.argv[3] ?? 10);
const entries = Number(process.argv[4] ?? 20);
const catalogue = new URL("../examples/store/agent.yaml", import.meta.url).pathname;
const order = (order_id: string) => ({ order_id, status: "paid", total: 40, card: "visa-4242" });
const cpu = () => {
  const c = process.cpuUsage();
  return c.user + c.system;
};

async function sessionOf(client: InstanceType<typeof Client>, n: number) {
  const s = client.session("bench", { catalogue });
  await s.read("consulte o pedido 4411");
  while (s.history.entries.length < n) {
    const c = await s.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "typed" } });
    await s.report(c.step, "ran", order("4411"));
  }
  return s;
}

const client = new Client({ home: licensedHome("profile-adapters") });
let ops = 0;
let spent = 0;
const until = Date.now() + seconds * 1000;
/** The read tool and the person's message both guard cases use. */
const raw = { get_order: aiTool({ description: "an order", inputSchema: z.object({ order_id: z.string() }), execute: async ({ order_id }) => order(order_id) }) };
const messages = [{ role: "user" as const, content: "consulte o pedido 4411" }];

/** `s` described as Client describes it, with a check that always allows: the adapter's own cost. */
const stubOf = (s: Awaited<ReturnType<typeof sessionOf>>) =>
  describeSession({
    id: s.id, history: s.history, toJSON: () => s.toJSON(),
    read: async () => ({ step: 0 }),
    checkToolCall: async () => ({ decision: "allow" as const, reasons: [], detail: {}, step: 1 }),
    report: async () => ({ step: 0 }),
  }, sessionInfo(s)!);

if (which === "store") {
  // The home's store alone, as a check or a report uses it: a load, then the commit of the next
  // head, on one session. The home is left still for 3.5 s first (a home in use for longer than
  // file.ts's RACY_MS: the files are then looked at through the folder's stat).
  const { nodeState } = (await import(dist + "cli/sdk/state/index.js")) as typeof import("../cli/sdk/state/index.js");
  const { mkdtempSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const store = nodeState(mkdtempSync(join(tmpdir(), "stalwart-profile-store-")));
  const link = (n: number) => n.toString(16).padStart(64, "0");
  let head = { count: 0, link: "" };
  const pair = () => {
    store.load("s");
    const next = { count: head.count + 1, link: link(head.count + 1) };
    store.commit("s", { expect: head, next, spend: [], tally: {} });
    head = next;
  };
  for (let i = 0; i < 3000; i++) pair();
  await new Promise((r) => setTimeout(r, 3500));
  const t0 = cpu();
  while (Date.now() < until) {
    for (let i = 0; i < 1000; i++) pair();
    ops += 1000;
  }
  console.log(`store: ${ops} load + commit, ${((cpu() - t0) / ops).toFixed(1)} µs CPU each`);
} else if (which === "check" || which === "memory") {
  if (which === "memory") {
    // The engine's own in-memory store in place of the home's: what the durable store costs.
    const { MemoryStateStore } = (await import(dist + "worker/portable/engine/index.js")) as typeof import("../worker/portable/engine/index.js");
    const store = new MemoryStateStore();
    const e = (client as unknown as { engine(): object }).engine();
    Object.assign(e, { state: store, counters: store });
  }
  while (Date.now() < until) {
    const s = await sessionOf(client, entries);
    const t0 = cpu();
    for (let k = 0; k < 200; k++) {
      const c = await s.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "typed" } });
      await s.report(c.step, "ran", order("4411"));
    }
    spent += cpu() - t0;
    ops += 200;
  }
  console.log(`${which}: ${ops} check+report, ${(spent / ops).toFixed(1)} µs CPU each (${entries}-entry sessions)`);
} else if (which === "newguard") {
  // A new guard on a long session, one round each: what catching up on the history costs.
  const s = await sessionOf(client, entries);
  const stub = stubOf(s);
  let round = 0;
  const t0 = cpu();
  while (Date.now() < until) {
    const tools = ai.guard(raw, stub);
    const model = new MockLanguageModelV4(script([[{ id: `c-${round++}`, tool: "get_order", input: { order_id: "4411" } }], "pronto"]) as never);
    await generateText({ model, tools, messages, stopWhen: stepCountIs(3) });
    ops++;
  }
  console.log(`newguard: ${ops} new guards, ${((cpu() - t0) / ops).toFixed(0)} µs CPU each for its first call (${entries}-entry session)`);
} else {
  const asked = process.argv[5] ?? "4411";
  let round = 0;
  const first: number[] = [];
  // One session, built before the clock starts: the profile is of the guarded rounds, not of
  // the checks that build a long history.
  const s = await sessionOf(client, entries);
  while (Date.now() < until) {
    const stub = stubOf(s);
    const tools = ai.guard(raw, stub);
    const t0 = cpu();
    for (let r = 0; r < 50; r++) {
      if (r === 1) first.push(cpu() - t0);
      const batch = Array.from({ length: 10 }, (_, i) => ({ id: `c${i}-${round}`, tool: "get_order", input: { order_id: asked } }));
      round++;
      const model = new MockLanguageModelV4(script([batch, "pronto"]) as never);
      await generateText({ model, tools, messages, stopWhen: stepCountIs(3) });
      ops += 10;
    }
    spent += cpu() - t0;
  }
  console.log(`stub: first round (10 calls, the guard new to the session) ${(first.reduce((a, b) => a + b, 0) / first.length).toFixed(0)} µs CPU`);
  console.log(`stub: ${ops} guarded tool calls, ${(spent / ops).toFixed(1)} µs CPU each incl. the framework (${entries}-entry sessions)`);
}
client.close();
