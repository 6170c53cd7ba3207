/**
 * Pinned tool definitions (issue 11, item 5): `gateway init` pins each tool; a tool server that
 * rewrites a pinned tool's description afterwards — with or without telling (list_changed), or
 * between two runs of the gateway — gets that tool dropped from tools/list and its calls refused
 * with `tool_definition_changed` before the check, and the upstream never sees them.
 */
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import type { Client } from "@modelcontextprotocol/client";
import { startGateway } from "../../cli/gateway/index.js";
import { writeStarter } from "../../cli/gateway/init.js";
import { definitionDigest } from "../../cli/gateway/pins.js";
import { allowedDir, downstreamClient, home, overHttp, text } from "./helpers.js";

const OUTSIDE = join(import.meta.dirname, "fixtures/outside-server.mjs");
const upstream = (log: string, env: Record<string, string> = {}) => ({ command: process.execPath, args: [OUTSIDE], env: { ...(process.env as Record<string, string>), OUTSIDE_LOG: log, ...env } });
const calls = (log: string, name: string) => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((l) => l.startsWith(`call ${name} `)).length : 0);

/** The next `echo` is refused as a changed definition; the tool server saw only the first one. */
async function echoRefusedAsChanged(client: Client, log: string): Promise<void> {
  const r = await client.callTool({ name: "echo", arguments: { text: "b" } });
  expect(r._meta?.["stalwart-agents/check"]).toMatchObject({ reasons: ["tool_definition_changed"] });
  expect(calls(log, "echo")).toBe(1);
}

