/**
 * The conformance corpus through `stalwart gateway`: each check of a case is a `tools/call` a real
 * MCP client (the SDK's `Client`, streamable HTTP) sends to a real gateway (`startGateway`,
 * `--listen`, in-process check) in front of an MCP tool server on streamable HTTP. The gateway
 * works out each argument's origin itself and reports each call as soon as the tool server has
 * answered it; the tool server answers with the result and outcome the case reports for that call.
 * A refusal or a confirm is read from the answer's `_meta`; an allowed call from the session's
 * signed history (its answer is the tool server's, untouched).
 *
 * What a client cannot say through MCP is not run, and `notThroughGateway` names why: the person's
 * turns, declared labels, agents, facts, undo, tokens (a person approves by elicitation), edited or
 * resumed histories, and session options the gateway has no flag for.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startGateway, type RunningGateway } from "../../cli/gateway/index.js";
import type { CheckEntry, ReportEntry } from "../../worker/portable/engine/index.js";
import { home } from "../gateway/helpers.js";
import type { Case, Driver, DriverSession } from "./runner.js";

const META_KEY = "stalwart-agents/check";

/** Why a case cannot be said through the gateway, or null when it can. */
export function notThroughGateway(c: Case): string | null {
  if (c.sessions && Object.keys(c.sessions).length > 1) return "several sessions: a gateway serves one session";
  const s = c.session ?? {};
  const reported = new Map<string, number>();
  /** every value an earlier report's result holds (the gateway infers `result:` for it) */
  const results: unknown[] = [];
  for (const [i, step] of c.steps.entries()) {
    if ("read" in step) return "a person's turn: MCP carries none to the gateway";
    for (const k of ["history", "resume", "snapshot", "resume_snapshot"] as const) if (k in step) return `a \`${k}\` step: the gateway keeps its session's history itself, never saved or edited`;
    if ("together" in step) return "checks asked at once: the gateway checks one call after the other's report";
    if ("expect_error" in step) return "an input refused as an error: through MCP it is a refusal, not a typed error";
    if ("report" in step) {
      const name = /^\$([^.]+)\.step$/.exec(String(step.report.step))?.[1];
      if (name === undefined) return "a report names its call by the live session's step number";
      reported.set(name, i);
      if (step.report.outcome === "ran") results.push(...leaves(step.report.result));
      continue;
    }
    if (!("check" in step)) continue;
    const k = step.check;
    if (typeof k.args !== "object" || k.args === null || Array.isArray(k.args)) return "arguments that are not an object: MCP's `tools/call` carries an object";
    if (k.labels) return "declared labels: the gateway works labels out itself";
    if (k.agent !== undefined) return "an agent per call: MCP carries none";
    if (k.facts !== undefined) return "facts: MCP carries none";
    if (k.undoOf !== undefined) return "an undo: MCP carries no `undo_of`";
    if (k.confirmation !== undefined) return "a confirmation token presented: through the gateway a person approves by elicitation";
    if (k.explain) return "`explain`: the gateway never asks for it";
    for (const [arg, o] of Object.entries(k.origins ?? {})) {
      if (o !== "model" && o !== "context" && !o.startsWith("result:")) return `a \`${o.split(":")[0]}\` origin declared: the gateway infers origins, and only \`result:\`, \`context\` and \`model\` without a person's turns`;
      const v = (k.args as Record<string, unknown>)[arg];
      if (o !== "context" && Object.values(contextOf(c)).some((x) => same(x, v))) return "a value declared other than `context` that the context holds: the gateway infers `context` for it";
      if (o === "model" && results.some((x) => same(x, v))) return "a value declared `model` that an earlier call's result holds: the gateway infers `result:` for it";
    }
  }
  // The gateway reports a call as soon as it is answered: a case must report it before anything else happens.
  for (const [i, step] of c.steps.entries()) {
    if (!("check" in step) || !("save" in step) || !step.save) continue;
    const at = reported.get(step.save);
    if (at === undefined) continue;
    if (!c.steps.slice(i + 1, at).every((x) => "advance" in x)) return "a call reported after later steps: the gateway reports each call as soon as the tool server answers it";
  }
  return null;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A result and every value inside it. */
function leaves(v: unknown): unknown[] {
  if (typeof v !== "object" || v === null) return [v];
  return [v, ...Object.values(v).flatMap(leaves)];
}

/**
 * The gateway's context for a case: the session's own, and each value a check declares `context`
 * (the case says the value came from the session's context; the gateway infers that only when its
 * context holds the value, and the live check does not look).
 */
export function contextOf(c: Case): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(c.session?.context ?? {}) };
  let n = 0;
  for (const step of c.steps) {
    if (!("check" in step)) continue;
    const args = step.check.args as Record<string, unknown> | undefined;
    for (const [arg, o] of Object.entries(step.check.origins ?? {})) {
      if (o === "context" && args && Object.hasOwn(args, arg) && !Object.values(out).some((x) => same(x, args[arg]))) out[`conformance.${n++}`] = args[arg];
    }
  }
  return out;
}

