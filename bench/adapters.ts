/**
 * `npm run bench:adapters`: what the adapters add to each tool call, inside the frameworks' own
 * loops with scripted models — the same loop with the guarded tools and with the raw ones, one
 * run, medians. A round is one run of the loop whose model asks for 10 reads at once, then ends;
 * the added cost per call is (guarded − raw) / 10 and includes the whole check (turns, inferred
 * origins, check, report), split into what the framework spends on the hooks the guard sets (the
 * same hooks doing nothing), the adapter's own code (the guard over a session whose check allows
 * at once), and the rest — the session's check and report, also measured alone. Sessions start with 20 or 2,000 entries of history.
 * Times are the process's CPU time (user + system), not the wall clock: on a machine shared with
 * other work, waiting for a core is not the guard's cost. Target: ≤ 50 µs added per call
 * in-process. Printed, never asserted.
 */
import { generateText, stepCountIs, tool as aiTool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { Agent, run, setTracingDisabled, tool as agentsTool } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { licensedHome } from "../test/helpers/licensed-home.js";
import { script } from "../test/adapters/ai-script.js";

// What users run: the compiled package in dist/ (built first), not the sources through a loader.
// STALWART_BENCH_DIST: another build to compare with (a copy of dist/ made before a change), same sitting.
// (a path from the directory it is run in, as bench/run.ts and bench/profile.ts read it)
const dist = process.env.STALWART_BENCH_DIST ? new URL(process.env.STALWART_BENCH_DIST.replace(/\/?$/, "/"), "file://" + process.cwd() + "/").href : new URL("../dist/", import.meta.url).href;
const { Client } = (await import(dist + "cli/sdk/index.js")) as typeof import("../cli/sdk/index.js");
const ai = (await import(dist + "cli/adapters/ai/index.js")) as typeof import("../cli/adapters/ai/index.js");
const agents = (await import(dist + "cli/adapters/openai-agents/index.js")) as typeof import("../cli/adapters/openai-agents/index.js");
const { describeSession, sessionInfo } = (await import(dist + "cli/sdk/session-info.js")) as typeof import("../cli/sdk/session-info.js");

setTracingDisabled(true);
const CALLS = 10;
const catalogue = new URL("../examples/store/agent.yaml", import.meta.url).pathname;
const home = licensedHome("bench-adapters");
const memoryHome = licensedHome("bench-adapters-memory");
const client = new Client({ home });
const order = (order_id: string) => ({ order_id, status: "paid", total: 40, card: "visa-4242" });

/** µs of CPU this process has used (getrusage: sampled, so only sums over many calls mean anything). */
const cpu = () => {
  const c = process.cpuUsage();
  return c.user + c.system;
};

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** A session holding about `entries` entries: a turn, then reads that ran. */
async function sessionOf(entries: number) {
  const s = client.session("bench", { catalogue });
  await s.read("consulte o pedido 4411");
  while (s.history.entries.length < entries) {
    const c = await s.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "typed" } });
    await s.report(c.step, "ran", order("4411"));
  }
  return s;
}

/** the value of `order_id` the model sends: typed by the person ("4411"), or a number nobody typed */
let asked = "4411";
const batchOf = () => Array.from({ length: CALLS }, (_, i) => ({ id: `c${i}`, tool: "get_order", input: { order_id: asked } }));
const messages = [{ role: "user" as const, content: "consulte o pedido 4411" }];
const aiRaw = { get_order: aiTool({ description: "an order", inputSchema: z.object({ order_id: z.string() }), execute: async ({ order_id }) => order(order_id) }) };
/** The same hooks the guard sets, doing nothing: what the framework itself spends on them. */
const aiHooked = { get_order: { ...aiRaw.get_order, needsApproval: async () => false, execute: async (i: { order_id: string }, o: never) => aiRaw.get_order.execute!(i, o) } } as unknown as typeof aiRaw;
const agentsRaw = agentsTool({ name: "get_order", description: "an order", parameters: z.object({ order_id: z.string() }), execute: ({ order_id }) => order(order_id) });

let round = 0;
async function aiRound(tools: typeof aiRaw): Promise<number> {
  const n = round++;
  const model = new MockLanguageModelV4(script([batchOf().map((c) => ({ ...c, id: `${c.id}-${n}` })), "pronto"]) as never);
  const t0 = cpu();
  await generateText({ model, tools, messages, stopWhen: stepCountIs(3) });
  return cpu() - t0;
}

