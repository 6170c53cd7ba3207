/**
 * `stalwart-agents/ai`: the Vercel AI SDK's tools, checked before they run (docs/adapters.md).
 *
 *     const tools = guard({ get_order, refund_card }, session);
 *     await generateText({ model, tools, toolApproval: toolApproval(tools), messages });
 *
 * Supports `ai` 7 (per-call `toolApproval`, tested) and 6 (per-tool `needsApproval`, tested): each
 * guarded tool carries both a `needsApproval` (the check says `confirm`) and an `execute` that
 * checks again before it runs the original, so the call is held whichever the host wires. The
 * framework is never imported at run time: only its types.
 *
 * - the person's messages (`role: "user"`) in the call's `messages` become turns;
 * - `allow` runs the tool and reports `ran` (with the result) or `failed`;
 * - `confirm` is the SDK's own approval request (`tool-approval-request`; with `toolApproval`, the
 *   check's question is its `reason`). When the person's `tool-approval-response` comes back
 *   approved, the call is checked again with the token the check minted — bound to the tool, the
 *   argument digest, the session and the ask, spent once — and runs only if that allows it;
 * - `refuse` (and an approval that does not cover the call) is a tool error the model reads, with
 *   the reasons; the original `execute` never runs.
 */
import type { ModelMessage, ToolSet } from "ai";
import { CallGuard, ToolCallRefused, type GuardOptions, type GuardSession, type Verdict } from "../guard.js";
import { MemoryApprovals } from "../approvals.js";
import { toolAsks } from "../tool-asks.js";
import { filters, passOn } from "../filter.js";
import { StalwartError } from "../../../worker/portable/engine/index.js";
import { noteDenials } from "./denials.js";

export { CallGuard, ToolCallRefused, MemoryApprovals };
export type { ApprovalStore, PendingApproval } from "../approvals.js";
export type { CheckEvent, GuardOptions, GuardSession, Verdict } from "../guard.js";

/** The `ai` majors this adapter is tested with. */
export const SUPPORTED_AI_MAJORS = [6, 7] as const;

const guards = new WeakMap<object, CallGuard>();
/** each guarded tool's own `needsApproval`, which `toolApproval` (ai 7) would otherwise bypass */
const owns = new WeakMap<object, AnyNeedsApproval>();

type AnyExecute = (input: unknown, options: { toolCallId: string; messages?: ModelMessage[] } & Record<string, unknown>) => unknown;
type AnyNeedsApproval = boolean | ((input: unknown, options: { toolCallId: string; messages?: ModelMessage[] } & Record<string, unknown>) => unknown);

/**
 * The same tool set, guarded: every tool with an `execute` is checked before it runs. Tools the
 * SDK cannot run here (no `execute`: client-side or provider-executed tools) are passed through
 * as they are — the guard cannot hold what it does not run.
 */
export function guard<TOOLS extends ToolSet>(tools: TOOLS, session: GuardSession, options: GuardOptions = {}): TOOLS {
  if (typeof tools !== "object" || tools === null) throw new StalwartError("InputError", "`guard` needs the tool set (an object of AI SDK tools) as its first argument");
  const core = new CallGuard(session, options);
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(tools)) {
    const t = (tools as Record<string, unknown>)[name] as { execute?: AnyExecute; needsApproval?: AnyNeedsApproval } & Record<string, unknown>;
    const execute = t?.execute;
    define(out, name, typeof execute === "function" ? guarded(name, t, execute, core) : t);
  }
  guards.set(out, core);
  return out as TOOLS;
}

/**
 * For `ai` 7's `generateText({ toolApproval })`: the check decides, and a `confirm` asks the
 * person with the check's own question as the approval request's `reason`. Tools not guarded by
 * `guard` are left to their own settings.
 */
