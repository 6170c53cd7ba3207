/**
 * An allowed call, forwarded to the tool server as it came (calls.ts, step 5): progress under the
 * client's token, cancellation passed on, and the report of what the gateway saw: `ran` with the
 * result, `failed` on `isError`, `outcome_unknown` when the tool server could not answer (it may
 * have run). A call of a 2026-07-28 client during which the tool server asks the client something
 * is held open between the client's rounds (held-calls.ts).
 */
import type { inputRequired, ServerContext } from "@modelcontextprotocol/server";
import type { CheckResult, Outcome } from "../../worker/portable/engine/index.js";
import { notAnswered, UpstreamUnreadable, type Upstream } from "./upstream.js";
import { modernOf, type Relay } from "./relay.js";
import { HeldCall, type HeldCalls, type Next } from "./held-calls.js";
import { sendToolCall, type TaskTools } from "./task-tools.js";
import { errorResult, type ToolResult } from "./words.js";
import { recordedValue } from "./result-value.js";
import { notPassedOn } from "./result-filter.js";
import { progressTokenOf, safeDigest, summary } from "./call-parts.js";

export interface ForwardOptions {
  upstream: Upstream;
  relay?: Relay;
  tasks?: TaskTools;
  held: HeldCalls;
  callTimeoutMs: number;
  /** the outcome's report, made after the reply (calls.ts `reportAfter`) */
  report(step: number, outcome: Outcome, result?: unknown): Promise<void>;
  /** what of a result the client gets: a read's `filter` applied (result-filter.ts); never rejects */
  passedOn(tool: string, step: number, result: Record<string, unknown>): Promise<Record<string, unknown>>;
  log(line: string): void;
}

/** How long the result waits after the last progress notification (forward, answer). */
const PROGRESS_GAP_MS = 20;

type Params = { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> };
type Answer = ToolResult | ReturnType<typeof inputRequired>;

export async function forward(o: ForwardOptions, params: Params, check: CheckResult, ctx: ServerContext): Promise<Answer> {
  if (o.relay && modernOf(ctx)) return forwardHeld(o, o.relay, params, check, ctx);
  const tool = params.name;
  const token = progressTokenOf(params._meta);
  let result: Record<string, unknown>;
  // Progress goes out in order and before the result (a client drops progress after the response).
  let progressSent: Promise<void> = Promise.resolve();
  let relayed = 0;
  const relay = (p: { progress: number; total?: number; message?: string }) => {
    relayed++;
    progressSent = progressSent.then(() => ctx.mcpReq.notify({ method: "notifications/progress", params: { ...p, progressToken: token! } })).catch(() => undefined);
  };
  try {
    const send = () => sendToolCall(o.upstream, o.tasks, params, { timeoutMs: o.callTimeoutMs, signal: ctx.mcpReq.signal, ...(token !== undefined ? { onprogress: relay } : {}) }).then((r) => o.passedOn(tool, check.step, r));
    result = await (o.relay ? o.relay.during(ctx, send) : send());
    // A client SDK that runs progress handlers a microtask late drops one read together with the
    // response: a gap between the last progress and the result, only after progress. 5 ms lost the
    // last step in 3 of 600 task calls with two busy loops beside them, 20 ms in none of 750.
    if (relayed > 0) {
      await progressSent;
      await new Promise((r) => setTimeout(r, PROGRESS_GAP_MS));
    }
  } catch (err) {
    await unanswered(o, tool, check, ctx.mcpReq.signal.aborted ? new Error("the client cancelled the call first") : (err as Error));
    if (ctx.mcpReq.signal.aborted) throw err;
    return errorResult(`${tool} was allowed, but ${notAnswered(err)}`, { ...summary(check), outcome: "outcome_unknown" });
  }
  return ended(o, tool, check, result);
}

/** A 2026-07-28 client's retry that carries a held call's `requestState`: that call, resumed (never checked again). */
export async function resume(o: ForwardOptions, params: Params, state: string, ctx: ServerContext): Promise<Answer> {
  const tool = params.name;
  const call = o.held.resume(state, tool, safeDigest(params.arguments ?? {}) ?? "", ctx, progressTokenOf(params._meta));
  if (typeof call === "string") {
    o.log(`relay ${tool}: an answer for a held call not taken: ${call}`);
    return errorResult(`${tool}: ${call}; nothing was sent to the tool server.`, { relay: "not_held" });
  }
  o.log(`relay ${tool}: the client's answer goes to the tool server`);
  return answer(o, call, ctx);
}

