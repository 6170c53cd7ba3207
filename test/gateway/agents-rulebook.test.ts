/**
 * A catalogue with agents, and a rulebook, through the gateway. MCP carries no agent: before
 * `--agent`, a catalogue naming two agents had every call refused `agent_required`, and with one
 * agent every resource read was `unknown_tool` (the gateway's read-from-outside entries were in no
 * agent's reach). The gateway also took no rulebook, so step 8 never ran there. Upstream: the small
 * SDK server of fixtures/outside-server.mjs (`echo` a read, `save` a write, a resource).
 */
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startGateway, type RunningGateway } from "../../cli/gateway/index.js";
import { allowedDir, downstreamClient, home, overHttp, overStdio, text } from "./helpers.js";

const OUTSIDE = join(import.meta.dirname, "fixtures/outside-server.mjs");
const TOOLS = `tools:
  - name: echo
    args: {type: object, properties: {text: {type: string}}, required: [text], additionalProperties: false}
  - name: save
    writes: true
    args: {type: object, properties: {text: {type: string}}, required: [text], additionalProperties: false}
`;
const TWO_AGENTS = `settings: {language: en}\nagents:\n  - {name: desk, tools: [echo, save]}\n  - {name: helper, tools: [echo]}\n${TOOLS}`;

async function gateway(yaml: string, o: { agent?: string; rulebook?: string } = {}): Promise<{ gw: RunningGateway; log: string }> {
  const dir = allowedDir();
  const log = join(dir, "up.log");
  writeFileSync(join(dir, "agent.yaml"), yaml);
  const gw = await startGateway({
    catalogue: join(dir, "agent.yaml"), home: home(), listen: { host: "127.0.0.1", port: 0 }, ...o,
    upstream: { command: process.execPath, args: [OUTSIDE], env: { ...(process.env as Record<string, string>), OUTSIDE_LOG: log } },
  });
  return { gw, log };
}

const upstreamCalls = (log: string) => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").filter(Boolean) : []);

describe("a catalogue with agents, through the gateway", { timeout: 60_000 }, () => {
  it("two agents, --agent helper: calls are the helper's, tools/list offers what it reaches, a resource read goes through", async () => {
    const { gw, log } = await gateway(TWO_AGENTS, { agent: "helper" });
    try {
      const d = await overHttp(downstreamClient({ answer: "accept" }), gw.url!);
      const { tools } = await d.client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(["echo"]);
      const r = await d.client.callTool({ name: "echo", arguments: { text: "hi" } });
      expect(r.isError, text(r)).not.toBe(true);
      expect(text(r)).toBe("hi");
      // a tool of the catalogue the helper does not reach: refused before the upstream
      const save = await d.client.callTool({ name: "save", arguments: { text: "x" } });
      expect(save.isError).toBe(true);
      expect((save._meta as Record<string, { reasons: string[] }>)["stalwart-agents/check"]!.reasons).toEqual(["unknown_tool"]);
      const { resources } = await d.client.listResources();
      const read = await d.client.readResource({ uri: resources[0]!.uri });
      expect(JSON.stringify(read.contents)).toContain("wire 900");
      await gw.settled();
      expect(gw.entries().filter((e) => e.kind === "check").map((e) => [(e as { tool: string }).tool, (e as { agent?: string }).agent, (e as { decision: string }).decision])).toEqual([
        ["echo", "helper", "allow"], ["save", "helper", "refuse"], ["resources_read", "helper", "allow"],
      ]);
      expect(upstreamCalls(log).filter((l) => l.startsWith("call "))).toEqual(['call echo {"text":"hi"}']);
    } finally {
      await gw.close();
    }
  });

  it("one agent: a resource read is in its reach", async () => {
    const { gw } = await gateway(`settings: {language: en}\nagents:\n  - {name: desk, tools: [echo, save]}\n${TOOLS}`);
    try {
      const d = await overHttp(downstreamClient({ answer: "accept" }), gw.url!);
      expect((await d.client.listTools()).tools.map((t) => t.name).sort()).toEqual(["echo", "save"]);
      const { resources } = await d.client.listResources();
      await expect(d.client.readResource({ uri: resources[0]!.uri })).resolves.toMatchObject({ contents: [{ uri: resources[0]!.uri }] });
    } finally {
      await gw.close();
    }
  });

  it("two agents and no --agent, an unknown --agent, or --agent without agents: the gateway does not start, and says why", async () => {
    await expect(gateway(TWO_AGENTS)).rejects.toMatchObject({ code: "InputError", message: expect.stringContaining("names 2 agents (desk, helper)"), hint: "give the one whose calls this gateway makes: `--agent desk`" });
    await expect(gateway(TWO_AGENTS, { agent: "helpr" })).rejects.toMatchObject({ code: "InputError", message: "`--agent helpr` is not an agent of the catalogue (desk, helper)", hint: "did you mean `--agent helper`?" });
    await expect(gateway(`settings: {language: en}\n${TOOLS}`, { agent: "desk" })).rejects.toMatchObject({ code: "InputError", message: "`--agent desk`: the catalogue names no agents" });
  });
});

