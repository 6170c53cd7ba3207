/**
 * The gateway over streamable HTTP (in-process, port 0) in front of the real filesystem server,
 * with the SDK's Client downstream: 2025-era (pushed elicitation/create) and 2026-07-28
 * (input_required + requestState). What the upstream did is read from the disk it writes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startGateway, type RunningGateway } from "../../cli/gateway/index.js";
import { allowedDir, downstreamClient, filesystemCatalogue, FILESYSTEM, home, overHttp, text } from "./helpers.js";

let dir: string;
let gw: RunningGateway;

beforeAll(async () => {
  dir = allowedDir();
  gw = await startGateway({
    catalogue: filesystemCatalogue(dir, join(dir, "..", `agent-${Date.now()}.yaml`)),
    upstream: { command: process.execPath, args: [FILESYSTEM, dir] },
    listen: { host: "127.0.0.1", port: 0 },
    home: home(),
    log: () => undefined,
  });
}, 60_000);
afterAll(async () => {
  await gw?.close();
});

describe("gateway over streamable HTTP, filesystem server upstream", { timeout: 30_000 }, () => {
  it("offers only the catalogue's tools, as the upstream describes them", async () => {
    const { client } = await overHttp(downstreamClient({}), gw.url!);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["list_allowed_directories", "read_text_file", "write_file"]);
    const write = tools.find((t) => t.name === "write_file")!;
    expect(write.annotations).toMatchObject({ destructiveHint: true });
    expect(write.outputSchema).toBeDefined();
    await client.close();
  });

  it("allows a read, and reports it ran with its result", async () => {
    const { client } = await overHttp(downstreamClient({}), gw.url!);
    const r = await client.callTool({ name: "read_text_file", arguments: { path: join(dir, "hello.txt") } });
    expect(r.isError).toBeFalsy();
    expect(text(r)).toContain("hello from the file");
    expect(r.structuredContent).toEqual({ content: "hello from the file\n" });
    await gw.settled();
    const report = gw.entries().at(-1);
    expect(report).toMatchObject({ kind: "report", outcome: "ran", result: { content: "hello from the file\n" } });
    await client.close();
  });

  it("2025-era client: a write is asked about through elicitation, approved, re-checked with the token, then written", async () => {
    const d = await overHttp(downstreamClient({ answer: "accept" }), gw.url!);
    const file = join(dir, "approved.txt");
    const r = await d.client.callTool({ name: "write_file", arguments: { path: file, content: "yes" } });
    expect(r.isError, text(r)).toBeFalsy();
    expect(readFileSync(file, "utf8")).toBe("yes");
    expect(d.asked).toHaveLength(1);
    expect(d.asked[0]).toContain("write_file needs your approval");
    expect(d.asked[0]).toContain(`path = ${JSON.stringify(file)}   (written by the model)`);
    const checks = gw.entries().filter((e) => e.kind === "check" && e.tool === "write_file");
    const [ask, allowed] = checks.slice(-2) as { decision: string; step: number; confirmed: number | null; reasons: string[] }[];
    expect(ask).toMatchObject({ decision: "confirm" });
    expect(ask!.reasons).toContain("argument_origin");
    expect(allowed).toMatchObject({ decision: "allow", confirmed: ask!.step, reasons: ["confirmed"] });
    await d.client.close();
  });

  it("2025-era client: declined → not approved, and nothing is written", async () => {
    const d = await overHttp(downstreamClient({ answer: "decline" }), gw.url!);
    const file = join(dir, "declined.txt");
    const r = await d.client.callTool({ name: "write_file", arguments: { path: file, content: "no" } });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("not approved (declined)");
    // what the person was asked about is said with the answer (outside audit 22, F5)
    expect(r._meta?.["stalwart-agents/check"]).toEqual({ decision: "confirm", reasons: ["argument_origin"], approved: false, answer: "declined" });
    expect(existsSync(file)).toBe(false);
    expect(d.asked).toHaveLength(1);
    await d.client.close();
  });

  it("2025-era client: cancelled → not approved, and nothing is written", async () => {
    const d = await overHttp(downstreamClient({ answer: "cancel" }), gw.url!);
    const file = join(dir, "cancelled.txt");
    const r = await d.client.callTool({ name: "write_file", arguments: { path: file, content: "no" } });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("not approved (cancelled)");
    expect(r._meta?.["stalwart-agents/check"]).toEqual({ decision: "confirm", reasons: ["argument_origin"], approved: false, answer: "cancelled" });
    expect(existsSync(file)).toBe(false);
    await d.client.close();
  });

  it("2025-era client: accepted with `approve` unticked → not approved, said as such, and nothing is written", async () => {
    const d = downstreamClient({ answer: "accept" });
    d.client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { approve: false } }));
    await overHttp(d, gw.url!);
    const file = join(dir, "unticked.txt");
    const r = await d.client.callTool({ name: "write_file", arguments: { path: file, content: "no" } });
    expect(r.isError).toBe(true);
    expect(text(r)).toBe("write_file was not approved (the form came back with `approve` unticked), and it did not run.");
    expect(r._meta?.["stalwart-agents/check"]).toEqual({ decision: "confirm", reasons: ["argument_origin"], approved: false, answer: "not approved" });
    expect(existsSync(file)).toBe(false);
    await d.client.close();
  });

  it("2026-07-28 client: input_required with the token as requestState; approved once, then written", async () => {
    const d = await overHttp(downstreamClient({ answer: "accept", modern: true }), gw.url!);
    expect(d.client.getProtocolEra()).toBe("modern");
    const file = join(dir, "modern.txt");
    const r = await d.client.callTool({ name: "write_file", arguments: { path: file, content: "modern" } });
    expect(r.isError, text(r)).toBeFalsy();
    expect(readFileSync(file, "utf8")).toBe("modern");
    expect(d.asked).toHaveLength(1);
    const last = gw.entries().filter((e) => e.kind === "check").at(-1) as { decision: string; confirmed: number | null };
    expect(last).toMatchObject({ decision: "allow" });
    expect(last.confirmed).not.toBeNull();
    await d.client.close();
  });

  it("a value copied from an earlier result is result:<step>.<path>, worked out by the gateway and shown to the person", async () => {
    const d = await overHttp(downstreamClient({ answer: "accept" }), gw.url!);
    const read = await d.client.callTool({ name: "read_text_file", arguments: { path: join(dir, "hello.txt") } });
    expect(read.isError).toBeFalsy();
    const readStep = (gw.entries().filter((e) => e.kind === "check").at(-1) as { step: number }).step;
    const copy = join(dir, "copy.txt");
    const r = await d.client.callTool({ name: "write_file", arguments: { path: copy, content: "hello from the file\n" } });
    expect(r.isError, text(r)).toBeFalsy();
    expect(d.asked[0]).toContain(`content = "hello from the file\\n"   (from read_text_file's result (step ${readStep}, content))`);
    expect(d.asked[0]).toContain("(written by the model)");
    // only `path` was asked about by name
    expect(d.asked[0]).toContain("`path` was not typed by you");
    expect(readFileSync(copy, "utf8")).toBe("hello from the file\n");
    await d.client.close();
  });

  it("refuses a path outside the allowed folder and an undeclared argument; the upstream never sees them; nobody is asked", async () => {
    const d = await overHttp(downstreamClient({ answer: "accept" }), gw.url!);
    const outside = join(dir, "..", `outside-${Date.now()}.txt`);
    const r1 = await d.client.callTool({ name: "write_file", arguments: { path: outside, content: "x" } });
    expect(r1.isError).toBe(true);
    expect(text(r1)).toContain("argument_schema");
    expect(r1._meta?.["stalwart-agents/check"]).toMatchObject({ decision: "refuse", reasons: ["argument_schema"], detail: { pointer: "/path", rule: "pattern" } });
    expect(existsSync(outside)).toBe(false);
    const inside = join(dir, "undeclared.txt");
    const r2 = await d.client.callTool({ name: "write_file", arguments: { path: inside, content: "x", mode: "0777" } });
    expect(r2.isError).toBe(true);
    expect(r2._meta?.["stalwart-agents/check"]).toMatchObject({ decision: "refuse", reasons: ["argument_schema"], detail: { pointer: "/mode" } });
    expect(existsSync(inside)).toBe(false);
    const r3 = await d.client.callTool({ name: "move_file", arguments: { source: join(dir, "hello.txt"), destination: inside } });
    expect(r3._meta?.["stalwart-agents/check"]).toMatchObject({ decision: "refuse", reasons: ["unknown_tool"] });
    expect(existsSync(join(dir, "hello.txt"))).toBe(true);
    expect(d.asked).toHaveLength(0);
    await d.client.close();
  });

  it("a bad request is a JSON-RPC error, and the gateway keeps serving", async () => {
    const bad = await fetch(gw.url!, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{not json" });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.status).toBeLessThan(500);
    const { client } = await overHttp(downstreamClient({}), gw.url!);
    const r = await client.callTool({ name: "list_allowed_directories", arguments: {} });
    expect(text(r)).toContain(dir);
    await client.close();
  });
});
