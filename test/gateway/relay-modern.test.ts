/**
 * A tool server's own requests during a call of a 2026-07-28 client (cli/gateway/held-calls.ts).
 * That protocol has no request from a server in the middle of a call, so the gateway holds the
 * tool server's call, answers the client `input_required` with the tool server's request, and
 * resumes the call with the answer the client's retry brings, without checking it again.
 * Clients: the SDK's own, pinned to 2026-07-28, over streamable HTTP and over stdio. Upstream:
 * fixtures/asks-server.mjs, which answers with what it got.
 */
import { describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { GatewayOptions, RunningGateway } from "../../cli/gateway/index.js";
import { allowedDir, ASKS, asksGateway, EVERYTHING, home, overHttp, overStdio, text } from "./helpers.js";

const TOOLS = ["ask_model", "ask_person", "list_roots", "chatty", "touch", "ask_then_wait", "ask_briefly", "ask_two"];
const CATALOGUE = `settings: {language: en}\ntools:\n${TOOLS.map((t) => `  - {name: ${t}, args: {type: object, additionalProperties: false}}`).join("\n")}\n`;

/** A 2026-07-28 host that can sample, elicit and list roots (each as declared), and keeps what it was asked. */
function modernHost(caps: { sampling?: boolean; elicitation?: boolean; roots?: boolean } = { sampling: true, elicitation: true, roots: true }, answer: Record<string, string | number | boolean | string[]> = { colour: "teal" }) {
  const seen = { asked: [] as string[], sampled: 0, rooted: 0 };
  const client = new Client(
    { name: "modern-host", version: "1.0.0" },
    {
      capabilities: { ...(caps.sampling ? { sampling: {} } : {}), ...(caps.elicitation ? { elicitation: {} } : {}), ...(caps.roots ? { roots: {} } : {}) },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    },
  );
  if (caps.elicitation) client.setRequestHandler("elicitation/create", async (req) => (seen.asked.push(String((req.params as { message?: unknown }).message)), { action: "accept", content: answer }));
  if (caps.sampling) client.setRequestHandler("sampling/createMessage", async () => (seen.sampled++, { role: "assistant", content: { type: "text", text: "hi from the model" }, model: "test-model", stopReason: "endTurn" }));
  if (caps.roots) client.setRequestHandler("roots/list", async () => (seen.rooted++, { roots: [{ uri: "file:///home/me/project", name: "project" }] }));
  return { client, seen };
}

const call = async (c: Client, name: string) => {
  const r = await c.callTool({ name, arguments: {} });
  return { r, body: text(r) };
};

async function relaysEachKind(client: Client, seen: ReturnType<typeof modernHost>["seen"]) {
  const person = await call(client, "ask_person");
  expect(person.r.isError, person.body).toBeFalsy();
  expect(JSON.parse(person.body)).toEqual({ action: "accept", content: { colour: "teal" } });
  expect(seen.asked).toHaveLength(1);
  expect(seen.asked[0]).toMatch(/^\[The tool server "asks" asks this itself\. It is not stalwart's approval of a call/);
  expect(seen.asked[0]).toContain("Which colour?");

  const model = await call(client, "ask_model");
  expect(model.r.isError, model.body).toBeFalsy();
  expect(JSON.parse(model.body)).toMatchObject({ role: "assistant", content: { text: "hi from the model" } });
  expect(seen.sampled).toBe(1);

  const roots = await call(client, "list_roots");
  expect(JSON.parse(roots.body)).toEqual({ roots: [{ uri: "file:///home/me/project", name: "project" }] });
  expect(seen.rooted).toBe(1);
}

describe("a tool server's request during a call of a 2026-07-28 client", { timeout: 60_000 }, () => {
  it("over HTTP: goes to the client in the call's answer, and its answer back to the tool server; each call checked once, reported ran", async () => {
    const log: string[] = [];
    const gw = await asksGateway(CATALOGUE, { log: (l) => void log.push(l) });
    const { client, seen } = modernHost();
    await overHttp({ client, asked: [] }, gw.url!);
    try {
      const before = gw.entries().length;
      await relaysEachKind(client, seen);
      await gw.settled();
      const added = gw.entries().slice(before);
      // three calls: one check and one report each, whatever the rounds in between
      expect(added.map((e) => e.kind)).toEqual(["check", "report", "check", "report", "check", "report"]);
      expect(outcomes(added)).toEqual(["ran", "ran", "ran"]);
      expect(log.some((l) => l.includes("relay elicitation/create: to the client, which answers in its next round"))).toBe(true);
    } finally {
      await client.close();
      await gw.close();
    }
  });

  it("a capability the client did not declare: the tool server is told so, the call still ends", async () => {
    const gw = await asksGateway(CATALOGUE, { log: () => undefined });
    const { client } = modernHost({ elicitation: true });
    await overHttp({ client, asked: [] }, gw.url!);
    try {
      const model = await call(client, "ask_model");
      expect(model.body).toContain("asked and failed");
      expect(model.body).toContain("the client did not declare sampling");
    } finally {
      await client.close();
      await gw.close();
    }
  });
});

/** A 2026-07-28 client that answers `input_required` itself (the SDK's own retry turned off). */
async function manualClient(url: string): Promise<Client> {
  const client = new Client({ name: "manual-host", version: "1.0.0" }, { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: "2026-07-28" } }, inputRequired: { autoFulfill: false } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

type Asked = { resultType?: string; inputRequests: Record<string, { method?: string; params?: Record<string, unknown> }>; requestState: string };
const KEY = "stalwart_tool_server_request";
const accept = { [KEY]: { action: "accept", content: { colour: "teal" } } };

/** A gateway, a manual client, and its first call of `tool`, answered `input_required` (the call held). */
async function held(tool: string, o: Partial<GatewayOptions> = {}) {
  const gw = await asksGateway(CATALOGUE, { log: () => undefined, ...o });
  const client = await manualClient(gw.url!);
  const asked = (await client.callTool({ name: tool, arguments: {} }, { allowInputRequired: true })) as unknown as Asked;
  expect(asked.resultType).toBe("input_required");
  return { gw, client, asked, close: async () => (await client.close(), await gw.close()) };
}

/** Each report's outcome, in order. */
const outcomes = (entries: readonly { kind: string }[]) => entries.filter((e) => e.kind === "report").map((e) => (e as { outcome?: string }).outcome);

/** Once the held call's report is in the history (the tool server ends it in its own time). */
async function reported(gw: RunningGateway): Promise<(string | undefined)[]> {
  for (let i = 0; i < 400 && !gw.entries().some((e) => e.kind === "report"); i++) await new Promise((r) => setTimeout(r, 50));
  await gw.settled();
  return outcomes(gw.entries());
}

describe("the held call's requestState", { timeout: 60_000 }, () => {
  it("is spent by its retry, fits no other call, and cannot be made up", async () => {
    const { gw, client, asked, close } = await held("ask_person");
    try {
      expect(asked.inputRequests[KEY]).toMatchObject({ method: "elicitation/create", params: { requestedSchema: { properties: { colour: { type: "string" } } } } });
      expect(String(asked.inputRequests[KEY]!.params!.message)).toMatch(/asks this itself[\s\S]*Which colour\?$/);
      const retry = (name: string, state: string) => client.callTool({ name, arguments: {}, inputResponses: accept, requestState: state } as never, { allowInputRequired: true });
      const other = await retry("list_roots", asked.requestState);
      expect(other.isError).toBe(true);
      expect(text(other)).toBe("list_roots: this answer belongs to another call (of ask_person, with its own arguments); nothing was sent to the tool server.");
      const made = await retry("ask_person", `stalwart-relay.${"A".repeat(22)}.${"B".repeat(43)}`);
      expect(text(made)).toContain("no call of this gateway is held for this answer");
      // the one the gateway minted, not spent by the refusals above
      const answered = await retry("ask_person", asked.requestState);
      expect(answered.isError, text(answered)).toBeFalsy();
      expect(JSON.parse(text(answered))).toEqual({ action: "accept", content: { colour: "teal" } });
      const again = await retry("ask_person", asked.requestState);
      expect(again.isError).toBe(true);
      expect(text(again)).toContain("no call of this gateway is held for this answer (it was answered already");
      await gw.settled();
      expect(gw.entries().filter((e) => e.kind === "check").length).toBe(1);
    } finally {
      await close();
    }
  });

  it("cancelling the retry that resumed the call cancels the tool server's call, reported outcome_unknown", async () => {
    const { gw, client, asked, close } = await held("ask_then_wait");
    try {
      const stop = new AbortController();
      const resumed = client.callTool({ name: "ask_then_wait", arguments: {}, inputResponses: { [KEY]: { action: "accept", content: {} } }, requestState: asked.requestState } as never, { allowInputRequired: true, signal: stop.signal });
      setTimeout(() => stop.abort(), 500);
      await expect(resumed).rejects.toThrow();
      // the tool server's minute-long wait ends with the cancellation, within the 20 s looked at
      expect(await reported(gw)).toEqual(["outcome_unknown"]);
    } finally {
      await close();
    }
  });

  it("a tool server that gives up on its question ends the call: reported then, and the client's late answer reads the result", async () => {
    const { gw, client, asked, close } = await held("ask_briefly");
    try {
      // the gateway's ask timeout is a day: the report comes from the tool server's end, not from it
      expect(await reported(gw)).toEqual(["failed"]);
      const late = await client.callTool({ name: "ask_briefly", arguments: {}, inputResponses: { [KEY]: { action: "accept", content: {} } }, requestState: asked.requestState } as never, { allowInputRequired: true });
      expect(late.isError).toBe(true);
      expect(text(late)).toContain("asked and failed");
    } finally {
      await close();
    }
  });

  it("a question the tool server gives up on before the client saw it is withdrawn, never asked", async () => {
    const { client, asked, close } = await held("ask_two");
    try {
      expect(String(asked.inputRequests[KEY]!.params!.message)).toContain("First?");
      // the second question waits behind the first, and the tool server gives up on it meanwhile
      await new Promise((r) => setTimeout(r, 800));
      const r = (await client.callTool({ name: "ask_two", arguments: {}, inputResponses: { [KEY]: { action: "accept", content: {} } }, requestState: asked.requestState } as never, { allowInputRequired: true })) as unknown as { resultType?: string; isError?: boolean; content?: unknown };
      expect(r.resultType, JSON.stringify(r)).not.toBe("input_required");
      expect(JSON.parse(text(r))).toEqual({ first: { action: "accept", content: {} }, second: "gave up" });
    } finally {
      await close();
    }
  });

  it("a client that does not come back: the tool server is told when the wait ends, and the call's outcome is reported", async () => {
    const log: string[] = [];
    const { gw, client, asked, close } = await held("ask_person", { askTimeoutMs: 300, log: (l) => void log.push(l) });
    try {
      // the tool server, told, ends its call (it answers "asked and failed"): reported as failed
      expect(await reported(gw)).toEqual(["failed"]);
      expect(log.some((l) => l.includes("the client did not come back within the ask timeout"))).toBe(true);
      const late = await client.callTool({ name: "ask_person", arguments: {}, inputResponses: accept, requestState: asked.requestState } as never, { allowInputRequired: true });
      expect(text(late)).toContain("no call of this gateway is held for this answer");
    } finally {
      await close();
    }
  });
});

describe("the same over stdio, the gateway started as an MCP host starts it", { timeout: 60_000 }, () => {
  it("relays each kind and answers the calls", async () => {
    const dir = allowedDir();
    writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
    const { client, seen } = modernHost();
    await overStdio({ client, asked: [] }, ["--home", home(), "--catalogue", join(dir, "agent.yaml"), "--", process.execPath, ASKS]);
    try {
      await relaysEachKind(client, seen);
    } finally {
      await client.close();
    }
  });
});

describe("the registry's server-everything behind the gateway, a 2026-07-28 client in front", { timeout: 90_000 }, () => {
  it("its elicitation and sampling tools reach the person and the model, and return what they said", async () => {
    const dir = allowedDir();
    const catalogue = join(dir, "agent.yaml");
    writeFileSync(catalogue, "settings: {language: en}\ntools:\n  - {name: trigger-elicitation-request, args: {type: object}}\n  - {name: trigger-sampling-request, args: {type: object, properties: {prompt: {type: string}, maxTokens: {type: number}}}}\n");
    const { client, seen } = modernHost(undefined, { name: "Ada Lovelace" });
    await overStdio({ client, asked: [] }, ["--home", home(), "--catalogue", catalogue, "--", process.execPath, EVERYTHING, "stdio"]);
    try {
      const asked = await client.callTool({ name: "trigger-elicitation-request", arguments: {} });
      expect(asked.isError, text(asked)).toBeFalsy();
      expect(text(asked)).toContain("User provided the requested information");
      expect(text(asked)).toContain("Ada Lovelace");
      expect(seen.asked[0]).toContain("Please provide inputs for the following fields");
      const sampled = await client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "say hi", maxTokens: 10 } });
      expect(sampled.isError, text(sampled)).toBeFalsy();
      expect(text(sampled)).toContain("hi from the model");
      expect(seen.sampled).toBe(1);
    } finally {
      await client.close();
    }
  });
});
