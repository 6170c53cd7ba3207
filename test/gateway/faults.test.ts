/**
 * Fail closed, and keep serving (issue 11, item 8): a fault inside the gateway before a call is
 * forwarded (the approval store, read only for a call that needs a person; the clock the check
 * reads) is an `isError` refusal with
 * `internal_error` and the fault named, the tool server never sees the call, and the next call is
 * served; a tool server that dies in the middle of a call answers `isError` and the gateway goes
 * on; a 2026-07-28 `requestState` answered twice runs the call once, and the states the gateway
 * remembers for that do not hold a client's large ones in memory.
 * Upstream: fixtures/faults-server.mjs, which logs every call it gets.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startGateway, type RunningGateway } from "../../cli/gateway/index.js";
import { allowedDir, downstreamClient, EVERYTHING, home, overHttp, text } from "./helpers.js";

const FAULTS = join(import.meta.dirname, "fixtures/faults-server.mjs");
const CATALOGUE = `
settings: {language: en}
tools:
  - {name: note, args: {type: object, properties: {text: {type: string}}, additionalProperties: false}}
  - {name: die_later, args: {type: object, additionalProperties: false}}
  - {name: malformed, args: {type: object, additionalProperties: false}}
  - {name: save, writes: true, args: {type: object, properties: {text: {type: string}}, required: [text], additionalProperties: false}}
`;

let gw: RunningGateway;
let log: string;
let clockFault = false;
const seen = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").filter(Boolean) : []);
const meta = (r: { _meta?: Record<string, unknown> | undefined }) => r._meta?.["stalwart-agents/check"] as { decision: string; reasons: string[]; detail: Record<string, unknown>; pending?: string } | undefined;

beforeAll(async () => {
  const dir = allowedDir();
  log = join(dir, "faults.log");
  writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
  gw = await startGateway({
    catalogue: join(dir, "agent.yaml"),
    upstream: { command: process.execPath, args: [FAULTS], env: { ...(process.env as Record<string, string>), FAULTS_LOG: log } },
    listen: { host: "127.0.0.1", port: 0 }, home: home(), log: () => undefined,
    now: () => {
      if (clockFault) throw new Error("clock fault (injected)");
      return new Date();
    },
  });
}, 60_000);
afterAll(() => gw?.close());

describe("a fault inside the gateway", { timeout: 60_000 }, () => {
  it("the approval store throws: a call that needs a person is refused internal_error, not forwarded, and the next call runs", async () => {
    const { client } = await overHttp(downstreamClient({}), gw.url!);
    const before = seen().length;
    const get = gw.pending.get;
    let reads = 0;
    gw.pending.get = () => {
      reads++;
      throw new Error("store fault (injected)");
    };
    try {
      // an allowed call never reads the store (only a call the check says needs a person can be covered by an approval in it)
      const allowed = await client.callTool({ name: "note", arguments: { text: "a" } });
      expect(allowed.isError, text(allowed)).toBeFalsy();
      expect(reads).toBe(0);
      expect(seen().at(-1)).toBe('call note {"text":"a"}');
      // a write the check confirms looks there for an approval of it (its own asks' records): the fault is a refusal
      const r = await client.callTool({ name: "save", arguments: { text: "x" } });
      expect(reads).toBe(1);
      expect(r.isError).toBe(true);
      expect(text(r)).toContain("stalwart refused save, and it did not run.");
      expect(text(r)).toContain("internal_error: store fault (injected)");
      expect(meta(r)).toMatchObject({ decision: "refuse", reasons: ["internal_error"] });
    } finally {
      gw.pending.get = get;
    }
    expect(seen().length).toBe(before + 1);
    const next = await client.callTool({ name: "note", arguments: { text: "b" } });
    expect(next.isError, text(next)).toBeFalsy();
    expect(seen().at(-1)).toBe('call note {"text":"b"}');
    await client.close();
  });

  it("the clock the check reads throws: refused internal_error, not forwarded, and the next call runs", async () => {
    const { client } = await overHttp(downstreamClient({}), gw.url!);
    const before = seen().length;
    clockFault = true;
    let r;
    try {
      r = await client.callTool({ name: "note", arguments: { text: "c" } });
    } finally {
      clockFault = false;
    }
    expect(r.isError).toBe(true);
    expect(meta(r)).toMatchObject({ decision: "refuse", reasons: ["internal_error"] });
    expect(text(r)).toContain("clock fault (injected)");
    expect(seen().length).toBe(before);
    const next = await client.callTool({ name: "note", arguments: { text: "d" } });
    expect(next.isError, text(next)).toBeFalsy();
    expect(seen().at(-1)).toBe('call note {"text":"d"}');
    await client.close();
  });
});

describe("a tool server that dies in the middle of a call", { timeout: 60_000 }, () => {
  it("answers isError (outcome_unknown), and the gateway serves the next call", async () => {
    const { client } = await overHttp(downstreamClient({}), gw.url!);
    const progress: number[] = [];
    const r = await client.callTool({ name: "die_later", arguments: {} }, { onprogress: (p) => void progress.push(p.progress) });
    expect(progress).toEqual([1]);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("die_later was allowed, but the tool server did not answer");
    expect(meta(r)).toMatchObject({ decision: "allow", outcome: "outcome_unknown" });
    expect(gw.entries().at(-1)).toMatchObject({ kind: "report", outcome: "outcome_unknown" });
    const next = await client.callTool({ name: "note", arguments: { text: "after" } });
    expect(next.isError, text(next)).toBeFalsy();
    expect(text(next)).toBe('noted {"text":"after"}');
    await client.close();
  });
});

describe("a tool server whose result is not a tool result", { timeout: 60_000 }, () => {
  it("is refused as the SDK refuses it (the gateway makes the SDK's result validator once per era): isError, outcome_unknown, never forwarded as a result", async () => {
    const { client } = await overHttp(downstreamClient({}), gw.url!);
    const r = await client.callTool({ name: "malformed", arguments: {} });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("malformed was allowed, but the tool server did not answer: Invalid tools/call result");
    expect(meta(r)).toMatchObject({ decision: "allow", outcome: "outcome_unknown" });
    await gw.settled();
    expect(gw.entries().at(-1)).toMatchObject({ kind: "report", outcome: "outcome_unknown" });
    const next = await client.callTool({ name: "note", arguments: { text: "valid" } });
    expect(text(next)).toBe('noted {"text":"valid"}');
    await client.close();
  });
});

describe("a replayed requestState (2026-07-28)", { timeout: 60_000 }, () => {
  it("the same answer and requestState sent twice: the first runs the call, the second is refused and never forwarded", async () => {
    const client = new Client({ name: "manual-host", version: "1.0.0" }, { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: "2026-07-28" } }, inputRequired: { autoFulfill: false } });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.url!)));
    const params = { name: "save", arguments: { text: "once" } };
    const asked = (await client.callTool(params, { allowInputRequired: true })) as unknown as { resultType?: string; inputRequests: Record<string, unknown>; requestState: string };
    expect(asked.resultType).toBe("input_required");
    expect(Object.keys(asked.inputRequests)).toContain("approve");
    const retry = { ...params, inputResponses: { approve: { action: "accept", content: { approve: true } } }, requestState: asked.requestState };
    const before = seen().filter((l) => l.startsWith("call save")).length;
    const first = await client.callTool(retry, { allowInputRequired: true });
    expect(first.isError, text(first)).toBeFalsy();
    expect(text(first)).toBe('noted {"text":"once"}');
    const second = await client.callTool(retry, { allowInputRequired: true });
    expect(second.isError).toBe(true);
    expect(text(second)).toContain("this answer was already used (the same requestState came again), and the call did not run again.");
    expect(seen().filter((l) => l.startsWith("call save")).length).toBe(before + 1);
    await client.close();
  });

  // Outside audit 9, F1: the memory of answers was of the state as sent, and a tail that did not
  // verify was dropped, so `STATE~x` was a new answer: accepted, it ran the call the person declined.
  it("a declined call stays declined: the state with a tail it was not given, or without its tail, runs nothing", async () => {
    const client = new Client({ name: "manual-host", version: "1.0.0" }, { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: "2026-07-28" } }, inputRequired: { autoFulfill: false } });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.url!)));
    const calls = () => seen().filter((l) => l.startsWith("call save")).length;
    const accept = { approve: { action: "accept", content: { approve: true } } };
    const params = { name: "save", arguments: { text: "declined" } };
    const asked = (await client.callTool(params, { allowInputRequired: true })) as unknown as { resultType?: string; requestState: string };
    expect(asked.resultType).toBe("input_required");
    const before = calls();
    const declined = await client.callTool({ ...params, inputResponses: { approve: { action: "decline" } }, requestState: asked.requestState } as never, { allowInputRequired: true });
    expect(text(declined)).toContain("was not approved (declined)");
    for (const tail of ["~x", "~e30~AAAA", `~${Buffer.from("{}").toString("base64url")}~`]) {
      const forged = await client.callTool({ ...params, inputResponses: accept, requestState: asked.requestState + tail } as never, { allowInputRequired: true });
      expect(forged.isError, tail).toBe(true);
      expect(text(forged)).toContain("the requestState is not one this gateway gave");
      expect(meta(forged)).toMatchObject({ approved: false, answer: "unreadable" });
    }
    const again = await client.callTool({ ...params, inputResponses: accept, requestState: asked.requestState } as never, { allowInputRequired: true });
    expect(text(again)).toContain("this answer was already used");
    expect(calls()).toBe(before);
    await client.close();
  });

  // Outside audit 6, F3: any retry carrying the state used it up, so after a client's slip (a
  // retry with no answer, or the approved answer sent with other arguments) the person's real
  // approval was told "already used … did not run again" for a call that never ran.
  it("a retry that decided nothing (no answer; the approval sent with other arguments) leaves it good for the call asked about, once", async () => {
    const client = new Client({ name: "manual-host", version: "1.0.0" }, { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: "2026-07-28" } }, inputRequired: { autoFulfill: false } });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.url!)));
    const approve = { approve: { action: "accept", content: { approve: true } } };
    const calls = () => seen().filter((l) => l.startsWith("call save")).length;
    for (const slip of ["no answer", "other arguments"] as const) {
      const params = { name: "save", arguments: { text: `asked (${slip})` } };
      const asked = (await client.callTool(params, { allowInputRequired: true })) as unknown as { resultType?: string; requestState: string };
      expect(asked.resultType).toBe("input_required");
      const before = calls();
      const wrong =
        slip === "no answer"
          ? await client.callTool({ ...params, requestState: asked.requestState } as never, { allowInputRequired: true })
          : await client.callTool({ name: "save", arguments: { text: "another text" }, inputResponses: approve, requestState: asked.requestState } as never, { allowInputRequired: true });
      expect(wrong.isError, slip).toBe(true);
      expect(text(wrong)).toContain(slip === "no answer" ? "was not approved (not answered)" : "the approval does not cover this call of save (other_call): the call changed after it was asked about (another tool, agent or arguments). It did not run.");
      const right = await client.callTool({ ...params, inputResponses: approve, requestState: asked.requestState } as never, { allowInputRequired: true });
      expect(right.isError, `${slip}: ${text(right)}`).toBeFalsy();
      expect(text(right)).toBe(`noted {"text":"asked (${slip})"}`);
      const again = await client.callTool({ ...params, inputResponses: approve, requestState: asked.requestState } as never, { allowInputRequired: true });
      expect(text(again)).toContain("this answer was already used");
      expect(calls(), slip).toBe(before + 1);
    }
    await client.close();
  });
});

describe("answered requestStates, remembered to refuse a replay (2026-07-28)", { timeout: 120_000 }, () => {
  it("are kept by digest, not whole: many large ones sent by a client do not stay in the gateway's memory", async () => {
    // a collection on demand, to measure what stays (the flag is set before the first use of `gc`)
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const client = new Client({ name: "manual-host", version: "1.0.0" }, { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: "2026-07-28" } }, inputRequired: { autoFulfill: false } });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.url!)));
    const size = 2_000_000;
    const send = (i: number) => client.callTool({ name: "save", arguments: { text: "x" }, inputResponses: { approve: { action: "accept", content: { approve: true } } }, requestState: `${i}${"x".repeat(size)}` } as never, { allowInputRequired: true });
    await send(-1);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 40; i++) expect((await send(i)).isError).toBe(true);
    gc();
    // 40 states of 2 MB each: 80 MB if they were kept
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(20_000_000);
    // and a replay is still refused as one
    expect(text(await send(3))).toContain("this answer was already used");
    await client.close();
  });
});

/** A port nothing listens on now, on loopback. */
function freePort(): Promise<number> {
  return new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** server-everything over streamable HTTP on `port`, once it says it listens. */
async function everythingOverHttp(port: number) {
  const child = spawn(process.execPath, [EVERYTHING, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
  await new Promise<void>((resolve) => {
    const ready = (d: Buffer) => String(d).includes("listening") && resolve();
    child.stdout.on("data", ready);
    child.stderr.on("data", ready);
  });
  return child;
}

describe("a tool server over HTTP that dies in the middle of a call", { timeout: 60_000 }, () => {
  it("the call in flight answers isError at once (it waited for --call-timeout, a day by default), and the gateway serves on", async () => {
    const port = await freePort();
    const everything = await everythingOverHttp(port);
    const dir = allowedDir();
    writeFileSync(join(dir, "agent.yaml"), "settings: {language: en}\ntools:\n  - {name: trigger-long-running-operation, args: {type: object, properties: {duration: {type: number}, steps: {type: number}}, additionalProperties: false}}\n");
    const logs: string[] = [];
    const g = await startGateway({ catalogue: join(dir, "agent.yaml"), upstream: { url: `http://127.0.0.1:${port}/mcp` }, listen: { host: "127.0.0.1", port: 0 }, home: home(), log: (l) => logs.push(l) });
    const { client } = await overHttp(downstreamClient({}), g.url!);
    try {
      const started = Date.now();
      const call = client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 60, steps: 60 } }, { timeout: 50_000 });
      await new Promise((r) => setTimeout(r, 1500));
      everything.kill();
      const r = await call;
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/did not answer/);
      expect(Date.now() - started).toBeLessThan(20_000);
      await g.settled();
      const checked = g.entries().findLast((e) => e.kind === "check")!;
      expect(g.entries().find((e) => e.kind === "report" && e.of === checked.step)).toMatchObject({ outcome: "outcome_unknown" });
    } finally {
      everything.kill();
      await client.close().catch(() => undefined);
      await g.close();
    }
  });
});