function forwardHeld(o: ForwardOptions, relay: Relay, params: Params, check: CheckResult, ctx: ServerContext): Promise<Answer> {
  const call = new HeldCall(params.name, safeDigest(params.arguments ?? {}) ?? "", check, ctx, progressTokenOf(params._meta));
  // progress to the request the client waits on now, under that request's token, in order
  const onprogress = (p: { progress: number; total?: number; message?: string }) => {
    const to = call.ctx, token = call.token;
    if (token === undefined) return;
    call.relayed++;
    call.progressSent = call.progressSent.then(() => to.mcpReq.notify({ method: "notifications/progress", params: { ...p, progressToken: token } })).catch(() => undefined);
  };
  const send = () => sendToolCall(o.upstream, o.tasks, params, { timeoutMs: o.callTimeoutMs, signal: call.abort.signal, onprogress }).then((r) => o.passedOn(params.name, check.step, r));
  // reported as the tool server ends it, whether or not a request of the client is there to read it
  call.run(relay.during(ctx, send, (method, sent, signal) => call.ask(method, sent, signal)), (end) => void report(o, call, end));
  return answer(o, call, ctx);
}

/** What the client waiting on `ctx` gets: the tool server's next request (the call held), or the call's end. */
async function answer(o: ForwardOptions, call: HeldCall, ctx: ServerContext): Promise<Answer> {
  const signal = ctx.mcpReq.signal;
  const cancel = () => call.abort.abort(signal.reason);
  if (signal.aborted) cancel();
  else signal.addEventListener("abort", cancel, { once: true });
  try {
    const next = await call.next();
    if (next.kind === "ask") {
      o.log(`relay ${next.ask.method}: to the client, which answers in its next round (protocol 2026-07-28)`);
      return o.held.hold(call, next.ask);
    }
    if (next.kind === "error") {
      if (signal.aborted) throw next.error;
      return errorResult(`${call.tool} was allowed, but ${notAnswered(next.error)}`, { ...summary(call.check), outcome: "outcome_unknown" });
    }
    // as forward's: the last progress before the result, PROGRESS_GAP_MS apart
    if (call.relayed > 0) {
      await call.progressSent;
      await new Promise((r) => setTimeout(r, PROGRESS_GAP_MS));
    }
    return next.result as ToolResult;
  } finally {
    signal.removeEventListener("abort", cancel);
  }
}

/** A held call's end, reported once, as the tool server gives it. */
async function report(o: ForwardOptions, call: HeldCall, end: Next): Promise<void> {
  if (end.kind === "done") ended(o, call.tool, call.check, end.result);
  else if (end.kind === "error") await unanswered(o, call.tool, call.check, end.error);
}

/** Sent but not answered: it may have run, so its counters stay reserved. */
async function unanswered(o: ForwardOptions, tool: string, check: CheckResult, err: Error): Promise<void> {
  await o.report(check.step, "outcome_unknown");
  o.log(`allow ${tool}: ${err instanceof UpstreamUnreadable ? err.message : `the tool server did not answer (${err.message}); it may have run`}`);
}

function ended(o: ForwardOptions, tool: string, check: CheckResult, result: Record<string, unknown>): ToolResult {
  if (notPassedOn(result)) {
    // the tool ran; what it returned was not passed on (its filter could not be applied)
    void o.report(check.step, "ran");
    o.log(`allow ${tool}: ran, its result not passed on (its filter could not be applied)`);
    return result as ToolResult;
  }
  const failed = result.isError === true;
  // Not awaited: made once the reply is on its way (reportAfter); the next call waits for it.
  void o.report(check.step, failed ? "failed" : "ran", failed ? undefined : recordedValue(result));
  o.log(`allow ${tool}${check.reasons.length ? ` ${check.reasons.join(",")}` : ""}: ${failed ? "failed" : "ran"}`);
  return result as ToolResult;
}
