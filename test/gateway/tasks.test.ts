/**
 * A tool the tool server runs only as a task (`execution.taskSupport: "required"`): the real
 * server-everything's `simulate-research-query`. Called plainly, that server refuses it (-32601),
 * so through the gateway it could never run. The gateway offers its clients no tasks: it offers
 * the tool without `taskSupport`, runs the checked call as a task upstream, and answers with the
 * task's result as a plain call's. The server's question during the task reaches the client.
 */
import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Upstream } from "../../cli/gateway/upstream.js";
import { sendToolCall, TaskTools } from "../../cli/gateway/task-tools.js";
import { allowedDir, downstreamClient, EVERYTHING, home, overStdio, text, type Downstream } from "./helpers.js";

const open: Downstream[] = [];
afterEach(async () => {
  for (const d of open.splice(0)) await d.client.close().catch(() => undefined);
});

function catalogue(): string {
  const at = join(allowedDir(), "agent.yaml");
  writeFileSync(at, "settings: {language: en}\ntools:\n  - name: simulate-research-query\n    args: {type: object, properties: {topic: {type: string}, ambiguous: {type: boolean}}, required: [topic]}\n");
  return at;
}

async function gateway(o: { answer?: "accept"; modern?: boolean } = {}): Promise<Downstream> {
  const d = await overStdio(downstreamClient(o), ["--home", home(), "--catalogue", catalogue(), "--", process.execPath, EVERYTHING, "stdio"]);
  open.push(d);
  return d;
}

describe("a tool the tool server runs only as a task", () => {
  for (const modern of [false, true]) {
    it(`is offered without taskSupport and runs when called plainly (${modern ? "2026-07-28" : "2025-11-25"} client)`, async () => {
      const d = await gateway({ modern });
      const { tools } = await d.client.listTools();
      const tool = tools.find((t) => t.name === "simulate-research-query");
      expect(tool).toBeDefined();
      expect(tool!.execution?.taskSupport).toBeUndefined();
      const r = await d.client.callTool({ name: "simulate-research-query", arguments: { topic: "tea" } });
      expect(r.isError, text(r)).not.toBe(true);
      expect(text(r)).toContain("# Research Report: tea");
      // the upstream task's id is the gateway's own business
      expect(Object.keys((r._meta as Record<string, unknown> | undefined) ?? {})).not.toContain("io.modelcontextprotocol/related-task");
    }, 60_000);
  }

  it("runs when called before any listing, and the server's question during the task reaches the person", async () => {
    const d = await gateway({ answer: "accept" });
    const r = await d.client.callTool({ name: "simulate-research-query", arguments: { topic: "tea", ambiguous: true } });
    expect(r.isError, text(r)).not.toBe(true);
    expect(text(r)).toContain("# Research Report: tea");
    expect(d.asked.some((q) => q.includes("could have multiple interpretations"))).toBe(true);
  }, 60_000);
});

/** The gateway in front of fixtures/task-progress-server.mjs (`count`, run only as a task); `log`: every message the server got. */
async function countingGateway(modern = false): Promise<{ d: Downstream & { wire: Record<string, unknown>[] }; log: string }> {
  const dir = mkdtempSync(join(tmpdir(), "stalwart-task-count-"));
  const at = join(dir, "agent.yaml"), log = join(dir, "upstream.log");
  writeFileSync(at, "settings: {language: en}\ntools:\n  - name: count\n    args: {type: object, properties: {label: {type: string}}}\n");
  const server = join(import.meta.dirname, "fixtures/task-progress-server.mjs");
  const d = await overStdio(downstreamClient({ modern }), ["--home", home(), "--catalogue", at, "--", process.execPath, server], { TASK_LOG: log });
  open.push(d);
  return { d, log };
}

