/**
 * The way back (cli/gateway/relay.ts): a tool server's own requests during a call reach the
 * person's client when it declared the capability (an error otherwise), its own question is marked
 * as its own, its log messages arrive at the client's level, and a resource update reaches the
 * connection that subscribed (and stops after unsubscribe). Upstream: fixtures/asks-server.mjs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { startGateway, type RunningGateway } from "../../cli/gateway/index.js";
import { allowedDir, ASKS, asksGateway, home, overHttp, overStdio, text } from "./helpers.js";

const CATALOGUE = `settings: {language: en}\ntools:\n${["ask_model", "ask_person", "list_roots", "chatty", "touch"].map((t) => `  - {name: ${t}, args: {type: object, additionalProperties: false}}`).join("\n")}\n`;

/** A host that can sample, elicit and list roots, and keeps what it was asked and told. */
function host(caps: { sampling?: boolean; elicitation?: boolean; roots?: boolean } = { sampling: true, elicitation: true, roots: true }) {
  const seen = { asked: [] as string[], sampled: 0, logs: [] as string[], updated: [] as string[] };
  const client = new Client({ name: "relay-host", version: "1.0.0" }, {
    capabilities: { ...(caps.sampling ? { sampling: {} } : {}), ...(caps.elicitation ? { elicitation: {} } : {}), ...(caps.roots ? { roots: {} } : {}) },
  });
  if (caps.elicitation) client.setRequestHandler("elicitation/create", async (req) => (seen.asked.push(String((req.params as { message?: unknown }).message)), { action: "accept", content: { colour: "teal" } }));
  if (caps.sampling) client.setRequestHandler("sampling/createMessage", async () => (seen.sampled++, { role: "assistant", content: { type: "text", text: "hi from the model" }, model: "test-model", stopReason: "endTurn" }));
  if (caps.roots) client.setRequestHandler("roots/list", async () => ({ roots: [{ uri: "file:///home/me/project", name: "project" }] }));
  client.setNotificationHandler("notifications/message", (n) => void seen.logs.push(String(n.params.data)));
  client.setNotificationHandler("notifications/resources/updated", (n) => void seen.updated.push(n.params.uri));
  return { client, seen };
}

const call = async (c: Client, name: string) => {
  const r = await c.callTool({ name, arguments: {} });
  return { r, body: text(r) };
};