async function agentsRound(agent: Agent, model: ScriptedModel): Promise<number> {
  // Call ids are unique per run, as a real model's are.
  const n = round++;
  model.enqueue(batchOf().map((c) => functionCall(c.tool, c.input, { callId: `${c.id}-${n}` })), [assistantMessage("pronto")]);
  const t0 = cpu();
  await run(agent, "consulte o pedido 4411");
  return cpu() - t0;
}

/** The guard's hooks on the Agents JS tool, doing nothing. */
function agentsHookedTool(): typeof agentsRaw {
  const t = agentsRaw;
  const copy = Object.create(Object.getPrototypeOf(t), Object.getOwnPropertyDescriptors(t)) as typeof agentsRaw;
  Object.assign(copy, {
    needsApproval: async () => false,
    invoke: (ctx: never, input: string, details: never) => t.invoke(ctx, input, details),
    inputGuardrails: [{ type: "tool_input", name: "noop", run: async () => ({ behavior: { type: "allow" } }) }],
  });
  return copy;
}

/**
 * The session's history, and a check that allows at once: the adapter's own code (turns, inferred
 * origins over that history, the wrapping) without the cost of the check and the report. It is
 * described as Client describes its sessions, so the guard reads the session's own inference view.
 */
function stubOf(s: { id: string; history: { entries: import("../worker/portable/engine/index.js").Entry[] }; toJSON(): { entries: import("../worker/portable/engine/index.js").Entry[] } }) {
  // What Client says of the session (its catalogue, and its own inference view), as it says it of its own.
  const info = sessionInfo(s);
  if (!info) throw new Error("the bench's sessions come from Client");
  return describeSession({
    id: s.id,
    history: s.history,
    // as a Client session does: a long history new to the guard is read from its plain copy
    toJSON: () => s.toJSON(),
    read: async () => ({ step: 0 }),
    checkToolCall: async () => ({ decision: "allow" as const, reasons: [], detail: {}, step: 1 }),
    report: async () => ({ step: 0 }),
  }, info);
}

/** One case of the table: a framework's loop over sessions of `entries` entries, what it asks for. */
interface Case {
  framework: "ai" | "agents";
  entries: number;
  sessions: number;
  asked?: string;
}
interface Times {
  raw: number[];
  hooked: number[];
  stubbed: number[];
  guarded: number[];
}

/**
 * The sessions of every case, run in one interleaved order (each case's sessions spread evenly
 * over the run) rather than case after case: load on the shared machine, the JIT and the
 * collector's debt (a 2,000-entry session's build leaves ~1,000 check + report pairs of garbage)
 * then fall on every row alike. What each row measures is unchanged: the same sessions, rounds
 * and means. Before round 10 the rows were timed one after the other, and whichever came first
 * or after a long build read up to twice the others (the check + report alone: 150.8 µs at 20
 * entries, 64.4 µs at 2,000, in one run).
 */
function interleaved<C extends { sessions: number }>(cases: readonly C[]): [C, number][] {
  const order: [C, number, number][] = [];
  for (const c of cases) for (let k = 0; k < c.sessions; k++) order.push([c, k, (k + 0.5) / c.sessions]);
  return order.sort((a, b) => a[2] - b[2]).map(([c, k]) => [c, k]);
}

async function addedAll(cases: readonly Case[], rounds: number) {
  const times = new Map<Case, Times>(cases.map((c) => [c, { raw: [], hooked: [], stubbed: [], guarded: [] }]));
  for (const [c] of interleaved(cases)) {
    asked = c.asked ?? "4411";
    await addedSession(c.framework, c.entries, rounds, times.get(c)!);
  }
  asked = "4411";
  return cases.map((c) => meanOf(times.get(c)!));
}

