/**
 * The gateway as a child process on stdio (as an MCP host starts it: `stalwart gateway
 * --catalogue … -- npx @modelcontextprotocol/server-… `), with the SDK's Client downstream.
 */
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileApprovalStore } from "../../cli/approvals/store.js";
import { homeMac } from "../../cli/approvals/mac.js";
import { approvalStatus, decide } from "../../worker/portable/engine/index.js";
import { allowedDir, downstreamClient, filesystemCatalogue, FILESYSTEM, home, MAIN, MEMORY, overStdio, ROOT, text } from "./helpers.js";

describe("gateway over stdio", () => {
  it("a client without elicitation: the write waits with a pending id; once approved, the identical call runs once", async () => {
    const dir = allowedDir();
    const h = home();
    const catalogue = filesystemCatalogue(dir, join(dir, "..", `agent-${Date.now()}.yaml`));
    const d = await overStdio(downstreamClient({}), ["--home", h, "--catalogue", catalogue, "--", process.execPath, FILESYSTEM, dir]);
    const file = join(dir, "waits.txt");
    const call = () => d.client.callTool({ name: "write_file", arguments: { path: file, content: "approved later" } });
    const first = await call();
    expect(first.isError).toBe(true);
    expect(text(first)).toContain("waits for a person (pending p_");
    const id = (first._meta?.["stalwart-agents/check"] as { pending: string }).pending;
    expect(existsSync(file)).toBe(false);

    const store = new FileApprovalStore(h);
    const record = store.get(id)!.record;
    expect(approvalStatus(store.get(id)!, Date.now())).toBe("pending");
    expect(record).toMatchObject({ tool: "write_file", args: { path: file, content: "approved later" }, origins: { path: { origin: "model" } } });
    expect(record.reasons).toContain("argument_origin");
    // another call with other arguments is not covered by the approval
    await decide(store, homeMac(h), id, { decision: "approve", by: "test", at: Date.now() });
    const other = await d.client.callTool({ name: "write_file", arguments: { path: file, content: "something else" } });
    expect(other.isError).toBe(true);
    expect(existsSync(file)).toBe(false);

    const second = await call();
    expect(second.isError, text(second)).toBeFalsy();
    expect(readFileSync(file, "utf8")).toBe("approved later");
    expect(approvalStatus(store.get(id)!, Date.now())).toBe("used");
    // spent once: the same call again waits again
    const third = await call();
    expect(third.isError).toBe(true);
    expect(text(third)).toContain("waits for a person");
    await d.client.close();
  }, 60_000);

  it("a 2026-07-28 client over stdio is asked through input_required and the write runs", async () => {
    const dir = allowedDir();
    const catalogue = filesystemCatalogue(dir, join(dir, "..", `agent-${Date.now()}.yaml`));
    const d = await overStdio(downstreamClient({ answer: "accept", modern: true }), ["--home", home(), "--catalogue", catalogue, "--", process.execPath, FILESYSTEM, dir]);
    expect(d.client.getProtocolEra()).toBe("modern");
    const file = join(dir, "m.txt");
    const r = await d.client.callTool({ name: "write_file", arguments: { path: file, content: "m" } });
    expect(r.isError, text(r)).toBeFalsy();
    expect(readFileSync(file, "utf8")).toBe("m");
    expect(d.asked).toHaveLength(1);
    await d.client.close();
  }, 60_000);

  it("memory server: a write asked about and approved, then read back through the gateway", async () => {
    const dir = allowedDir();
    const catalogue = join(dir, "memory.yaml");
    writeFileSync(catalogue, `
settings: {language: en}
tools:
  - name: read_graph
    args: {type: object, properties: {}, additionalProperties: false}
    returns:
      type: object
      properties:
        entities: {type: array, items: {type: object, properties: {name: {type: string}, entityType: {type: string}, observations: {type: array, items: {type: string}}}}}
  - name: create_entities
    writes: true
    args:
      type: object
      properties:
        entities: {type: array, items: {type: object, properties: {name: {type: string}, entityType: {type: string}, observations: {type: array, items: {type: string}}}, required: [name, entityType, observations], additionalProperties: false}}
      required: [entities]
      additionalProperties: false
  - name: add_observations
    writes: true
    args:
      type: object
      properties:
        observations: {type: array, items: {type: object, properties: {entityName: {type: string}, contents: {type: array, items: {type: string}}}, required: [entityName, contents], additionalProperties: false}}
      required: [observations]
      additionalProperties: false
`);
    const d = await overStdio(downstreamClient({ answer: "accept" }), ["--home", home(), "--catalogue", catalogue, "--", process.execPath, MEMORY], { MEMORY_FILE_PATH: join(dir, "memory.jsonl") });
    const created = await d.client.callTool({ name: "create_entities", arguments: { entities: [{ name: "Ana Flores", entityType: "person", observations: ["likes tea"] }] } });
    expect(created.isError, text(created)).toBeFalsy();
    const graph = await d.client.callTool({ name: "read_graph", arguments: {} });
    expect(graph.isError).toBeFalsy();
    expect(graph.structuredContent).toMatchObject({ entities: [{ name: "Ana Flores", entityType: "person", observations: ["likes tea"] }] });
    expect(d.asked).toHaveLength(1);
    expect(d.asked[0]).toContain("create_entities needs your approval");
    // a tool the catalogue does not name is not offered, nor called
    const { tools } = await d.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["add_observations", "create_entities", "read_graph"]);
    const del = await d.client.callTool({ name: "delete_entities", arguments: { entityNames: ["Ana Flores"] } });
    expect(del.isError).toBe(true);
    const again = await d.client.callTool({ name: "read_graph", arguments: {} });
    expect(again.structuredContent).toMatchObject({ entities: [{ name: "Ana Flores" }] });
    await d.client.close();
  }, 60_000);

  it("a message over the stdio transport's 10 MB: the gateway stops saying why, exit 1, not silently with 0", async () => {
    const dir = allowedDir();
    const catalogue = filesystemCatalogue(dir, join(dir, "..", `agent-${Date.now()}.yaml`));
    const child = spawn(process.execPath, [MAIN, "gateway", "--quiet", "--home", home(), "--catalogue", catalogue, "--", process.execPath, FILESYSTEM, dir], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.stdin.on("error", () => undefined);
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }) + "\n");
    await expect.poll(() => stdout, { timeout: 30_000 }).toContain('"id":0');
    const huge = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "write_file", arguments: { path: join(dir, "huge.txt"), content: "a".repeat(11 * 1024 * 1024) } } };
    child.stdin.write(JSON.stringify(huge) + "\n");
    expect(await exited).toBe(1);
    expect(stderr).toContain("stalwart gateway: stopped: a message from the client was larger than the stdio transport reads");
    expect(existsSync(join(dir, "huge.txt"))).toBe(false);
  }, 60_000);
});
