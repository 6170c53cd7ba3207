/**
 * `--url URL --header 'NAME: VALUE'`: a tool server over HTTP that wants a credential (most
 * hosted MCP servers ask for an Authorization header) gets it on every request the gateway
 * makes, the session's later ones included; a malformed or misplaced `--header` is a usage error.
 * `--header-env NAME=VAR` takes the value from the gateway's environment (the host's `env`, not its arguments).
 */
import { describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { runLeaf, type Io } from "../../cli/command.js";
import { command } from "../../cli/commands/gateway.js";
import { allowedDir, downstreamClient, home, overStdio, text } from "./helpers.js";

/** An MCP server on HTTP that answers 401 to any request without `Authorization: Bearer s3cret`, and counts what it saw. */
async function guardedServer(): Promise<{ url: string; seen: string[]; close(): void }> {
  const seen: string[] = [];
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const http = serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request: Request) => {
      seen.push(`${request.method} ${request.headers.get("authorization") ?? "-"} ${request.headers.get("x-team") ?? "-"}`);
      if (request.headers.get("authorization") !== "Bearer s3cret") return new Response("no", { status: 401 });
      const sid = request.headers.get("mcp-session-id");
      if (sid !== null) return sessions.get(sid)?.handleRequest(request) ?? new Response(null, { status: 404 });
      const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID(), onsessioninitialized: (id) => void sessions.set(id, transport) });
      const server = new Server({ name: "guarded", version: "1.0.0" }, { capabilities: { tools: {} } });
      server.setRequestHandler("tools/list", async () => ({ tools: [{ name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } }] }) as never);
      server.setRequestHandler("tools/call", async (req) => ({ content: [{ type: "text", text: String((req.params.arguments as { text?: unknown }).text) }] }) as never);
      await server.connect(transport);
      return transport.handleRequest(request);
    },
  });
  await new Promise<void>((r) => (http.listening ? r() : http.once("listening", () => r())));
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, seen, close: () => void http.close() };
}

function catalogue(): string {
  const at = join(allowedDir(), "agent.yaml");
  writeFileSync(at, "settings: {language: en}\ntools:\n  - name: echo\n    args: {type: object, properties: {text: {type: string}}}\n");
  return at;
}

