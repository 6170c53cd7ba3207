/**
 * `stalwart-agents/openai-agents`: OpenAI Agents JS's function tools, checked before they run
 * (docs/adapters.md).
 *
 *     const agent = guard(new Agent({ name: "billing", tools: [getOrder, refundCard], model }), session);
 *     let result = await run(agent, "refund 40.00 on order 4411");
 *     for (const item of result.interruptions) result.state.approve(item);   // the person said yes
 *     result = await run(agent, result.state);
 *
 * Tested with `@openai/agents` 0.20. The framework is never imported at run time: only its types.
 *
 * - the person's messages of each run (the agent's `agent_start` turn input) become turns — not
 *   those of a run as another agent's tool (`asTool`), which are the calling model's words;
 * - `needsApproval` asks the check: `confirm` is the run's interruption (`RunToolApprovalItem`);
 * - a tool input guardrail holds everything else: `refuse` rejects the call with the reasons as the
 *   tool's output (the model reads them) and the tool never runs; after `state.approve(item)` the
 *   call is checked again with the token the check minted — bound to the tool, the argument digest,
 *   the session and the ask, spent once — and rejected unless that allows it;
 * - `state.reject(item)`: the framework tells the model it was not approved; nothing ran, so
 *   nothing is reported, and the call's record is marked rejected (rejections.ts), so no later
 *   approval of it runs it;
 * - what runs is reported `ran` (with the result) or `failed` (the tool threw, or answered with
 *   the framework's default error message, or `isFailure` says so).
 *
 * A saved `RunState` resumes with its session: `client.resume(savedSession)`, the same approvals
 * store (`guard(agent, session, { approvals })`), then `RunState.fromString(agent, saved)`.
 */
import type { Agent, AgentInputItem, FunctionTool, RunContext, RunToolApprovalItem, Tool } from "@openai/agents";
import { CallGuard, ToolCallRefused, type GuardOptions, type GuardSession, type Verdict } from "../guard.js";
import { MemoryApprovals } from "../approvals.js";
import { toolAsks } from "../tool-asks.js";
import { passOn } from "../filter.js";
import { StalwartError } from "../../../worker/portable/engine/index.js";
import { calledNamespace, namespaceOf, otherNamespace, parseArgs } from "./calls.js";
import { jsonOrAsIs, keyOf, sameCall } from "../data.js";
import { nameText } from "../../gateway/words.js";
import { ownTool, watchRejections } from "./rejections.js";
import { asked, baseFor, isGuardedAgentTool, nestedRun, rememberTwin, waitsForPerson } from "./nested.js";

export { CallGuard, ToolCallRefused, MemoryApprovals };
export type { ApprovalStore, PendingApproval } from "../approvals.js";
export type { CheckEvent, GuardSession, Verdict } from "../guard.js";

/** The `@openai/agents` versions this adapter is tested with. */
export const SUPPORTED_AGENTS_VERSIONS = ["0.20"] as const;

/** What Agents JS's `tool()` answers with when `execute` throws and the tool has no `errorFunction`. */
export const DEFAULT_TOOL_ERROR = "An error occurred while running the tool. Please try again.";