export function toolApproval(guardedTools: ToolSet): (options: { toolCall: { toolCallId: string; toolName: string; input: unknown }; messages: ModelMessage[]; toolsContext?: unknown }) => Promise<undefined | { type: "user-approval"; reason?: string }> {
  const core = guards.get(guardedTools);
  if (!core) throw new StalwartError("InputError", "`toolApproval` takes the tool set `guard` returned");
  return async ({ toolCall, messages, toolsContext }) => {
    if (!Object.prototype.hasOwnProperty.call(guardedTools, toolCall.toolName)) return undefined;
    const t = (guardedTools as Record<string, { execute?: unknown }>)[toolCall.toolName];
    if (typeof t?.execute !== "function") return undefined;
    await noteDenials(core, messages);
    void core.syncTurns(userTexts(messages));
    const v = await core.check(toolCall.toolCallId, toolCall.toolName, toolCall.input, askOf(messages, toolCall.toolCallId).asked);
    if (v.decision === "confirm") return { type: "user-approval", reason: v.question };
    // An allowed call the tool itself wants a person for is asked about too (the hook replaces it).
    const own = owns.get(t);
    if (v.decision !== "allow" || own === undefined) return undefined;
    const context = typeof toolsContext === "object" && toolsContext !== null && Object.prototype.hasOwnProperty.call(toolsContext, toolCall.toolName) ? (toolsContext as Record<string, unknown>)[toolCall.toolName] : undefined;
    const ownAsks = () => (typeof own === "function" ? own(toolCall.input, { toolCallId: toolCall.toolCallId, messages, context }) : own);
    return (await toolAsks(core, toolCall.toolCallId, v.check, ownAsks, askOf(messages, toolCall.toolCallId).approved)) ? { type: "user-approval" } : undefined;
  };
}

/**
 * For `generateText({ onStart })` / `streamText({ onStart })`: a call a person denied
 * (`approved: false`) is marked rejected in the approvals store before the SDK answers it, so
 * the messages saved when they were asked, approved later, run nothing. The SDK tells no tool of
 * a denial; without this the guard learns of one only when a later hook of its tools sees it.
 */
export function watchDenials(guardedTools: ToolSet): (event: { messages?: readonly ModelMessage[] }) => Promise<void> {
  const core = guards.get(guardedTools);
  if (!core) throw new StalwartError("InputError", "`watchDenials` takes the tool set `guard` returned");
  return (event) => noteDenials(core, event?.messages);
}

/** The guard behind a guarded tool set (its approvals store, for saving beside the session). */
export function guardOf(guardedTools: ToolSet): CallGuard | undefined {
  return guards.get(guardedTools);
}

function guarded(name: string, t: Record<string, unknown>, execute: AnyExecute, core: CallGuard): Record<string, unknown> {
  const own = t.needsApproval as AnyNeedsApproval | undefined;
  const needsApproval = async (input: unknown, o: { toolCallId: string; messages?: ModelMessage[] } & Record<string, unknown>): Promise<boolean> => {
    await noteDenials(core, o.messages);
    void core.syncTurns(userTexts(o.messages));
    // A call that was asked about stays one: its approval (or its reuse) is `execute`'s to judge.
    const asked = askOf(o.messages, o.toolCallId).asked;
    if (await core.waiting(o.toolCallId, name, input, asked)) return true;
    const v = await core.check(o.toolCallId, name, input, asked);
    if (v.decision === "confirm") return true;
    // An allowed call the tool itself wants a person for is asked about too (and holds nothing
    // until the approval comes); a refused one is not asked (the model reads why instead).
    if (v.decision !== "allow" || own === undefined) return false;
    return toolAsks(core, o.toolCallId, v.check, () => (typeof own === "function" ? own(input, o) : own), askOf(o.messages, o.toolCallId).approved);
  };
  /** Checked before the original runs: the allowed check, or a refusal the model reads. */
  const admit = async (input: unknown, o: { toolCallId: string; messages?: ModelMessage[] } & Record<string, unknown>): Promise<Verdict["check"]> => {
    const id = o.toolCallId;
    await noteDenials(core, o.messages);
    await core.syncTurns(userTexts(o.messages));
    const ask = askOf(o.messages, id);
    let v: Verdict = await core.check(id, name, input, ask.asked);
    if (v.decision === "confirm") {
      if (!ask.approved) {
        core.settle(id);
        throw new ToolCallRefused(`${v.question}\n\nThis call waits for a person's approval, and none was given; it did not run.`, v.check);
      }
      v = await core.approved(id, name, input);
    }
    if (v.decision === "refuse") {
      core.settle(id);
      throw new ToolCallRefused(v.message, v.check);
    }
    core.take(id, name, input);
    return v.check;
  };
  const run = async (input: unknown, o: { toolCallId: string; messages?: ModelMessage[] } & Record<string, unknown>): Promise<unknown> => {
    const check = await admit(input, o);
    let result: unknown;
    try {
      result = await execute(input, o);
      // A plain function that hands back a stream: its last value is the result.
      if (isAsyncIterable(result)) {
        let last: unknown;
        for await (const x of result) last = x;
        result = last;
      }
    } catch (err) {
      core.settle(o.toolCallId);
      await core.failed(check);
      throw err;
    }
    core.settle(o.toolCallId);
    return passedOn(core, name, check, result);
  };
  // A streaming tool (`async function*`) stays one: what it yields reaches the model as it comes.
  const stream = async function* (input: unknown, o: { toolCallId: string; messages?: ModelMessage[] } & Record<string, unknown>): AsyncGenerator<unknown> {
    const check = await admit(input, o);
    yield* relay(execute(input, o) as AsyncIterable<unknown>, check, o.toolCallId, core, name);
  };
  const streams = Object.prototype.toString.call(execute) === "[object AsyncGeneratorFunction]";
  const out = { ...t, needsApproval, execute: streams ? stream : run };
  if (own !== undefined) owns.set(out, own);
  return out;
}