describe("the command's flags", { timeout: 60_000 }, () => {
  it("`stalwart gateway --agent helper --rulebook FILE` on stdio: the helper's tools, the rule applied", async () => {
    const dir = allowedDir();
    writeFileSync(join(dir, "agent.yaml"), TWO_AGENTS.replace("{name: helper, tools: [echo]}", "{name: helper, tools: [echo, save]}"));
    writeFileSync(join(dir, "rules.yaml"), "rules:\n  - {name: no_secrets_saved, flow: notes, tools: [save], when: [{field: args.text, contains: secret}], then: refuse, because: Secrets are not saved.}\n");
    const d = await overStdio(downstreamClient({ answer: "accept" }), ["--home", home(), "--catalogue", join(dir, "agent.yaml"), "--agent", "helper", "--rulebook", join(dir, "rules.yaml"), "--", process.execPath, OUTSIDE]);
    try {
      expect((await d.client.listTools()).tools.map((t) => t.name).sort()).toEqual(["echo", "save"]);
      const no = await d.client.callTool({ name: "save", arguments: { text: "a secret" } });
      expect((no._meta as Record<string, { reasons: string[] }>)["stalwart-agents/check"]!.reasons).toEqual(["no_secrets_saved"]);
    } finally {
      await d.client.close();
    }
  });
});

describe("a rulebook, through the gateway", { timeout: 60_000 }, () => {
  const RULEBOOK = `rules:
  - name: no_secrets_saved
    flow: notes
    tools: [save]
    when:
      - {field: args.text, contains: secret}
    then: refuse
    because: "Secrets are not saved."
`;

  it("--rulebook: a call its rule refuses never reaches the upstream; another runs", async () => {
    const dir = allowedDir();
    writeFileSync(join(dir, "rules.yaml"), RULEBOOK);
    const { gw, log } = await gateway(`settings: {language: en}\n${TOOLS}`, { rulebook: join(dir, "rules.yaml") });
    try {
      const d = await overHttp(downstreamClient({ answer: "accept" }), gw.url!);
      const no = await d.client.callTool({ name: "save", arguments: { text: "my secret" } });
      expect(no.isError).toBe(true);
      expect((no._meta as Record<string, { reasons: string[] }>)["stalwart-agents/check"]!.reasons).toContain("no_secrets_saved");
      expect(text(no)).toContain("Secrets are not saved.");
      const yes = await d.client.callTool({ name: "save", arguments: { text: "groceries" } });
      expect(yes.isError, text(yes)).not.toBe(true);
      await gw.settled();
      expect(upstreamCalls(log).filter((l) => l.startsWith("call "))).toEqual(['call save {"text":"groceries"}']);
    } finally {
      await gw.close();
    }
  });

  it("a rulebook naming a tool the catalogue lacks: the gateway does not start, and says where", async () => {
    const dir = allowedDir();
    writeFileSync(join(dir, "rules.yaml"), RULEBOOK.replace("tools: [save]", "tools: [sav]"));
    await expect(gateway(`settings: {language: en}\n${TOOLS}`, { rulebook: join(dir, "rules.yaml") })).rejects.toMatchObject({ code: "CatalogueError", message: expect.stringContaining("sav") });
  });
});