/** One fresh session of a case: `rounds` guarded rounds interleaved with as many raw, hooked and stubbed ones (so drift hits all four). */
async function addedSession(framework: "ai" | "agents", entries: number, rounds: number, { raw, hooked, stubbed, guarded }: Times) {
  const s = await sessionOf(entries);
  if (framework === "ai") {
    const tools = ai.guard(aiRaw, s);
    const stub = ai.guard(aiRaw, stubOf(s));
    for (let r = 0; r < rounds; r++) {
      raw.push(await aiRound(aiRaw));
      hooked.push(await aiRound(aiHooked));
      stubbed.push(await aiRound(stub));
      guarded.push(await aiRound(tools));
    }
  } else {
    const rawModel = new ScriptedModel();
    const hookedModel = new ScriptedModel();
    const guardedModel = new ScriptedModel();
    const stubModel = new ScriptedModel();
    const bare = new Agent({ name: "bench", instructions: "-", tools: [agentsRaw], model: rawModel });
    const noop = new Agent({ name: "bench", instructions: "-", tools: [agentsHookedTool()], model: hookedModel });
    const agent = agents.guard(new Agent({ name: "bench", instructions: "-", tools: [agentsRaw], model: guardedModel }), s);
    const stub = agents.guard(new Agent({ name: "bench", instructions: "-", tools: [agentsRaw], model: stubModel }), stubOf(s));
    for (let r = 0; r < rounds; r++) {
      raw.push(await agentsRound(bare, rawModel));
      hooked.push(await agentsRound(noop, hookedModel));
      stubbed.push(await agentsRound(stub, stubModel));
      guarded.push(await agentsRound(agent, guardedModel));
    }
  }
}

function meanOf({ raw, hooked, stubbed, guarded }: Times) {
  // CPU time is sampled by the kernel: a sum over many rounds, not a median of single ones.
  const r = sum(raw) / raw.length / CALLS;
  const h = sum(hooked) / hooked.length / CALLS;
  const st = sum(stubbed) / stubbed.length / CALLS;
  const g = sum(guarded) / guarded.length / CALLS;
  return { raw: r, hooked: h, stubbed: st, guarded: g, added: g - r };
}

/** The session's own check and report of the same read, alone: what any host pays for the check. */
async function checkAlone(cases: readonly { entries: number; sessions: number }[], per: number): Promise<number[]> {
  const total = new Map(cases.map((c) => [c, 0]));
  for (const [c] of interleaved(cases)) {
    const s = await sessionOf(c.entries);
    const t0 = cpu();
    for (let k = 0; k < per; k++) {
      const checked = await s.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "typed" } });
      await s.report(checked.step, "ran", order("4411"));
    }
    total.set(c, total.get(c)! + cpu() - t0);
  }
  return cases.map((c) => total.get(c)! / (c.sessions * per));
}

/**
 * The two parts of the check + report that no adapter code can remove, each timed alone in this
 * run: the home's durable store doing what a check and a report make it do (the check's commit on
 * its own state — a load first when the store keeps none — and the report's commit, on one
 * session of the bench's own home), and the engine's check + report of the same read
 * on its in-memory store (the steps, the signed entries, no file). Their sum is the floor under
 * "added by the guard" for a durable session.
 */
async function floorParts(): Promise<{ store: number; engine: number }> {
  const engineOf = (c: InstanceType<typeof Client>) => (c as unknown as { engine(): { state: import("../worker/portable/engine/index.js").SessionStateStore } }).engine();
  const store = engineOf(client).state;
  const link = (n: number) => n.toString(16).padStart(64, "0");
  let head = { count: 0, link: "" };
  const commit = async (own: boolean) => {
    const next = { count: head.count + 1, link: link(head.count + 1) };
    await store.commit("bench-floor", own ? { expect: head, next, spend: [], tally: {}, basis: "own" } : { expect: head, next, spend: [], tally: {} });
    head = next;
  };
  // A check commits on the state its own last commit left when the store keeps it (its commit
  // proves it still holds; round 10), else loads first; a report only commits (its
  // compare-and-set is the whole test).
  const pair = async () => {
    const own = store.ownState?.("bench-floor") !== undefined;
    if (!own) await store.load("bench-floor");
    await commit(own);
    await commit(false);
  };
  for (let i = 0; i < 2000; i++) await pair();
  let t0 = cpu();
  for (let i = 0; i < 10_000; i++) await pair();
  const storeUs = (cpu() - t0) / 10_000;

  const { MemoryStateStore } = (await import(dist + "worker/portable/engine/index.js")) as typeof import("../worker/portable/engine/index.js");
  const memoryClient = new Client({ home: memoryHome });
  const memory = new MemoryStateStore();
  Object.assign(engineOf(memoryClient), { state: memory, counters: memory });
  const s0 = memoryClient.session("bench", { catalogue });
  await s0.read("consulte o pedido 4411");
  let total = 0;
  let n = 0;
  for (let round = 0; round < 12; round++) {
    const s = memoryClient.session("bench", { catalogue });
    await s.read("consulte o pedido 4411");
    while (s.history.entries.length < 20) {
      const c = await s.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "typed" } });
      await s.report(c.step, "ran", order("4411"));
    }
    t0 = cpu();
    for (let k = 0; k < 500; k++) {
      const c = await s.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "typed" } });
      await s.report(c.step, "ran", order("4411"));
    }
    // the first rounds warm the JIT
    if (round >= 2) {
      total += cpu() - t0;
      n += 500;
    }
  }
  memoryClient.close();
  return { store: storeUs, engine: total / n };
}