describe("a task's progress", () => {
  for (const modern of [false, true]) {
    it(`reaches the client under its own token, though it comes after the task was created (${modern ? "2026-07-28" : "2025-11-25"} client)`, async () => {
      const { d, log } = await countingGateway(modern);
      const seen: { progress: number; total?: number | undefined; message?: string | undefined }[] = [];
      const r = await d.client.callTool({ name: "count", arguments: { label: "x" } }, { onprogress: (p) => void seen.push(p) });
      expect(r.isError, text(r)).not.toBe(true);
      expect(text(r)).toBe("counted to 3");
      // What the gateway wrote, in order: the three steps under the client's token, then the result.
      const answered = d.wire.findIndex((m) => text((m.result ?? {}) as { content?: unknown }) === "counted to 3");
      const sent = d.wire.slice(0, answered).filter((m) => m.method === "notifications/progress").map((m) => m.params as { progress: number; total?: number; message?: string; progressToken?: unknown });
      expect(answered).toBeGreaterThan(0);
      expect(sent.map((p) => [p.progress, p.total, p.message])).toEqual([[1, 3, "step 1"], [2, 3, "step 2"], [3, 3, "step 3"]]);
      expect(sent.every((p) => p.progressToken === d.wire[answered]!.id)).toBe(true);
      expect(d.wire.slice(answered).some((m) => m.method === "notifications/progress")).toBe(false);
      // The client SDK runs a progress handler a microtask after reading it, and forgets the
      // request's handler as it reads the response: a progress read in the same chunk as the
      // response is lost there. The gateway leaves a few milliseconds between them, which a
      // loaded machine can swallow, so the handler saw the steps in order, the last perhaps not.
      expect(sent.slice(0, Math.max(2, seen.length)).map((p) => p.progress)).toEqual(seen.map((p) => p.progress));
      // upstream, the call was a task: created, then its result asked for
      const methods = readFileSync(log, "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { method?: string }).method);
      expect(methods.filter((m) => m === "tools/call" || m === "tasks/result")).toEqual(["tools/call", "tasks/result"]);
    }, 60_000);
  }
});

describe("a task-required call cancelled before its task was created", () => {
  it("cancels the task the server goes on to create", async () => {
    const { d, log } = await countingGateway();
    await d.client.listTools();
    const abort = new AbortController();
    const call = d.client.callTool({ name: "count", arguments: { label: "slow" } }, { signal: abort.signal });
    const upstreamSaw = () => readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { method?: string; params?: { taskId?: string } });
    // cancelled once the creating call is upstream, before its answer (400 ms late)
    await expect.poll(() => upstreamSaw().some((m) => m.method === "tools/call"), { timeout: 20_000 }).toBe(true);
    abort.abort();
    await expect(call).rejects.toThrow();
    await expect.poll(() => upstreamSaw().filter((m) => m.method === "tasks/cancel").map((m) => m.params?.taskId), { timeout: 20_000 }).toEqual(["task-1"]);
  }, 60_000);
});

describe("the gateway's side of a task call, against the real server", () => {
  it("a call cancelled while its task runs cancels the task upstream", async () => {
    const up = await new Upstream({ command: process.execPath, args: [EVERYTHING, "stdio"] }).start();
    try {
      const tasks = new TaskTools(() => up.listTools());
      const abort = new AbortController();
      const call = sendToolCall(up, tasks, { name: "simulate-research-query", arguments: { topic: "tea" } }, { timeoutMs: 60_000, signal: abort.signal });
      // the task exists upstream, working
      const listed = async () => ((await up.request("tasks/list", {}, { timeoutMs: 10_000, resultAs: null })).tasks ?? []) as { taskId: string; status: string }[];
      await expect.poll(async () => (await listed()).length, { timeout: 20_000 }).toBe(1);
      expect((await listed())[0]!.status).toBe("working");
      abort.abort();
      await expect(call).rejects.toThrow();
      await expect.poll(async () => (await listed())[0]?.status, { timeout: 20_000 }).toBe("cancelled");
    } finally {
      await up.close();
    }
  }, 60_000);
});