describe("a tool server over HTTP that restarts", { timeout: 60_000 }, () => {
  it("the call while it is down is isError; after it is back (with a new session) the next call reaches it, not the forgotten session forever", async () => {
    const port = await freePort();
    const start = () => everythingOverHttp(port);
    let everything = await start();
    const dir = allowedDir();
    writeFileSync(join(dir, "agent.yaml"), "settings: {language: en}\ntools:\n  - {name: echo, args: {type: object, properties: {message: {type: string}}, additionalProperties: false}}\n");
    const g = await startGateway({ catalogue: join(dir, "agent.yaml"), upstream: { url: `http://127.0.0.1:${port}/mcp` }, listen: { host: "127.0.0.1", port: 0 }, home: home(), log: () => undefined });
    const { client } = await overHttp(downstreamClient({}), g.url!);
    try {
      expect(text(await client.callTool({ name: "echo", arguments: { message: "one" } }))).toBe("Echo: one");
      everything.kill();
      await new Promise((r) => everything.once("exit", r));
      const down = await client.callTool({ name: "echo", arguments: { message: "down" } });
      expect(down.isError).toBe(true);
      everything = await start();
      // before: every call from here on was answered "Bad Request: No valid session ID provided"
      expect(text(await client.callTool({ name: "echo", arguments: { message: "back" } }))).toBe("Echo: back");
    } finally {
      // first, so that a close that fails leaves no server behind
      everything.kill();
      await client.close().catch(() => undefined);
      await g.close();
    }
  });
});