/**
 * A home in use, as a user's is: the store trusts the home folder's stat in place of statting each
 * file only once the folder last changed more than 3 s before (cli/sdk/state/file.ts, RACY_MS), so
 * a home made a moment ago pays the full look on every operation for its first 3 s. The bench's
 * home is new: its store and catalogue cache are made first, then nothing is timed until the
 * folder has been still for 3.5 s (before round 6 the first rows fell inside that window, and the
 * 20-entry check read dearer than the 2,000-entry one).
 */
async function stillHome(): Promise<void> {
  const s = await sessionOf(2);
  await s.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "typed" } });
  const { statSync } = await import("node:fs");
  for (;;) {
    const d = statSync(home);
    const wait = Math.max(d.mtimeMs, d.ctimeMs) + 3500 - Date.now();
    if (wait <= 0) return;
    await new Promise((r) => setTimeout(r, wait));
  }
}

export type AdapterRow = [string, ReturnType<typeof meanOf>, number];

/** When issue 13 set its 50 µs target, the reference Cedar decision (bench/run.ts's) took this long. */
const CEDAR_AT_FILING_US = 33.7;
/** The same Cedar decision in this run, µs of CPU (null: cedar-wasm would not load). */
let cedarUs: number | null = null;
/** floorParts(), this run */
let floor: { store: number; engine: number } | null = null;

/** bench/run.ts's reference decision, timed here in CPU time, to say what 50 µs is on this machine today. */
async function cedarDecision(): Promise<number | null> {
  try {
    const cedarWasm = await import("@cedar-policy/cedar-wasm/nodejs");
    const staticPolicies = `
      permit(principal == User::"billing", action == Action::"get_order", resource);
      permit(principal == User::"billing", action == Action::"refund_card", resource) when { context.amount <= 100 };
      forbid(principal, action == Action::"refund_card", resource) when { context.tainted };
      permit(principal == User::"support", action == Action::"get_order", resource);
      forbid(principal, action == Action::"delete_order", resource);`;
    if (cedarWasm.preparsePolicySet("adapters", { staticPolicies }).type !== "success") return null;
    const call = { principal: { type: "User", id: "billing" }, action: { type: "Action", id: "refund_card" }, resource: { type: "Order", id: "4411" }, context: { amount: 40, tainted: false }, preparsedPolicySetId: "adapters", entities: [] };
    for (let i = 0; i < 2000; i++) cedarWasm.statefulIsAuthorized(call as never);
    const t0 = cpu();
    for (let i = 0; i < 20_000; i++) cedarWasm.statefulIsAuthorized(call as never);
    return (cpu() - t0) / 20_000;
  } catch {
    return null;
  }
}

/**
 * The rows: both frameworks at 20 and 2,000 entries, and an argument nobody typed. `short` (what
 * `npm run bench` runs) times fewer sessions and rounds; `bench:adapters` the full set.
 */