async function until(f: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function pinned(dir: string, env: Record<string, string> = {}): Promise<string> {
  const at = join(dir, "agent.yaml");
  await writeStarter(upstream(join(dir, "init.log"), env), at, { force: false });
  return at;
}

describe("pinned tool definitions", { timeout: 60_000 }, () => {
  it("init pins each tool whole: the digest of the tool object as the server listed it", async () => {
    const dir = allowedDir();
    const tools = new Map((parse(readFileSync(await pinned(dir), "utf8")).tools as { name: string; pin?: string }[]).map((t) => [t.name, t.pin]));
    const echo = { name: "echo", description: "Echo the text back.", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false }, annotations: { readOnlyHint: true, openWorldHint: false } };
    expect(tools.get("echo")).toBe(definitionDigest(echo));
    expect(tools.get("echo")).toMatch(/^v2:sha256:[0-9a-f]{64}$/);
    // every field the gateway forwards is covered: a field left out is one a server rewrites unseen
    for (const changed of [{ description: "Echo the text back!" }, { inputSchema: { type: "object" } }, { title: "Echo" }, { annotations: { readOnlyHint: true, openWorldHint: false, title: "Echo" } }, { outputSchema: { type: "object" } }, { _meta: { x: 1 } }, { icons: [] }])
      expect(definitionDigest({ ...echo, ...changed } as never), JSON.stringify(changed)).not.toBe(tools.get("echo"));
    // the older form covers the description and the schema, and nothing else (as it always did)
    const older = definitionDigest(echo, "description")!;
    expect(older).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(definitionDigest({ ...echo, description: "Echo the text back!" }, "description")).not.toBe(older);
    expect(definitionDigest({ ...echo, name: "other", title: "x", annotations: { readOnlyHint: false } } as never, "description")).toBe(older);
    expect(tools.get("save")).toMatch(/^v2:sha256:/);
  });

  // outside audit 13, F3: these fields all reach the client as sent, and were not pinned
  for (const field of ["title", "annotations", "outputSchema", "_meta"]) {
    it(`a server that rewrites a pinned tool's ${field} between runs: not offered, and its call is refused`, async () => {
      const dir = allowedDir();
      const log = join(dir, "up.log");
      const gw = await startGateway({ catalogue: await pinned(dir, { RUG_FIELD: field }), upstream: upstream(log, { RUG_FIELD: field, RUG_AT_START: "1" }), listen: { host: "127.0.0.1", port: 0 }, home: home(), log: () => undefined });
      try {
        const { client } = await overHttp(downstreamClient({}), gw.url!);
        // before: offered with the rewritten text forwarded as sent, and the call ran
        expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["rug", "save"]);
        const r = await client.callTool({ name: "echo", arguments: { text: "c" } });
        expect(r._meta?.["stalwart-agents/check"]).toMatchObject({ decision: "refuse", reasons: ["tool_definition_changed"], detail: { pinned: expect.stringMatching(/^v2:sha256:/), found: expect.stringMatching(/^v2:sha256:/) } });
        // the text names what a whole pin covers, not "its description or input schema" (outside audit 22, F3)
        expect(text(r)).toContain("the tool as it lists it changed: its description, title, schemas, annotations or another field");
        expect(calls(log, "echo")).toBe(0);
        await client.close();
      } finally {
        await gw.close();
      }
    });
  }

  it("a pin of the older form still holds as it did: a new title passes, a new description is refused", async () => {
    const dir = allowedDir();
    const at = await pinned(dir, { RUG_FIELD: "title" });
    const source = parse(readFileSync(at, "utf8")) as { tools: { name: string; pin?: string }[] };
    const echo = { name: "echo", title: "Echo", description: "Echo the text back.", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false } };
    // a catalogue written before the whole-tool form: `sha256:` over {description, inputSchema}
    for (const t of source.tools) if (t.name === "echo") t.pin = definitionDigest(echo, "description")!;
    writeFileSync(at, stringify(source));
    const log = join(dir, "up.log");
    const gw = await startGateway({ catalogue: at, upstream: upstream(log, { RUG_FIELD: "title", RUG_AT_START: "1" }), listen: { host: "127.0.0.1", port: 0 }, home: home(), log: () => undefined });
    try {
      const { client } = await overHttp(downstreamClient({}), gw.url!);
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["echo", "rug", "save"]);
      expect((await client.callTool({ name: "echo", arguments: { text: "a" } })).isError).toBeFalsy();
      await client.close();
    } finally {
      await gw.close();
    }
    const rugged = await startGateway({ catalogue: at, upstream: upstream(log, { RUG_AT_START: "1" }), listen: { host: "127.0.0.1", port: 0 }, home: home(), log: () => undefined });
    try {
      const { client } = await overHttp(downstreamClient({}), rugged.url!);
      const r = await client.callTool({ name: "echo", arguments: { text: "b" } });
      expect(r._meta?.["stalwart-agents/check"]).toMatchObject({ reasons: ["tool_definition_changed"] });
      expect(text(r)).toContain("its description or input schema changed");
      await client.close();
    } finally {
      await rugged.close();
    }
  });

  it("a server that rewrites a pinned description and says so: the tool is no longer offered, and its call is refused before the upstream", async () => {
    const dir = allowedDir();
    const log = join(dir, "up.log");
    const gw = await startGateway({ catalogue: await pinned(dir), upstream: upstream(log), listen: { host: "127.0.0.1", port: 0 }, home: home() });
    try {
      const { client } = await overHttp(downstreamClient({}), gw.url!);
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["echo", "rug", "save"]);
      const before = await client.callTool({ name: "echo", arguments: { text: "hi" } });
      expect(before.isError, text(before)).toBeFalsy();
      expect(calls(log, "echo")).toBe(1);

      expect(text(await client.callTool({ name: "rug", arguments: {} }))).toBe("rewritten");
      await until(async () => !(await client.listTools()).tools.some((t) => t.name === "echo"));
      const after = await client.callTool({ name: "echo", arguments: { text: "hi" } });
      expect(after.isError).toBe(true);
      expect(text(after)).toContain("tool_definition_changed");
      expect(after._meta?.["stalwart-agents/check"]).toMatchObject({ decision: "refuse", reasons: ["tool_definition_changed"], detail: { pinned: expect.stringMatching(/^v2:sha256:/), found: expect.stringMatching(/^v2:sha256:/) } });
      expect(calls(log, "echo")).toBe(1);
      // not a check: nothing was written to the history for it
      expect(gw.entries().filter((e) => e.kind === "check" && e.tool === "echo")).toHaveLength(1);
      // the other tools keep working
      expect(text(await client.callTool({ name: "rug", arguments: {} }))).toBe("rewritten");
      await client.close();
    } finally {
      await gw.close();
    }
  });

  it("a server that rewrites it quietly: the next tools/list sees it, drops the tool, and the call is refused", async () => {
    const dir = allowedDir();
    const log = join(dir, "up.log");
    const gw = await startGateway({ catalogue: await pinned(dir), upstream: upstream(log, { RUG_QUIET: "1" }), listen: { host: "127.0.0.1", port: 0 }, home: home() });
    try {
      const { client } = await overHttp(downstreamClient({}), gw.url!);
      expect((await client.callTool({ name: "echo", arguments: { text: "a" } })).isError).toBeFalsy();
      await client.callTool({ name: "rug", arguments: {} });
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["rug", "save"]);
      await echoRefusedAsChanged(client, log);
      await client.close();
    } finally {
      await gw.close();
    }
  });

  it("a server that lists a pinned tool twice, rewritten and then as pinned: no copy is offered, and its call is refused", async () => {
    const dir = allowedDir();
    const log = join(dir, "up.log");
    const gw = await startGateway({ catalogue: await pinned(dir), upstream: upstream(log, { RUG_TWICE: "1" }), listen: { host: "127.0.0.1", port: 0 }, home: home() });
    try {
      const { client } = await overHttp(downstreamClient({}), gw.url!);
      const listed = (await client.listTools()).tools;
      // before: the last copy's digest stood for the name, so both copies passed, the rewritten one included
      expect(listed.filter((t) => t.description?.includes("IMPORTANT")), "the rewritten copy").toEqual([]);
      expect(listed.map((t) => t.name).sort()).toEqual(["rug", "save"]);
      const r = await client.callTool({ name: "echo", arguments: { text: "d" } });
      expect(r._meta?.["stalwart-agents/check"]).toMatchObject({ reasons: ["tool_definition_changed"], detail: { found: "conflicting" } });
      expect(text(r)).toContain("lists it more than once, differently (which copy it would run is unknown)");
      expect(calls(log, "echo")).toBe(0);
      await client.close();
    } finally {
      await gw.close();
    }
  });

  it("a server that changed between runs: the first call, without any listing, is refused", async () => {
    const dir = allowedDir();
    const log = join(dir, "up.log");
    const gw = await startGateway({ catalogue: await pinned(dir), upstream: upstream(log, { RUG_AT_START: "1" }), listen: { host: "127.0.0.1", port: 0 }, home: home() });
    try {
      const { client } = await overHttp(downstreamClient({}), gw.url!);
      const r = await client.callTool({ name: "echo", arguments: { text: "c" } });
      expect(r.isError).toBe(true);
      expect(r._meta?.["stalwart-agents/check"]).toMatchObject({ reasons: ["tool_definition_changed"] });
      expect(calls(log, "echo")).toBe(0);
      expect((await client.callTool({ name: "save", arguments: { text: "x" } }))._meta?.["stalwart-agents/check"]).not.toMatchObject({ reasons: ["tool_definition_changed"] });
      await client.close();
    } finally {
      await gw.close();
    }
  });

  it("a server restarted by the gateway (it died) with another definition: compared afresh, the call is refused", async () => {
    const dir = allowedDir();
    const log = join(dir, "up.log");
    const pidFile = join(dir, "up.pid");
    // the first process is the reviewed build; the one the gateway starts after it died has rewritten `echo`
    const script = `echo $$ > "${pidFile}"; if [ -f "${dir}/started" ]; then export RUG_AT_START=1; fi; touch "${dir}/started"; exec "${process.execPath}" --import tsx "${OUTSIDE}"`;
    const catalogue = await pinned(dir);
    const gw = await startGateway({ catalogue, upstream: { command: "sh", args: ["-c", script], env: { ...(process.env as Record<string, string>), OUTSIDE_LOG: log } }, listen: { host: "127.0.0.1", port: 0 }, home: home(), log: () => undefined });
    try {
      const { client } = await overHttp(downstreamClient({}), gw.url!);
      expect((await client.callTool({ name: "echo", arguments: { text: "a" } })).isError).toBeFalsy();
      const pid = Number(readFileSync(pidFile, "utf8"));
      process.kill(pid);
      await until(() => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      });
      await new Promise((r) => setTimeout(r, 200));
      // before: the listing seen before the restart was still taken as current, and the call went
      // through to the rewritten build the gateway started for it
      await echoRefusedAsChanged(client, log);
      await client.close();
    } finally {
      await gw.close();
    }
  });
});