/**
 * A streaming tool: what the model gets is passed on as it comes; the last value is the result.
 * A read with a `filter` yields only its last value, filtered: a value before it could hold records
 * the filter drops.
 */
async function* relay(stream: AsyncIterable<unknown>, check: Verdict["check"], id: string, core: CallGuard, name: string): AsyncGenerator<unknown> {
  const filtered = filters(core.catalogue, name);
  let last: unknown;
  try {
    for await (const x of stream) {
      last = x;
      if (!filtered) yield x;
    }
  } catch (err) {
    core.settle(id);
    await core.failed(check);
    throw err;
  }
  core.settle(id);
  const passed = await passedOn(core, name, check, last);
  if (filtered) yield passed;
}

/** What of an allowed call's result the model gets (filter.ts), the call reported `ran`; withheld, the model reads why. */
async function passedOn(core: CallGuard, name: string, check: Verdict["check"], result: unknown): Promise<unknown> {
  const passed = await passOn(core.session, core.catalogue, name, check.step, result);
  await core.ran(check, "withheld" in passed ? undefined : passed.value);
  if ("withheld" in passed) throw new Error(passed.withheld);
  return passed.value;
}

/** The person's messages, as text (text parts of one message joined by a line break). */
export function userTexts(messages: readonly ModelMessage[] | undefined): string[] {
  const out: string[] = [];
  for (const m of messages ?? []) {
    if (m?.role !== "user") continue;
    const text = typeof m.content === "string" ? m.content : Array.isArray(m.content) ? m.content.flatMap((p) => (p?.type === "text" && typeof p.text === "string" ? [p.text] : [])).join("\n") : "";
    if (text.trim() !== "") out.push(text);
  }
  return out;
}

/**
 * Was the person asked about this tool call, and did they approve it? Only the latest call under
 * the id counts: a provider may reuse ids (`call_0` in every response), so a tool call or a tool
 * result under the id ends what was asked before it — an earlier call's approval answers nothing
 * of a later one. `approved` implies `asked`; a denial of the same question wins over an approval
 * sent beside it.
 */
function askOf(messages: readonly ModelMessage[] | undefined, toolCallId: string): { asked: boolean; approved: boolean } {
  let asked = false;
  let approved = false;
  let denied = false;
  const requests = new Set<string>();
  for (const m of messages ?? []) {
    if (!Array.isArray(m?.content)) continue;
    for (const p of m.content as readonly { type?: unknown; toolCallId?: unknown; approvalId?: unknown; approved?: unknown }[]) {
      if ((p?.type === "tool-call" || p?.type === "tool-result") && p.toolCallId === toolCallId) {
        asked = approved = denied = false;
        requests.clear();
      } else if (m.role === "assistant" && p?.type === "tool-approval-request" && p.toolCallId === toolCallId && typeof p.approvalId === "string") {
        asked = true;
        requests.add(p.approvalId);
      } else if (m.role === "tool" && p?.type === "tool-approval-response" && typeof p.approvalId === "string" && requests.has(p.approvalId)) {
        if (p.approved === true) approved = true;
        else denied = true;
      }
    }
  }
  return { asked, approved: approved && !denied };
}

function isAsyncIterable(x: unknown): x is AsyncIterable<unknown> {
  return typeof x === "object" && x !== null && typeof (x as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function";
}

function define(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}