/** What the tool server answers the next call with. */
interface Answer {
  outcome: "ran" | "failed";
  result?: unknown;
}

/** An MCP tool server on streamable HTTP listing the catalogue's tools and answering each call with `next`. */
async function toolServer(tools: string[]): Promise<{ url: string; next: Answer[]; close(): void }> {
  const next: Answer[] = [];
  const build = () => {
    const server = new Server({ name: "conformance-upstream", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler("tools/list", async () => ({ tools: tools.map((name) => ({ name, inputSchema: { type: "object" } })) }) as never);
    server.setRequestHandler("tools/call", async () => {
      const a = next.shift() ?? { outcome: "ran" };
      if (a.outcome === "failed") return { content: [{ type: "text", text: "failed" }], isError: true } as never;
      const structured = typeof a.result === "object" && a.result !== null && !Array.isArray(a.result);
      return { content: [{ type: "text", text: JSON.stringify(a.result ?? null) }], ...(structured ? { structuredContent: a.result } : {}) } as never;
    });
    return server;
  };
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const http = serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request: Request) => {
      const sid = request.headers.get("mcp-session-id");
      if (sid !== null) return sessions.get(sid)?.handleRequest(request) ?? new Response(null, { status: 404 });
      const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, transport),
      });
      await build().connect(transport);
      return transport.handleRequest(request);
    },
  });
  await new Promise<void>((r) => (http.listening ? r() : http.once("listening", () => r())));
  const { port } = http.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, next, close: () => void http.close() };
}

/** One case's session: a gateway in front of the tool server, and the client that calls through it. */
class GatewaySession implements DriverSession {
  private readonly ready: Promise<{ gw: RunningGateway; client: Client; upstream: Awaited<ReturnType<typeof toolServer>> }>;
  /** which check of the case comes next, and the report each saved check gets */
  private checks = 0;

  constructor(name: string, opts: Record<string, unknown>, now: () => Date, private readonly c: Case, closers: (() => Promise<void>)[]) {
    this.ready = (async () => {
      const { catalogue, language, agent, rulebook, taintModelAfterUntrusted } = opts as { catalogue: string | object; language?: "en" | "pt-BR"; agent?: string; rulebook?: string; taintModelAfterUntrusted?: boolean };
      const context = contextOf(c);
      let file = catalogue as string;
      if (typeof catalogue !== "string") writeFileSync((file = join(mkdtempSync(join(tmpdir(), "stalwart-conf-gw-")), "agent.json")), JSON.stringify(catalogue));
      const tools = [...new Set(c.steps.flatMap((s) => ("check" in s ? [s.check.tool] : [])))];
      const upstream = await toolServer(tools);
      const gw = await startGateway({ catalogue: file, upstream: { url: upstream.url }, listen: { host: "127.0.0.1", port: 0 }, home: home(), sessionName: name, now, log: () => undefined, ...(language ? { language } : {}), ...(agent ? { agent } : {}), ...(rulebook ? { rulebook } : {}), ...(taintModelAfterUntrusted ? { taintModelAfterUntrusted } : {}), context });
      const client = new Client({ name: "conformance", version: "1.0.0" }, { capabilities: {} });
      await client.connect(new StreamableHTTPClientTransport(new URL(gw.url!)));
      closers.push(async () => {
        await client.close().catch(() => undefined);
        await gw.close();
        upstream.close();
      });
      return { gw, client, upstream };
    })();
  }