describe("--header", { timeout: 60_000 }, () => {
  it("is sent with every request to the tool server", async () => {
    const up = await guardedServer();
    const d = await overStdio(downstreamClient({}), ["--home", home(), "--catalogue", catalogue(), "--url", up.url, "--header", "Authorization: Bearer s3cret", "--header", "X-Team:  billing "]);
    try {
      expect((await d.client.listTools()).tools.map((t) => t.name)).toEqual(["echo"]);
      const r = await d.client.callTool({ name: "echo", arguments: { text: "hi" } });
      expect(r.isError, text(r)).not.toBe(true);
      expect(text(r)).toBe("hi");
      expect(up.seen.length).toBeGreaterThanOrEqual(3);
      expect(up.seen.filter((s) => s.startsWith("POST")).every((s) => s.endsWith("Bearer s3cret billing"))).toBe(true);
    } finally {
      await d.client.close();
      up.close();
    }
  });

  it("--header-env NAME=VAR: the value from the gateway's environment, not its arguments", async () => {
    const up = await guardedServer();
    const argv = ["--home", home(), "--catalogue", catalogue(), "--url", up.url, "--header-env", "Authorization=STALWART_TEST_TOOLS_AUTH", "--header", "X-Team: ${TEAM}"];
    const d = await overStdio(downstreamClient({}), argv, { STALWART_TEST_TOOLS_AUTH: "Bearer s3cret" });
    try {
      const r = await d.client.callTool({ name: "echo", arguments: { text: "hi" } });
      expect(text(r)).toBe("hi");
      const posts = up.seen.filter((s) => s.startsWith("POST"));
      expect(posts.length).toBeGreaterThanOrEqual(2);
      // the variable's value went out; a `--header` value is sent as written (no template in it)
      expect(posts.every((s) => s === "POST Bearer s3cret ${TEAM}")).toBe(true);
    } finally {
      await d.client.close();
      up.close();
    }
  });

  it("--header-env with its variable unset or empty, malformed, or naming a header twice: a usage error that never shows a value", async () => {
    process.env.STALWART_TEST_EMPTY_AUTH = " ";
    process.env.STALWART_TEST_SET_AUTH = "Bearer v4lue";
    process.env.STALWART_TEST_BROKEN_AUTH = "Bearer v4lue\r\nX-Evil: 1";
    try {
      const cases: [string[], string][] = [
        [["--header-env", "Authorization=STALWART_TEST_NEVER_SET_AUTH"], "`--header-env Authorization=STALWART_TEST_NEVER_SET_AUTH`: STALWART_TEST_NEVER_SET_AUTH is not set in the gateway's environment"],
        [["--header-env", "Authorization=STALWART_TEST_EMPTY_AUTH"], "STALWART_TEST_EMPTY_AUTH is empty"],
        [["--header-env", "Authorization=STALWART_TEST_BROKEN_AUTH"], "`--header-env Authorization`: a value cannot hold a line break"],
        [["--header-env", "Authorization: STALWART_TEST_SET_AUTH"], "is not NAME=VAR"],
        [["--header-env", "Authorization=$STALWART_TEST_SET_AUTH"], "is not NAME=VAR"],
        [["--header", "authorization: x", "--header-env", "Authorization=STALWART_TEST_SET_AUTH"], "the header Authorization is given twice"],
      ];
      for (const [flags, message] of cases) {
        let err = "";
        const io: Io = { stdout: { write: () => true }, stderr: { write: (s: string) => (err += s) } };
        expect(await runLeaf(command, ["--catalogue", catalogue(), "--url", "http://127.0.0.1:9/mcp", ...flags], io)).toBe(2);
        expect(err).toContain(message);
        expect(err).not.toContain("v4lue");
      }
      let err = "";
      const io: Io = { stdout: { write: () => true }, stderr: { write: (s: string) => (err += s) } };
      expect(await runLeaf(command, ["--catalogue", catalogue(), "--header-env", "Authorization=STALWART_TEST_SET_AUTH", "--", "node", "server.js"], io)).toBe(2);
      expect(err).toContain("`--header-env` is for `--url`");
    } finally {
      delete process.env.STALWART_TEST_EMPTY_AUTH;
      delete process.env.STALWART_TEST_SET_AUTH;
      delete process.env.STALWART_TEST_BROKEN_AUTH;
    }
  });

  it("without it, the tool server's refusal is why the gateway does not start", async () => {
    const up = await guardedServer();
    let err = "";
    const io: Io = { stdout: { write: () => true }, stderr: { write: (s: string) => (err += s) } };
    try {
      expect(await runLeaf(command, ["--home", home(), "--catalogue", catalogue(), "--url", up.url], io)).toBe(1);
      expect(err).toContain("did not answer `initialize`: it answered HTTP 401 Unauthorized (no)");
      expect(err).toContain("hint: does it need credentials? Send them with `--header 'Authorization: …'`");
      expect(up.seen[0]).toMatch(/^POST - /);
    } finally {
      up.close();
    }
  });

  it("a malformed one, one given twice, or one without --url: a usage error naming it", async () => {
    const cases: [string[], string][] = [
      [["--url", "http://127.0.0.1:9/mcp", "--header", "Authorization Bearer x"], "is not NAME: VALUE"],
      [["--url", "http://127.0.0.1:9/mcp", "--header", "Bad Name: x"], "is not NAME: VALUE"],
      [["--url", "http://127.0.0.1:9/mcp", "--header", "X-A: 1", "--header", "x-a: 2"], "the header x-a is given twice"],
      [["--header", "X-A: 1", "--", "node", "server.js"], "`--header` is for `--url`"],
    ];
    for (const [argv, message] of cases) {
      let err = "";
      const io: Io = { stdout: { write: () => true }, stderr: { write: (s: string) => (err += s) } };
      expect(await runLeaf(command, ["--catalogue", catalogue(), ...argv], io)).toBe(2);
      expect(err).toContain(message);
    }
  });
});