export interface AgentsGuardOptions extends GuardOptions {
  /** which tool outputs are failures (a tool with its own `errorFunction` answers errors as output) */
  isFailure?: (output: unknown) => boolean;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- the framework's own tool and agent types are generic in `any` */
type AnyAgent = Agent<any, any>;
type AnyFunctionTool = FunctionTool<any, any, any>;

/**
 * The agent, guarded: a clone whose function tools, its MCP servers' tools included, are checked
 * before they run and whose runs read the person's messages as turns. Other tools (hosted, computer, shell) pass through: the
 * guard cannot hold what it does not run.
 */
export function guard<A extends AnyAgent>(agent: A, session: GuardSession, options: AgentsGuardOptions = {}): A {
  if (typeof agent !== "object" || agent === null || typeof (agent as { clone?: unknown }).clone !== "function") {
    throw new StalwartError("InputError", "`guard` needs an Agents JS `Agent` as its first argument (or use `guardTools` for a list of tools)");
  }
  const core = new CallGuard(session, options);
  const owner: Owner = {};
  const clone = agent.clone({ tools: wrapTools(agent.tools, core, options, owner) }) as A;
  owner.agent = clone;
  guardMcpTools(clone, core, options, owner);
  // Run as another agent's tool (`asTool`), the agent's input is the calling model's words, not the
  // person's: while such a run is under way its turns are not read (a concurrent run of the same
  // clone then reads none either, which only holds more).
  let nested = 0;
  const asTool = clone.asTool.bind(clone);
  Object.defineProperty(clone, "asTool", {
    value: (...args: Parameters<AnyAgent["asTool"]>) => {
      const t = asTool(...args);
      const invoke = t.invoke;
      const extracted = typeof args[0]?.customOutputExtractor === "function";
      Object.defineProperty(t, "invoke", {
        value: async (...a: Parameters<typeof invoke>) => {
          nested++;
          try {
            return await nestedRun(a[2]?.toolCall, extracted, () => invoke.apply(t, a));
          } finally {
            nested--;
          }
        },
        enumerable: true, writable: true, configurable: true,
      });
      rememberTwin(t, () => asTool(...args));
      return t;
    },
    enumerable: false, writable: true, configurable: true,
  });
  // Emitted when a run (or a resumed run) starts the agent, with the input of its turn.
  clone.on("agent_start", (_ctx: unknown, _agent: unknown, turnInput?: AgentInputItem[]) => {
    if (nested === 0) void core.syncTurns(userTexts(turnInput));
  });
  guards.set(clone, core);
  return clone;
}

/**
 * Function tools guarded for an agent the host builds itself. The person's turns are then the
 * host's to read (`session.read(text)` before `run`), or `readInput(tools, input)`.
 */
export function guardTools<T extends Tool<any>>(tools: readonly T[], session: GuardSession, options: AgentsGuardOptions = {}): T[] {
  if (!Array.isArray(tools)) throw new StalwartError("InputError", "`guardTools` needs an array of Agents JS tools as its first argument");
  const core = new CallGuard(session, options);
  const out = wrapTools(tools, core, options);
  guards.set(out, core);
  return out;
}

/** Read the person's messages of a run's input (a string or input items) as turns. */
export async function readInput(guarded: object, input: string | readonly AgentInputItem[]): Promise<void> {
  const core = guards.get(guarded);
  if (!core) throw new StalwartError("InputError", "`readInput` takes what `guard` or `guardTools` returned");
  await core.syncTurns(typeof input === "string" ? [input] : userTexts(input));
}

/** The guard behind a guarded agent or tool list (its approvals store, for saving with the RunState). */
export function guardOf(guarded: object): CallGuard | undefined {
  return guards.get(guarded);
}

/**
 * What to show the person for an interruption (outside audit 7, F6): the check's question — the
 * tool (and its namespace), each argument with where it came from and its hidden characters named
 * (`[U+202E]`, `[6 TAG characters … spelling "IGNORE"]`), and why it needs them. The item's own
 * arguments are the model's raw text. Undefined when the check did not ask about this call (your
 * tool's own `needsApproval` did, or the call's record is spent or gone): show the item then.
 * `guarded`: what `guard` or `guardTools` returned; a nested agent's item is its own agent's.
 */
export async function questionFor(guarded: object, item: Pick<RunToolApprovalItem, "rawItem" | "agent">): Promise<string | undefined> {
  const raw = item?.rawItem;
  if (raw?.type !== "function_call" || typeof raw.callId !== "string") return undefined;
  const core = (item.agent && guards.get(item.agent)) || guards.get(guarded);
  const p = await core?.pending(raw.callId);
  const ns = calledNamespace(raw);
  if (!p || p.used || p.tool !== raw.name || p.namespace !== ns || !sameCall(p, keyOf(raw.name, parseArgs(raw.arguments), ns))) return undefined;
  // A nested agent's call names its agent: two agents' tools of one name read alike otherwise (outside audit 15, F4).
  const by = item.agent && item.agent !== guarded ? (item.agent as { name?: unknown }).name : undefined;
  return typeof by === "string" && by !== "" ? p.question.replace(ASKED, (_, which: string) => `${which.replace(/,$/, "")}, for the agent ${nameText(by)}, needs your approval before it runs.`) : p.question;
}

const ASKED = /^(.*?) needs your approval before it runs\./;

const guards = new WeakMap<object, CallGuard>();

/** The guarded agent whose tools these are, once made (none for `guardTools`). */
interface Owner {
  agent?: object;
}

/**
 * An MCP server's tools (`mcpServers`) are function tools Agents JS makes at each turn in
 * `getAllTools`, never in `tools`: guarded as they are made (outside audit 15, F1: they ran
 * unchecked). Each made tool is wrapped once; a server's listing made again is wrapped again.
 */
function guardMcpTools(agent: AnyAgent, core: CallGuard, options: AgentsGuardOptions, owner: Owner): void {
  const made = agent.getMcpTools.bind(agent);
  const wrapped = new WeakMap<object, Tool<any>>();
  Object.defineProperty(agent, "getMcpTools", {
    value: async (...a: Parameters<AnyAgent["getMcpTools"]>) =>
      (await made(...a)).map((t) => {
        if (t.type !== "function") return t;
        let w = wrapped.get(t);
        if (!w) wrapped.set(t, (w = wrap(t as AnyFunctionTool, core, options, owner)));
        return w;
      }),
    enumerable: false, writable: true, configurable: true,
  });
}

function wrapTools<T extends Tool<any>>(tools: readonly T[], core: CallGuard, options: AgentsGuardOptions, owner: Owner = {}): T[] {
  return tools.map((t) => (t.type === "function" ? (wrap(t as AnyFunctionTool, core, options, owner) as T) : t));
}

function wrap(t: AnyFunctionTool, core: CallGuard, options: AgentsGuardOptions, owner: Owner): AnyFunctionTool {
  const name = t.name;
  const ns = namespaceOf(t);
  if (isGuardedAgentTool(t)) core.nested.resumable(name);
  const isFailure = options.isFailure ?? ((out: unknown) => out === DEFAULT_TOOL_ERROR);
  /** The host's `isFailure`: one that throws cannot say the call succeeded, so it is reported failed. */
  const failure = (out: unknown): boolean => {
    try {
      return Boolean(isFailure(out));
    } catch (err) {
      core.log(`isFailure threw for ${name}, so the call is reported failed: ${err instanceof Error ? err.message : String(err)}`);
      return true;
    }
  };

  const needsApproval = async (ctx: RunContext<any>, input: unknown, callId?: string): Promise<boolean> => {
    watchRejections(ctx);
    // Without a call id nothing can be bound to the approval: a person decides, and the guardrail checks.
    if (typeof callId !== "string") return ask();
    const answered = answerOf(ctx, name, callId, owner.agent) !== undefined;
    const v = await core.check(callId, name, input, answered, ns);
    if (v.decision === "confirm") return answered || ask();
    if (v.decision === "allow") {
      // The tool itself wants a person for it: it holds nothing until the approval comes.
      return (await toolAsks(core, callId, v.check, () => t.needsApproval(ctx, input as never, callId), answered)) && (answered || ask());
    }
    return false; // refused: the guardrail rejects it with the reasons, nobody is asked
  };
  /** A person is asked: a run this one is nested in (`asTool`) stops for them too. */
  const ask = (): true => (asked(), true);

  /** The call's verdict now: its first check, or — once the person approved it — the re-check with its token. */
  const verdictOf = async (ctx: RunContext<any>, call: { callId: string; name: string; namespace?: unknown }, args: unknown): Promise<Verdict> => {
    const callId = call.callId;
    const elsewhere = otherNamespace(call, name, ns);
    if (elsewhere !== undefined) return elsewhere;
    // A person's answer held before the check asked (a standing `alwaysApprove`, an edited call) answers nothing.
    // A verdict kept for the call (allow or refuse: the guardrail's, then `invoke`'s) is the
    // answer whatever the person's, so theirs is not looked up: Agents JS 0.20 reads a bare tool
    // name as JSON first, and the SyntaxError it throws and catches costs ~17 µs a lookup.
    const kept = core.keptVerdict(callId, name, args, ns);
    const answer = kept === undefined || kept.decision === "confirm" ? ctx.isToolApproved({ toolName: approvalName(call), callId }) : undefined;
    const v = await core.check(callId, name, args, answer !== undefined, ns);
    if (v.decision !== "confirm") return v;
    if (answer !== true) return v;
    return core.approved(callId, name, args, ns);
  };

  const guardrail = {
    type: "tool_input" as const,
    name: "stalwart-check",
    run: async ({ context, toolCall }: { context: RunContext<any>; toolCall: { callId: string; name: string; arguments: string; namespace?: unknown } }) => {
      const args = parseArgs(toolCall.arguments);
      if (args === undefined) return reject(`${name} did not run: its arguments are not JSON, or give a key twice.`);
      const v = await verdictOf(context, toolCall, args);
      // A confirm not approved yet is on its way to the person (pre-approval guardrails): let it ask.
      if (v.decision !== "refuse") return { behavior: { type: "allow" as const }, outputInfo: { decision: v.decision, reasons: v.check.reasons, step: v.check.step } };
      core.settle(toolCall.callId);
      return reject(v.message, v.check);
    },
  };

  const invoke = async (ctx: RunContext<any>, input: string, details?: Parameters<AnyFunctionTool["invoke"]>[2]): Promise<unknown> => {
    const call = details?.toolCall;
    const args = parseArgs(input);
    if (!call || args === undefined) return `${name} did not run: the call has no id, or its arguments are not JSON or give a key twice.`;
    // The guardrail has decided already (the verdict is kept by call id); this holds if it did not run.
    const v = await verdictOf(ctx, call, args);
    if (v.decision !== "allow") {
      core.settle(call.callId);
      return v.decision === "refuse" ? v.message : `${v.question}\n\nThis call waits for a person's approval; it did not run.`;
    }
    core.take(call.callId, name, args, true, ns);
    let out: unknown;
    try {
      out = await t.invoke(ctx, input, details);
    } catch (err) {
      core.settle(call.callId);
      await core.failed(v.check);
      throw err;
    }
    // An agent tool whose nested run waits for a person has not run yet: the framework invokes
    // this call again when it resumes, and that is the call checked here and reported.
    if (waitsForPerson(call)) {
      core.take(call.callId, name, args, false, ns);
      await core.waitsNested(call.callId, name, args, v);
      return out;
    }
    core.settle(call.callId);
    if (failure(out)) {
      await core.failed(v.check);
      return out;
    }
    // only what a read's `filter` keeps reaches the model (filter.ts); withheld, it reads why
    const result = jsonOrAsIs(out);
    const passed = await passOn(core.session, core.catalogue, name, v.check.step, result);
    await core.ran(v.check, "withheld" in passed ? undefined : passed.value);
    if ("withheld" in passed) return passed.withheld;
    return passed.value === result ? out : typeof out === "string" ? JSON.stringify(passed.value) : passed.value;
  };

  /**
   * The host's own guardrails run after ours: one that stops a call ours allowed (rejects it, trips,
   * or throws) means the tool never runs, so the allowed check is reported `failed` — its spend
   * and rate reservations released, nothing left open — and its verdict is let go.
   */
  const afterOurs = (g: NonNullable<AnyFunctionTool["inputGuardrails"]>[number]) => ({
    ...g,
    run: async (data: Parameters<typeof g.run>[0]) => {
      let out: Awaited<ReturnType<typeof g.run>>;
      try {
        out = await g.run(data);
      } catch (err) {
        await stopped(data.toolCall);
        throw err;
      }
      if (out?.behavior !== undefined && out.behavior.type !== "allow") await stopped(data.toolCall);
      return out;
    },
  });
  const stopped = async (toolCall: { callId: string; arguments: string }) => {
    const args = parseArgs(toolCall.arguments);
    const v = args === undefined ? undefined : core.keptVerdict(toolCall.callId, name, args, ns);
    if (v?.decision !== "allow") return;
    core.settle(toolCall.callId);
    await core.failed(v.check);
  };

  // A copy keeping everything the framework put on the tool (symbols included), with our three; an agent
  // tool a guarded agent made is copied onto one the framework made, so a saved RunState still finds its agent.
  // `isEnabled` is where a run context reaches the tool before a rejection can (rejections.ts).
  const enabled = t.isEnabled;
  const isEnabled = (ctx: RunContext<any>, agent: AnyAgent): Promise<boolean> => {
    watchRejections(ctx);
    return typeof enabled === "function" ? enabled.call(t, ctx, agent) : Promise.resolve(enabled !== false);
  };
  const copy = Object.defineProperties(baseFor(t), Object.getOwnPropertyDescriptors(t)) as AnyFunctionTool;
  Object.defineProperties(copy, {
    needsApproval: { value: needsApproval, enumerable: true, writable: true, configurable: true },
    invoke: { value: invoke, enumerable: true, writable: true, configurable: true },
    inputGuardrails: { value: [guardrail, ...(t.inputGuardrails ?? []).map(afterOurs)], enumerable: true, writable: true, configurable: true },
    isEnabled: { value: isEnabled, enumerable: true, writable: true, configurable: true },
  });
  ownTool(copy, { core, name, namespace: ns });
  return copy;
}

function reject(message: string, check?: Verdict["check"]) {
  return { behavior: { type: "rejectContent" as const, message }, outputInfo: check ? { decision: check.decision, reasons: check.reasons, step: check.step } : {} };
}

/**
 * The run's answer for this agent's call. Agents JS keeps a function call's approval per agent
 * (0.20: `isToolApproved` takes the agent, as the runner asks it); asked without one, it answers
 * with any agent's decision under that id — after a handoff, an earlier agent's approval of a call
 * whose id the next agent's model reused was taken for an answer to the new call, which was then
 * refused without anyone being asked.
 */
function answerOf(ctx: RunContext<any>, toolName: string, callId: string, agent: object | undefined): boolean | undefined {
  const query = agent === undefined ? { toolName, callId } : { toolName, callId, agent };
  return ctx.isToolApproved(query);
}

/**
 * The name Agents JS keeps a call's approval under: the tool's, or for a call of a namespaced tool
 * (`toolNamespace`, or a deferred one the model calls by its own name as namespace) the framework's
 * key for that call (0.20's `getFunctionToolStateKeyForCall`). Asked by the bare name, the
 * person's approval of such a call is not found, and the approved call never runs.
 */
function approvalName(call: { name: string; namespace?: unknown }): string {
  const ns = call.namespace;
  if (typeof ns !== "string" || ns === "") return call.name;
  return JSON.stringify(ns === call.name ? ["deferred_top_level", call.name] : ["namespaced", ns, call.name]);
}

/** A tool's output as the session records it: JSON text is read back into data. */
/** The person's messages among input items, as text. */
export function userTexts(items: readonly AgentInputItem[] | undefined): string[] {
  const out: string[] = [];
  for (const item of items ?? []) {
    const m = item as { role?: unknown; content?: unknown };
    if (m?.role !== "user") continue;
    const text = typeof m.content === "string" ? m.content : Array.isArray(m.content) ? (m.content as { type?: unknown; text?: unknown }[]).flatMap((p) => (p?.type === "input_text" && typeof p.text === "string" ? [p.text] : [])).join("\n") : "";
    if (text.trim() !== "") out.push(text);
  }
  return out;
}
