/**
 * Real components for the gateway tests: the registry's MCP servers as upstreams, the SDK's own
 * `Client` downstream (2025-era by default, or pinned to 2026-07-28), over stdio (the gateway as
 * a child process, as a person's MCP host starts it) or streamable HTTP (in-process, port 0).
 */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { spawn, type ChildProcess } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { copyLicence } from "../helpers/licensed-home.js";
import { startGateway, type GatewayOptions, type RunningGateway } from "../../cli/gateway/index.js";
import type { GatewaySession } from "../../cli/gateway/calls.js";
import { builtCli } from "../helpers/built-cli.js";

const require = createRequire(import.meta.url);
export const ROOT = join(import.meta.dirname, "../..");
export const FILESYSTEM = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
export const MEMORY = require.resolve("@modelcontextprotocol/server-memory/dist/index.js");
export const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
/** `stalwart` as installed (test/helpers/built-cli.ts): checked against the sources when first used */
export const MAIN = builtCli();
/** A tool server that asks the client things of its own during a call (relay tests). */
export const ASKS = join(import.meta.dirname, "fixtures/asks-server.mjs");
/** A tool server with an injected instruction in a resource and a prompt (outside.test.ts, trace.test.ts). */
export const OUTSIDE = join(import.meta.dirname, "fixtures/outside-server.mjs");
/** A tool server whose results are valid MCP but not data a signed history holds as they are (broken-results.test.ts). */
export const BROKEN_RESULTS = join(import.meta.dirname, "fixtures/broken-results-server.mjs");
/** Its catalogue: `read_inbox` reads from outside and returns a message (sender, account, amount); `pay` is a write. */
export const BROKEN_RESULTS_CATALOGUE = `
settings: {language: en}
tools:
  - name: read_inbox
    reads_outside: true
    args: {type: object, properties: {variant: {type: string}, as: {type: string}, account: {type: string}}, additionalProperties: false}
    returns: {type: object, properties: {sender: {type: string}, account: {type: string}, amount: {type: number}}}
  - name: pay
    writes: true
    args: {type: object, properties: {account: {type: string}, amount: {type: number}}, required: [account, amount], additionalProperties: false}
`;

/** A tool server with one spending tool, `pay {amount}`, logging each call to $PAY_LOG (fixtures/pay-server.mjs). */
export const PAY = join(import.meta.dirname, "fixtures/pay-server.mjs");
/** `pay` as a write with a spend ceiling of 500 a month in the pool `wallet`. */
export const PAY_CATALOGUE = `
settings: {language: en}
tools:
  - name: pay
    writes: true
    spend: [{field: amount, at_most: 500, per: month, pool: wallet}]
    currency: USD
    args: {type: object, properties: {amount: {type: number, minimum: 0}}, required: [amount], additionalProperties: false}
`;

export function home(): string {
  return copyLicence(mkdtempSync(join(tmpdir(), "stalwart-gw-home-")));
}

/** A folder the filesystem server may use, with one file in it (real path: the server resolves links). */
export function allowedDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "stalwart-gw-fs-")));
  writeFileSync(join(dir, "hello.txt"), "hello from the file\n");
  mkdirSync(join(dir, "sub"));
  return dir;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A hand-written catalogue for the filesystem server: paths only inside `dir`, writes confirmed. */
export function filesystemCatalogue(dir: string, at: string): string {
  const path = JSON.stringify({ type: "string", pattern: `^${escape(dir)}/[^/]+$` });
  const text = `
settings: {language: en}
tools:
  - name: read_text_file
    args: {type: object, properties: {path: ${path}}, required: [path], additionalProperties: false}
    returns: {type: object, properties: {content: {type: string}}}
  - name: list_allowed_directories
    args: {type: object, properties: {}, additionalProperties: false}
  - name: write_file
    writes: true
    args: {type: object, properties: {path: ${path}, content: {type: string}}, required: [path, content], additionalProperties: false}
`;
  writeFileSync(at, text);
  return at;
}

export type Answer = "accept" | "decline" | "cancel";

export interface Downstream {
  client: Client;
  /** the questions the person was asked */
  asked: string[];
  /** over stdio (overStdio): every message the gateway wrote, in the order it was read (before the SDK's own dispatch) */
  wire?: Record<string, unknown>[];
}

/** The SDK's Client; with `answer`, it supports elicitation and answers every question so. */
export function downstreamClient(o: { answer?: Answer; modern?: boolean }): Downstream {
  const asked: string[] = [];
  const client = new Client(
    { name: "test-host", version: "1.0.0" },
    { capabilities: o.answer ? { elicitation: {} } : {}, ...(o.modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}) },
  );
  if (o.answer) {
    const answer = o.answer;
    client.setRequestHandler("elicitation/create", async (req) => {
      asked.push(String((req.params as { message?: unknown }).message));
      return answer === "accept" ? { action: "accept", content: { approve: true } } : { action: answer };
    });
  }
  return { client, asked };
}

export async function overHttp(d: Downstream, url: string): Promise<Downstream> {
  await d.client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return d;
}

/** The gateway as a child process on stdio, as Claude Code / Cursor / VS Code start it. */
export async function overStdio(d: Downstream, args: string[], env: Record<string, string> = {}): Promise<Downstream & { wire: Record<string, unknown>[] }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, "gateway", "--quiet", ...args],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: "pipe",
  });
  await d.client.connect(transport, { timeout: 60_000 });
  const wire: Record<string, unknown>[] = [];
  const dispatch = transport.onmessage;
  transport.onmessage = (message) => {
    wire.push(message as Record<string, unknown>);
    dispatch?.(message);
  };
  return Object.assign(d, { wire });
}

export function text(result: { content?: unknown }): string {
  const c = (result.content as { type: string; text?: string }[] | undefined) ?? [];
  return c.map((x) => x.text ?? "").join("\n");
}

/** The gateway over streamable HTTP (in-process) in front of fixtures/asks-server.mjs, with `catalogue` as its agent.yaml. */
export async function asksGateway(catalogue: string, o: Partial<GatewayOptions> = {}): Promise<RunningGateway> {
  const dir = allowedDir();
  writeFileSync(join(dir, "agent.yaml"), catalogue);
  return startGateway({ catalogue: join(dir, "agent.yaml"), upstream: { command: process.execPath, args: [ASKS] }, listen: { host: "127.0.0.1", port: 0 }, home: home(), ...o });
}

/** `stalwart gateway --listen` as a process of its own on home `h` (one a test can kill), in front of `upstream`; its URL once it listens. */
export async function gatewayProcess(h: string, catalogue: string, upstream: string[], flags: string[] = []): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [MAIN, "gateway", "--quiet", "--home", h, "--listen", "127.0.0.1:0", ...flags, "--catalogue", catalogue, "--", ...upstream], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (b: Buffer) => {
      stderr += b.toString();
      const m = /listening on (\S+)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    child.once("exit", () => reject(new Error(`the gateway exited before it served:\n${stderr}`)));
  });
  return { child, url };
}

/** A gateway session that is `inner` (an SDK session) but for what `over` replaces: a fault, or a hold. */
export function sessionOver(inner: GatewaySession, over: Partial<GatewaySession> = {}): GatewaySession {
  return {
    get id() {
      return inner.id;
    },
    get history() {
      return inner.history;
    },
    checkToolCall: (tool, args, options) => inner.checkToolCall(tool, args, options),
    report: (step, outcome, result) => inner.report(step, outcome, result),
    ...over,
  };
}
