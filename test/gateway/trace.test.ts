/**
 * `stalwart gateway --trace FILE` (cli/gateway/trace-file.ts): four gateway runs append to one
 * trace — a person who approves through elicitation (a value copied from a read's result), one
 * who declines, a client without elicitation whose call a person approves in the store and
 * that the model sends again, and one whose call a person denies there (twice). `stalwart replay` of the file with the same catalogue then answers
 * every call as the gateway did: what ran live would run, what did not would not, and the
 * outcomes the gateway saw are reported on the calls that ran.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { decide } from "../../worker/portable/engine/index.js";
import { homeMac } from "../../cli/approvals/mac.js";
import { startGateway } from "../../cli/gateway/index.js";
import { run as replay } from "../../cli/commands/replay.js";
import { replayHome } from "../helpers/replay-home.js";
import { allowedDir, downstreamClient, filesystemCatalogue, FILESYSTEM, home, OUTSIDE, overHttp, text, type Answer } from "./helpers.js";

replayHome();

/** A write of a text, in front of fixtures/outside-server.mjs. */
const SAVE_CATALOGUE = "settings: {language: en}\ntools:\n  - {name: save, writes: true, args: {type: object, properties: {text: {type: string}}, required: [text], additionalProperties: false}}\n";

describe("the gateway's trace, replayed", { timeout: 90_000 }, () => {
  it("holds every call, answer and outcome of four runs, and replays to the gateway's own decisions", async () => {
    const dir = allowedDir();
    const h = home();
    const catalogue = filesystemCatalogue(dir, join(dir, "..", `agent-trace-${Date.now()}.yaml`));
    const file = join(mkdtempSync(join(tmpdir(), "stalwart-gateway-trace-")), "calls.jsonl");
    writeFileSync(join(dir, "source.txt"), "from the source");
    const gateway = async (answer: Answer | undefined) => {
      const gw = await startGateway({ catalogue, upstream: { command: process.execPath, args: [FILESYSTEM, dir] }, listen: { host: "127.0.0.1", port: 0 }, home: h, trace: file, log: () => undefined });
      const { client } = await overHttp(downstreamClient(answer ? { answer } : {}), gw.url!);
      const call = async (name: string, args: Record<string, unknown>) => {
        const r = await client.callTool({ name, arguments: args });
        return { r, pending: (r._meta?.["stalwart-agents/check"] as { pending?: string } | undefined)?.pending };
      };
      const stop = async () => {
        await client.close();
        await gw.close();
      };
      return { gw, call, stop };
    };

    // 1: a read, then a write of what it read, approved through elicitation
    const one = await gateway("accept");
    expect((await one.call("read_text_file", { path: join(dir, "source.txt") })).r.isError).toBeFalsy();
    const copied = await one.call("write_file", { path: join(dir, "copy.txt"), content: "from the source" });
    expect(copied.r.isError, text(copied.r)).toBeFalsy();
    await one.stop();
    // 2: declined
    const two = await gateway("decline");
    expect((await two.call("write_file", { path: join(dir, "declined.txt"), content: "no" })).r.isError).toBe(true);
    await two.stop();
    // 3: no elicitation: pending, approved in the store, sent again
    const three = await gateway(undefined);
    const asked = await three.call("write_file", { path: join(dir, "later.txt"), content: "later" });
    expect(asked.pending).toMatch(/^p_/);
    await decide(three.gw.pending, homeMac(h), asked.pending!, { decision: "approve", by: "ana", at: Date.now() });
    const again = await three.call("write_file", { path: join(dir, "later.txt"), content: "later" });
    expect(again.r.isError, text(again.r)).toBeFalsy();
    await three.stop();
    // 4: no elicitation: pending, denied in the store, sent again (asked again), denied again
    const four = await gateway(undefined);
    const no = await four.call("write_file", { path: join(dir, "denied.txt"), content: "no" });
    await decide(four.gw.pending, homeMac(h), no.pending!, { decision: "deny", by: "ana", at: Date.now() });
    const asked2 = await four.call("write_file", { path: join(dir, "denied.txt"), content: "no" });
    expect(asked2.pending).toMatch(/^p_/);
    expect(asked2.pending).not.toBe(no.pending);
    await decide(four.gw.pending, homeMac(h), asked2.pending!, { decision: "deny", by: "ana", at: Date.now() });
    await four.stop();

    expect(statSync(file).mode & 0o777).toBe(0o600);
    const lines = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.type)).toEqual([
      "session", "call", "outcome", "call", "answer", "outcome",
      "session", "call", "answer",
      // the re-send after the store's approval is the asked call, answered: no call of its own (audit 7, F9)
      "session", "call", "answer", "outcome",
      // 4: denied in the store, then sent again: the "no" is written, and the call asked again is a call of its own;
      // denied again, and not sent again: written as the gateway stops
      "session", "call", "answer", "call", "answer",
    ]);
    const ids = lines.filter((l) => l.type === "call").map((l) => l.id as string);
    expect(new Set(ids).size, "ids unique across the runs appended").toBe(ids.length);
    // the write's content came from the read's result, named by the read's id
    expect((lines[3]!.origins as Record<string, string>).content).toBe(`result:${lines[1]!.id as string}.content`);
    // the approval in the store answers the call it was asked for, not the one sent again
    expect(lines[11]).toMatchObject({ type: "answer", call: lines[10]!.id, approved: true });
    expect(lines[12]).toMatchObject({ type: "outcome", call: lines[10]!.id, outcome: "ran" });
    expect(lines[15]).toMatchObject({ type: "answer", call: lines[14]!.id, approved: false });
    expect(lines[17]).toMatchObject({ type: "answer", call: lines[16]!.id, approved: false });

    let stdout = "";
    let stderr = "";
    const code = await replay([file, "--catalogue", catalogue, "--json"], { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s), isTTY: false } });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const out = JSON.parse(stdout) as { sessions: unknown[]; calls: { id: string; decision: string; approved: boolean | null; would_run: boolean; outcomes: string[] }[] };
    expect(out.sessions).toHaveLength(4);
    const byId = new Map(out.calls.map((c) => [c.id, c]));
    const of = (i: number) => byId.get(lines[i]!.id as string)!;
    expect(of(1)).toMatchObject({ decision: "allow", would_run: true, outcomes: ["ran"] });
    expect(of(3)).toMatchObject({ decision: "confirm", approved: true, would_run: true, outcomes: ["ran"] });
    expect(of(7)).toMatchObject({ decision: "confirm", approved: false, would_run: false, outcomes: [] });
    expect(of(10)).toMatchObject({ decision: "confirm", approved: true, would_run: true, outcomes: ["ran"] });
    expect(of(14)).toMatchObject({ decision: "confirm", approved: false, would_run: false, outcomes: [] });
    expect(of(16)).toMatchObject({ decision: "confirm", approved: false, would_run: false, outcomes: [] });
    expect(out.calls).toHaveLength(6);
  });

  it("holds the reads from outside (a resource read), so a write that copies one replays as the gateway held it", async () => {
    const dir = allowedDir();
    const catalogue = join(dir, "agent.yaml");
    writeFileSync(catalogue, SAVE_CATALOGUE);
    const file = join(mkdtempSync(join(tmpdir(), "stalwart-gateway-trace-")), "calls.jsonl");
    const gw = await startGateway({ catalogue, upstream: { command: process.execPath, args: [OUTSIDE] }, listen: { host: "127.0.0.1", port: 0 }, home: home(), trace: file, log: () => undefined });
    const d = await overHttp(downstreamClient({ answer: "accept" }), gw.url!);
    try {
      const read = await d.client.readResource({ uri: "note://inbox" });
      const injected = (read.contents[0] as { text: string }).text;
      expect((await d.client.callTool({ name: "save", arguments: { text: injected } })).isError).toBeFalsy();
      expect(d.asked[0]).toContain("tainted_call");
    } finally {
      await d.client.close();
      await gw.close();
    }
    const lines = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.type)).toEqual(["session", "call", "outcome", "call", "answer", "outcome"]);
    expect(lines[0]).toMatchObject({ type: "session", gateway: true });
    expect(lines[1]).toMatchObject({ type: "call", tool: "resources_read", args: { uri: "note://inbox" } });
    expect((lines[3]!.origins as Record<string, string>).text).toBe(`result:${lines[1]!.id as string}.contents[0].text`);

    let stdout = "";
    let stderr = "";
    const code = await replay([file, "--catalogue", catalogue, "--json"], { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s), isTTY: false } });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const out = JSON.parse(stdout) as { calls: { id: string; tool: string; decision: string; reasons: string[]; would_run: boolean; outcomes: string[] }[] };
    expect(out.calls.map((c) => [c.tool, c.decision, c.would_run, c.outcomes])).toEqual([
      ["resources_read", "allow", true, ["ran"]],
      ["save", "confirm", true, ["ran"]],
    ]);
    expect(out.calls[1]!.reasons).toContain("tainted_call");
  });

  // Outside audit 15, F5: a retry carrying a state another gateway gave was checked and refused
  // live (`not_ours`), and the trace held nothing of it: replay never showed the attempt.
  it("a retry carrying another gateway's requestState is in the trace as the call it was, and replays as live answered it", async () => {
    const dir = allowedDir();
    const catalogue = join(dir, "agent.yaml");
    writeFileSync(catalogue, SAVE_CATALOGUE);
    const file = join(mkdtempSync(join(tmpdir(), "stalwart-gateway-trace-")), "calls.jsonl");
    const h = home();
    const start = (trace?: string) => startGateway({ catalogue, upstream: { command: process.execPath, args: [OUTSIDE] }, listen: { host: "127.0.0.1", port: 0 }, home: h, ...(trace ? { trace } : {}), log: () => undefined });
    const connect = async (url: string) => {
      const client = new Client({ name: "manual-host", version: "1.0.0" }, { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: "2026-07-28" } }, inputRequired: { autoFulfill: false } });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      return client;
    };
    const params = { name: "save", arguments: { text: "asked at the first gateway" } };
    const a = await start();
    const b = await start(file);
    const [ca, cb] = [await connect(a.url!), await connect(b.url!)];
    try {
      const asked = (await ca.callTool(params, { allowInputRequired: true })) as unknown as { resultType?: string; requestState: string };
      expect(asked.resultType).toBe("input_required");
      const foreign = await cb.callTool({ ...params, inputResponses: { approve: { action: "accept", content: { approve: true } } }, requestState: asked.requestState } as never, { allowInputRequired: true });
      expect(foreign.isError).toBe(true);
      expect(text(foreign)).toContain("(not_ours)");
    } finally {
      await ca.close();
      await cb.close();
      await a.close();
      await b.close();
    }
    const lines = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.type)).toEqual(["session", "call"]);
    expect(lines[1]).toMatchObject({ type: "call", tool: "save", args: params.arguments });

    let stdout = "";
    let stderr = "";
    const code = await replay([file, "--catalogue", catalogue, "--json"], { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s), isTTY: false } });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const out = JSON.parse(stdout) as { calls: { tool: string; decision: string; approved: boolean | null; would_run: boolean; outcomes: string[] }[] };
    // live: asked (confirm), the approval covered nothing, it did not run
    expect(out.calls.map((c) => [c.tool, c.decision, c.approved, c.would_run, c.outcomes])).toEqual([["save", "confirm", null, false, []]]);
  });

  it("an outcome the session could not record is in the trace all the same", async () => {
    const dir = allowedDir();
    const catalogue = filesystemCatalogue(dir, join(dir, "..", `agent-trace-report-${Date.now()}.yaml`));
    const file = join(mkdtempSync(join(tmpdir(), "stalwart-gateway-trace-")), "calls.jsonl");
    let step = 0;
    const session = {
      id: "a-session-whose-history-fails",
      history: { entries: [] },
      checkToolCall: async () => ({ decision: "allow" as const, reasons: [], detail: {}, step: step++ }),
      report: async (): Promise<{ step: number }> => {
        throw new Error("the history is gone");
      },
    };
    const lines: string[] = [];
    const gw = await startGateway({ catalogue, upstream: { command: process.execPath, args: [FILESYSTEM, dir] }, listen: { host: "127.0.0.1", port: 0 }, home: home(), session, trace: file, log: (l) => lines.push(l) });
    const { client } = await overHttp(downstreamClient({}), gw.url!);
    try {
      expect((await client.callTool({ name: "list_allowed_directories", arguments: {} })).isError).toBeFalsy();
    } finally {
      await client.close();
      await gw.close();
    }
    expect(lines).toContain("report of step 0 failed: the history is gone");
    const events = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.map((e) => e.type)).toEqual(["session", "call", "outcome"]);
    expect(events[2]).toMatchObject({ call: events[1]!.id, outcome: "ran" });
  });

  it("a trace file that cannot be opened stops the gateway before the tool server starts", async () => {
    const dir = allowedDir();
    const catalogue = filesystemCatalogue(dir, join(dir, "..", `agent-trace-bad-${Date.now()}.yaml`));
    await expect(startGateway({ catalogue, upstream: { command: process.execPath, args: [FILESYSTEM, dir] }, home: home(), trace: join(dir, "no", "such", "folder", "t.jsonl"), log: () => undefined })).rejects.toThrow(/--trace `.*t\.jsonl` cannot be opened for appending/);
  });
});