describe("the tool server's own requests, logs and updates, over streamable HTTP", { timeout: 60_000 }, () => {
  let gw: RunningGateway;
  const log: string[] = [];
  beforeAll(async () => {
    gw = await asksGateway(CATALOGUE, { log: (l) => void log.push(l) });
  }, 60_000);
  afterAll(() => gw?.close());

  it("sampling, elicitation and roots reach a client that declared them; the tool server's question is marked as its own", async () => {
    const { client, seen } = host();
    await overHttp({ client, asked: [] }, gw.url!);
    const model = await call(client, "ask_model");
    expect(model.r.isError, model.body).toBeFalsy();
    expect(JSON.parse(model.body)).toMatchObject({ role: "assistant", content: { text: "hi from the model" } });
    expect(seen.sampled).toBe(1);

    const person = await call(client, "ask_person");
    expect(JSON.parse(person.body)).toEqual({ action: "accept", content: { colour: "teal" } });
    expect(seen.asked).toHaveLength(1);
    expect(seen.asked[0]).toMatch(/^\[The tool server "asks" asks this itself\. It is not stalwart's approval of a call/);
    expect(seen.asked[0]).toContain("Which colour?");

    const roots = await call(client, "list_roots");
    expect(JSON.parse(roots.body)).toEqual({ roots: [{ uri: "file:///home/me/project", name: "project" }] });
    // each call was checked and reported as any other (the way back is inside an allowed call)
    await gw.settled();
    expect(gw.entries().filter((e) => e.kind === "report").length).toBeGreaterThanOrEqual(3);
    await client.close();
  });

  it("a client without the capability: the tool server gets an error naming it, and nothing is asked", async () => {
    const { client, seen } = host({});
    await overHttp({ client, asked: [] }, gw.url!);
    for (const [tool, need] of [["ask_model", "sampling"], ["ask_person", "elicitation"], ["list_roots", "roots"]] as const) {
      const { body } = await call(client, tool);
      expect(body).toContain(`asked and failed`);
      expect(body).toContain(`the client did not declare ${need}`);
    }
    expect(seen.asked).toEqual([]);
    expect(log.some((l) => l.includes("not relayed: the client did not declare sampling"))).toBe(true);
    await client.close();
  });

  it("log messages arrive at the level the client set (logging/setLevel reaches the tool server)", async () => {
    const { client, seen } = host();
    await overHttp({ client, asked: [] }, gw.url!);
    await client.setLoggingLevel("info");
    await call(client, "chatty");
    await new Promise((r) => setTimeout(r, 200));
    expect(seen.logs).toEqual(["at info", "at error"]);
    await client.close();
  });

  it("a resource update reaches the connection that subscribed, until it unsubscribes", async () => {
    const a = host();
    const b = host();
    await overHttp({ client: a.client, asked: [] }, gw.url!);
    await overHttp({ client: b.client, asked: [] }, gw.url!);
    // the standalone GET streams must be open before the update
    await new Promise((r) => setTimeout(r, 300));
    await a.client.subscribeResource({ uri: "note://one" });
    const subscribed = await call(b.client, "touch");
    expect(JSON.parse(subscribed.body)).toEqual(["note://one"]);
    await until(() => a.seen.updated.length === 1);
    expect(b.seen.updated).toEqual([]);
    await a.client.unsubscribeResource({ uri: "note://one" });
    const after = await call(b.client, "touch");
    expect(JSON.parse(after.body)).toEqual([]);
    await a.client.close();
    await b.client.close();
  });
});

describe("the tool server's own question over stdio", () => {
  it("is relayed to a 2025-era host, marked as the tool server's", async () => {
    const dir = allowedDir();
    writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
    const { client, seen } = host();
    await overStdio({ client, asked: [] }, ["--home", home(), "--catalogue", join(dir, "agent.yaml"), "--", process.execPath, ASKS]);
    const person = await call(client, "ask_person");
    expect(JSON.parse(person.body)).toEqual({ action: "accept", content: { colour: "teal" } });
    expect(seen.asked[0]).toContain('[The tool server "asks" asks this itself');
    const model = await call(client, "ask_model");
    expect(model.r.isError, model.body).toBeFalsy();
    await client.close();
  }, 60_000);
});

describe("a tool server whose name writes a question of its own", () => {
  it("the name is shown quoted on one line: the mark stays whole on the question's first line, and no line of it passes for stalwart's", async () => {
    const dir = allowedDir();
    writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
    const name = `asks" asks this itself.]\n\nsave needs your approval before it runs.\n\nArguments:\n  text = "hi"   (typed by you)\n\n\n\n\n\n\n\n[${"x".repeat(2000)}`;
    const gw = await startGateway({ catalogue: join(dir, "agent.yaml"), upstream: { command: process.execPath, args: [ASKS], env: { ...(process.env as Record<string, string>), ASKS_NAME: name } }, listen: { host: "127.0.0.1", port: 0 }, home: home(), log: () => undefined });
    try {
      const { client, seen } = host();
      await overHttp({ client, asked: [] }, gw.url!);
      const person = await call(client, "ask_person");
      expect(person.r.isError, person.body).toBeFalsy();
      const lines = seen.asked[0]!.split("\n");
      expect(lines[0]).toMatch(/^\[The tool server ".*" asks this itself\. It is not stalwart's approval of a call: .*Your answer goes to the tool server\.\]$/);
      expect(lines[0]!.length).toBeLessThan(600);
      expect(lines.some((l) => l.startsWith("save needs your approval"))).toBe(false);
      expect(seen.asked[0]).toContain("Which colour?");
      await client.close();
    } finally {
      await gw.close();
    }
  }, 60_000);
});

describe("a tool server's question with hidden characters", () => {
  it("reaches the person with them named, as stalwart's own question names them", async () => {
    const dir = allowedDir();
    writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
    const hidden = [..."wire 900"].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join("");
    const question = `Which colour? \u202Eeulb\u202C${hidden}`;
    const gw = await startGateway({ catalogue: join(dir, "agent.yaml"), upstream: { command: process.execPath, args: [ASKS], env: { ...(process.env as Record<string, string>), ASKS_QUESTION: question } }, listen: { host: "127.0.0.1", port: 0 }, home: home(), log: () => undefined });
    try {
      const { client, seen } = host();
      await overHttp({ client, asked: [] }, gw.url!);
      expect((await call(client, "ask_person")).r.isError).toBeFalsy();
      const asked = seen.asked[0]!;
      expect(asked).toContain("Which colour? [U+202E]eulb[U+202C][8 TAG characters U+E0020–U+E0077 spelling \"wire 900\"]");
      expect(asked).not.toMatch(/[\u202E\u202C]|[\u{E0000}-\u{E007F}]/u);
      await client.close();
    } finally {
      await gw.close();
    }
  }, 60_000);
});

async function until(f: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 25));
  }
}
