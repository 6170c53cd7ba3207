/**
 * Forwarding faithfully (issue 11, item 1): tools/list page by page with the upstream's cursors;
 * list_changed passed on; progress under the client's own token; cancellation passed to the
 * upstream; structuredContent, outputSchema and _meta verbatim — in both downstream transports.
 * Upstreams: a small server on the SDK (fixtures/paged-server.mjs) and the registry's
 * server-everything for a real long-running operation with progress.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { startGateway, type RunningGateway } from "../../cli/gateway/index.js";
import { allowedDir, downstreamClient, EVERYTHING, home, overHttp, overStdio, text, type Downstream } from "./helpers.js";

const PAGED = join(import.meta.dirname, "fixtures/paged-server.mjs");
const CATALOGUE = `
settings: {language: en}
tools:
  - {name: alpha, args: {type: object, additionalProperties: false}}
  - {name: gamma, args: {type: object, additionalProperties: false}, returns: {type: object, properties: {n: {type: number}}}}
  - {name: slow, args: {type: object, additionalProperties: false}}
  - {name: grow, args: {type: object, additionalProperties: false}}
  - {name: grown1, args: {type: object, additionalProperties: false}}
  - {name: die, args: {type: object, additionalProperties: false}}
`;

async function until(f: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function exercise(d: Downstream, log: string): Promise<void> {
  const client = d.client;
  // pages: the gateway forwards each cursor and keeps only the catalogue's tools of each page
  // one page at a time, as a host that walks the cursor itself (listTools() without a cursor aggregates)
  const page = (cursor?: string) => client.request({ method: "tools/list", params: cursor !== undefined ? { cursor } : {} }) as Promise<{ tools: { name: string; outputSchema?: unknown; _meta?: unknown }[]; nextCursor?: string }>;
  const p1 = await page();
  expect(p1.tools.map((t) => t.name)).toEqual(["alpha"]);
  expect(p1.nextCursor).toBe("2");
  const p2 = await page(p1.nextCursor!);
  expect(p2.tools.map((t) => t.name)).toEqual(["gamma", "slow"]);
  const p3 = await page(p2.nextCursor!);
  expect(p3.tools.map((t) => t.name)).toContain("grow");
  expect(p3.nextCursor).toBeUndefined();
  const gammaDef = p2.tools[0]!;
  expect(gammaDef.outputSchema).toEqual({ type: "object", properties: { n: { type: "number" } } });
  expect(gammaDef._meta).toEqual({ "example/tool": "kept" });

  const gamma = await client.callTool({ name: "gamma", arguments: {} });
  expect(gamma.structuredContent).toEqual({ n: 7 });
  expect(gamma._meta).toEqual({ "example/result": { verbatim: true } });

  // progress under the client's token, then cancellation reaches the upstream
  const progress: number[] = [];
  const abort = new AbortController();
  const slow = client.callTool({ name: "slow", arguments: {} }, { onprogress: (p) => progress.push(p.progress), signal: abort.signal });
  await until(() => progress.length === 3);
  expect(progress).toEqual([1, 2, 3]);
  abort.abort();
  await expect(slow).rejects.toThrow();
  await until(() => existsSync(log) && readFileSync(log, "utf8").includes("cancelled slow"));
}

describe("forwarding over streamable HTTP", { timeout: 30_000 }, () => {
  let gw: RunningGateway;
  let log: string;
  beforeAll(async () => {
    const dir = allowedDir();
    log = join(dir, "paged.log");
    writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
    gw = await startGateway({
      catalogue: join(dir, "agent.yaml"),
      upstream: { command: process.execPath, args: [PAGED], env: { ...(process.env as Record<string, string>), PAGED_LOG: log } },
      listen: { host: "127.0.0.1", port: 0 }, home: home(), log: () => undefined,
    });
  }, 60_000);
  afterAll(() => gw?.close());

  it("pages, verbatim results, progress, cancellation", async () => {
    const d = await overHttp(downstreamClient({}), gw.url!);
    await exercise(d, log);
    await d.client.close();
  });

  it("an upstream that dies answers isError, is reported outcome_unknown, and the next call starts it again", async () => {
    const d = await overHttp(downstreamClient({}), gw.url!);
    const died = await d.client.callTool({ name: "die", arguments: {} });
    expect(died.isError).toBe(true);
    expect(text(died)).toContain("the tool server did not answer");
    expect(gw.entries().at(-1)).toMatchObject({ kind: "report", outcome: "outcome_unknown" });
    const after = await d.client.callTool({ name: "alpha", arguments: {} });
    expect(after.isError, text(after)).toBeFalsy();
    expect(text(after)).toBe("ran alpha");
    await d.client.close();
  });

  it("list_changed reaches a 2025-era client", async () => {
    const d = await overHttp(downstreamClient({}), gw.url!);
    let changed = 0;
    d.client.setNotificationHandler("notifications/tools/list_changed", () => void changed++);
    // the standalone GET stream must be open before the change
    await new Promise((r) => setTimeout(r, 300));
    const r = await d.client.callTool({ name: "grow", arguments: {} });
    expect(text(r)).toBe("grown");
    await until(() => changed > 0);
    const all = await d.client.listTools();
    expect(all.tools.map((t) => t.name)).toContain("grown1");
    await d.client.close();
  });
});

describe("timeouts", { timeout: 30_000 }, () => {
  it("a forwarded call is given up after --call-timeout, reported outcome_unknown; by default (a day) it is not given up early", async () => {
    const dir = allowedDir();
    const log = join(dir, "paged.log");
    writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
    const upstream = { command: process.execPath, args: [PAGED], env: { ...(process.env as Record<string, string>), PAGED_LOG: log } };
    // short: the call that never ends on its own is given up after 700 ms, reported outcome_unknown
    const short = await startGateway({ catalogue: join(dir, "agent.yaml"), upstream, listen: { host: "127.0.0.1", port: 0 }, home: home(), callTimeoutMs: 700 });
    try {
      const d = await overHttp(downstreamClient({}), short.url!);
      const t0 = Date.now();
      const r = await d.client.callTool({ name: "slow", arguments: {} });
      expect(r.isError).toBe(true);
      expect(text(r)).toContain("the tool server did not answer");
      expect(Date.now() - t0).toBeGreaterThanOrEqual(650);
      expect(short.entries().at(-1)).toMatchObject({ kind: "report", outcome: "outcome_unknown" });
      await d.client.close();
    } finally {
      await short.close();
    }
    // default: still waiting well past the short one, until the client cancels it
    const long = await startGateway({ catalogue: join(dir, "agent.yaml"), upstream, listen: { host: "127.0.0.1", port: 0 }, home: home() });
    try {
      const d = await overHttp(downstreamClient({}), long.url!);
      const abort = new AbortController();
      let settled = false;
      const call = d.client.callTool({ name: "slow", arguments: {} }, { signal: abort.signal, timeout: 600_000 }).finally(() => void (settled = true));
      await new Promise((r) => setTimeout(r, 2000));
      expect(settled).toBe(false);
      abort.abort();
      await expect(call).rejects.toThrow();
      await d.client.close();
    } finally {
      await long.close();
    }
  });
});

describe("forwarding over stdio", () => {
  it("pages, verbatim results, progress, cancellation, list_changed", async () => {
    const dir = allowedDir();
    const log = join(dir, "paged.log");
    writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
    const d = await overStdio(downstreamClient({}), ["--home", home(), "--catalogue", join(dir, "agent.yaml"), "--", process.execPath, PAGED], { PAGED_LOG: log });
    await exercise(d, log);
    let changed = 0;
    d.client.setNotificationHandler("notifications/tools/list_changed", () => void changed++);
    await d.client.callTool({ name: "grow", arguments: {} });
    await until(() => changed > 0);
    await d.client.close();
  }, 60_000);

  it("server-everything's long-running operation: its progress reaches the client under the client's token", async () => {
    const dir = allowedDir();
    writeFileSync(join(dir, "agent.yaml"), `
settings: {language: en}
tools:
  - name: trigger-long-running-operation
    args: {type: object, properties: {duration: {type: number}, steps: {type: number}}, additionalProperties: false}
`);
    const d = await overStdio(downstreamClient({}), ["--home", home(), "--catalogue", join(dir, "agent.yaml"), "--", process.execPath, EVERYTHING, "stdio"]);
    // What the gateway sends, read off the client's transport: the SDK's client runs a progress
    // handler a microtask after the message, so when a loaded machine hands it the last progress
    // and the response in one read, it drops that progress itself (the gateway spaces them by 5 ms).
    const wire: unknown[] = [];
    const transport = d.client.transport!;
    const deliver = transport.onmessage!;
    transport.onmessage = (m, extra) => {
      if ("method" in m && m.method === "notifications/progress") wire.push(m.params);
      else if ("id" in m && "result" in m) wire.push("result");
      deliver(m, extra);
    };
    const seen: number[] = [];
    const r = await d.client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 1, steps: 4 } }, { onprogress: (p) => seen.push(p.progress) });
    expect(r.isError, text(r)).toBeFalsy();
    const token = (wire[0] as { progressToken?: unknown } | undefined)?.progressToken;
    expect(token).toBeDefined();
    expect(wire).toEqual([1, 2, 3, 4].map((n) => ({ progress: n, total: 4, progressToken: token })).concat(["result"] as never[]));
    expect(seen.slice(0, 3)).toEqual([1, 2, 3]);
    await d.client.close();
  }, 60_000);
});