export async function measureAdapters(scale: "full" | "short" = "full"): Promise<AdapterRow[]> {
  // `npm run bench` runs this after its other benches: their garbage is not the adapters' to collect.
  (globalThis as { gc?: () => void }).gc?.();
  await stillHome();
  // The homes' keys made, then older than the 3 s in which a process reads a just-written key
  // file again at each use (cli/sdk/loaded-key.ts): an application's steady state, not a fresh home's.
  const { installationKey } = (await import(dist + "cli/sdk/home.js")) as typeof import("../cli/sdk/home.js");
  installationKey(home);
  installationKey(memoryHome);
  await new Promise((r) => setTimeout(r, 3100));
  const k = scale === "full" ? 1 : 0.5;
  const n = (x: number) => Math.max(2, Math.round(x * k));
  // Warm every path first, so the first case measured does not pay for the JIT. The check +
  // report alone needs ~2,000 pairs before it settles (one run, load 4.8: 20-entry sessions read
  // 369, then 181, then 97 µs; 2,000-entry ones, built by 1,000 pairs each, 186 then 92 µs):
  // without this the 20-entry rows, timed first, read about twice the 2,000-entry ones.
  await checkAlone([{ entries: 20, sessions: n(20) }], 100);
  await addedAll([{ framework: "ai", entries: 20, sessions: n(3) }, { framework: "agents", entries: 20, sessions: n(3) }], 10);
  const [alone20, alone2000] = (await checkAlone([{ entries: 20, sessions: n(10) }, { entries: 2000, sessions: n(4) }], 100)) as [number, number];
  // An argument nobody typed (the last case): inference looks for it among every recorded result (about 1,000 here).
  const cases: Case[] = [
    { framework: "ai", entries: 20, sessions: n(10) },
    { framework: "ai", entries: 2000, sessions: n(4) },
    { framework: "agents", entries: 20, sessions: n(10) },
    { framework: "agents", entries: 2000, sessions: n(4) },
    { framework: "ai", entries: 2000, sessions: n(4), asked: "9999" },
  ];
  const [ai20, ai2000, agents20, agents2000, untyped] = (await addedAll(cases, 20)) as Awaited<ReturnType<typeof addedAll>>;
  const rows: AdapterRow[] = [
    ["AI SDK generateText, 20-entry history", ai20!, alone20],
    ["AI SDK generateText, 2,000-entry history", ai2000!, alone2000],
    ["Agents JS run(), 20-entry history", agents20!, alone20],
    ["Agents JS run(), 2,000-entry history", agents2000!, alone2000],
    ["AI SDK generateText, 2,000-entry history, `order_id` nobody typed", untyped!, alone2000],
  ];
  cedarUs = await cedarDecision();
  floor = await floorParts();
  return rows;
}

/** The table (target printed beside each row, never asserted). */
export function printAdapters(rows: AdapterRow[]): void {
  console.log("| loop | raw tools | guarded tools | ratio guarded / raw | added by the guard | of which: the framework's hooks, doing nothing | the adapter's own code (check stubbed) | the session's check + report (the rest) | the check + report alone, outside a loop | target |");
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  const us = (x: number) => `${x.toFixed(1)} µs`;
  for (const [name, x, alone] of rows) {
    const hooks = x.hooked - x.raw;
    const own = x.stubbed - x.hooked;
    console.log(`| ${name} | ${us(x.raw)} | ${us(x.guarded)} | ${(x.guarded / x.raw).toFixed(2)} | ${us(x.added)} | ${us(hooks)} | ${us(own)} | ${us(x.added - hooks - own)} | ${us(alone)} | ≤ 50 µs added |`);
  }
  if (cedarUs !== null) {
    // The target was set on a faster machine: scaled by the same Cedar decision, timed in this run.
    const scale = cedarUs / CEDAR_AT_FILING_US;
    console.log(`\nCedar decision, this run: ${us(cedarUs)} CPU (${CEDAR_AT_FILING_US} µs when the target was set): the 50 µs target is ${us(50 * scale)} on this machine now.`);
    for (const [name, x, alone] of rows) console.log(`  ${name}: added ${(x.added / cedarUs).toFixed(1)} Cedar decisions (target ${(50 / CEDAR_AT_FILING_US).toFixed(1)}); the check + report alone ${(alone / cedarUs).toFixed(1)}`);
  }
  if (floor) {
    const target = cedarUs !== null ? 50 * (cedarUs / CEDAR_AT_FILING_US) : 50;
    console.log(`\nThe floor under a durable session's check + report, each part alone in this run: the home's store, what a check and a report make it do (2 commits; the check's on its own state), ${us(floor.store)}; the engine's check + report on its in-memory store, ${us(floor.engine)}; together ${us(floor.store + floor.engine)} against the ${us(target)} target${floor.store + floor.engine > target ? " — above it before any adapter or framework code runs" : ""}.`);
  }
}

export function closeAdapters(): void {
  client.close();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const rows = await measureAdapters("full");
  console.log(`\nstalwart-agents adapters bench — in-process, per tool call, mean CPU time (Node ${process.version})\n`);
  printAdapters(rows);
  closeAdapters();
}