  get history(): { entries: unknown[] } {
    throw new Error("the gateway keeps its session's history (notThroughGateway should have skipped this case)");
  }

  toJSON(): unknown {
    return this.history;
  }

  async read(): Promise<unknown> {
    throw new Error("MCP carries no person's turns (notThroughGateway should have skipped this case)");
  }

  /** The gateway reported the call already: its report must say what the case says. */
  async report(step: number, outcome: string): Promise<unknown> {
    const { gw } = await this.ready;
    await gw.settled();
    const r = gw.entries().find((e): e is ReportEntry => e.kind === "report" && e.of === step);
    if (r?.outcome !== outcome) throw new Error(`the gateway reported step ${step} ${r ? r.outcome : "not at all"}, the case ${outcome}`);
    return { step: r.step };
  }

  async checkToolCall(tool: string, args: unknown) {
    const { gw, client, upstream } = await this.ready;
    upstream.next.length = 0;
    upstream.next.push(this.answerOf(this.checks++));
    await gw.settled();
    const before = gw.entries().length;
    const out = await client.callTool({ name: tool, arguments: args as Record<string, unknown> });
    const meta = (out._meta as Record<string, unknown> | undefined)?.[META_KEY] as { decision: string; reasons: string[]; detail: Record<string, unknown>; step: number } | undefined;
    if (meta) return { decision: meta.decision, reasons: meta.reasons, detail: meta.detail, step: meta.step };
    // Allowed and forwarded: the answer is the tool server's; the decision is in the signed history.
    const mine = gw.entries().slice(before).filter((e): e is CheckEntry => e.kind === "check");
    const last = mine.at(-1);
    if (!last) throw new Error(`${tool}: the gateway answered without a check or a refusal: ${JSON.stringify(out)}`);
    return { decision: last.decision, reasons: last.reasons, detail: {}, step: last.step };
  }

  /** The k-th check's answer from the tool server: what the case reports for it, else a run with no result. */
  private answerOf(k: number): Answer {
    const steps = this.c.steps;
    const i = steps.map((s, j) => ("check" in s ? j : -1)).filter((j) => j >= 0)[k];
    const s = i === undefined ? undefined : steps[i];
    const name = s && "check" in s && "save" in s ? s.save : undefined;
    if (name === undefined) return { outcome: "ran" };
    const r = steps.find((x) => "report" in x && x.report.step === `$${name}.step`);
    if (!r || !("report" in r)) return { outcome: "ran" };
    return { outcome: r.report.outcome === "failed" ? "failed" : "ran", result: r.report.result };
  }
}

/** The driver; `close()` ends the last case's gateway and tool server. */
export function gatewayDriver(): Driver & { close(): Promise<void> } {
  const closers: (() => Promise<void>)[] = [];
  let current: Case | undefined;
  const close = async () => {
    for (const c of closers.splice(0)) await c();
  };
  return {
    name: "gateway",
    newCase: (c?: Case) => {
      void close();
      current = c;
    },
    session: (name, opts, now) => {
      if (!current) throw new Error("the gateway driver needs the case (runCase passes it to newCase)");
      return new GatewaySession(name, opts, now, current, closers);
    },
    resume: () => {
      throw new Error("the gateway's session is never resumed (notThroughGateway should have skipped this case)");
    },
    close,
  };
}
