/**
 * A person's denial of a call (a `tool-approval-response` with `approved: false`), told to the
 * guard (outside audit 9, F2). The AI SDK answers a denied call itself (`execution-denied`) and
 * calls none of the tool's hooks, so the token minted for the ask would stay good, and the
 * messages saved when the person was asked, answered `approved: true` later (a second tab, a
 * retried request, another process), would run the call. Every hook of the guarded tools reads the
 * messages it is given for denials first, and `watchDenials(tools)`, as `generateText`'s or
 * `streamText`'s `onStart`, reads those of every call before the SDK answers any approval.
 */
import type { ModelMessage } from "ai";
import type { CallGuard } from "../guard.js";
import { jsonOrAsIs, keyOf } from "../data.js";

interface Call {
  toolName: unknown;
  input: unknown;
  /** the question denied (its approval id), or `execution-denied` when only the SDK's result says so */
  denied: string | undefined;
}

/** The calls the messages say a person denied: only the latest call under an id counts (ids may be reused). */
export function deniedCalls(messages: readonly ModelMessage[] | undefined): { toolCallId: string; toolName: string; input: unknown; question: string }[] {
  const calls = new Map<string, Call>();
  const asks = new Map<string, string>(); // approval id → the call id it asked about
  for (const m of messages ?? []) {
    if (!Array.isArray(m?.content)) continue;
    for (const p of m.content as readonly { type?: unknown; toolCallId?: unknown; toolName?: unknown; input?: unknown; approvalId?: unknown; approved?: unknown; output?: { type?: unknown } }[]) {
      if (typeof p !== "object" || p === null) continue;
      if (p.type === "tool-call" && typeof p.toolCallId === "string") {
        calls.set(p.toolCallId, { toolName: p.toolName, input: jsonOrAsIs(p.input), denied: undefined });
      } else if (m.role === "assistant" && p.type === "tool-approval-request" && typeof p.toolCallId === "string" && typeof p.approvalId === "string") {
        asks.set(p.approvalId, p.toolCallId);
      } else if (m.role === "tool" && p.type === "tool-approval-response" && p.approved !== true && typeof p.approvalId === "string") {
        // Not `true` is not an approval: the SDK denies what is falsy (0, null, none given), and
        // runs what is truthy, which the guard refuses ("true", 1): either way it did not run, and
        // an approval sent later from a copy saved at the ask must not run it (outside audit 11, F2).
        const id = asks.get(p.approvalId);
        const c = id === undefined ? undefined : calls.get(id);
        if (c) c.denied = p.approvalId;
      } else if (p.type === "tool-result" && typeof p.toolCallId === "string" && p.output?.type === "execution-denied") {
        const c = calls.get(p.toolCallId);
        if (c) c.denied ??= "execution-denied";
      }
    }
  }
  const out: { toolCallId: string; toolName: string; input: unknown; question: string }[] = [];
  for (const [toolCallId, c] of calls) if (c.denied !== undefined && typeof c.toolName === "string") out.push({ toolCallId, toolName: c.toolName, input: c.input, question: c.denied });
  return out;
}

/**
 * A call's input as the SDK reads it: a host that keeps messages may keep it as the model's JSON
 * text, and the record binds the parsed value (outside audit 11, F4).
 */
/** Denials the guard was told of already, by question (per guard: a long conversation is read again on every hook). */
const told = new WeakMap<CallGuard, Set<string>>();

/** Mark the record of each denied call in `messages` rejected (those of this very call, unspent). */
export async function noteDenials(core: CallGuard, messages: readonly ModelMessage[] | undefined): Promise<void> {
  let denied: ReturnType<typeof deniedCalls>;
  try {
    denied = deniedCalls(messages);
  } catch {
    return; // messages the SDK could not have sent either: nothing in them is a person's answer
  }
  if (denied.length === 0) return;
  let seen = told.get(core);
  if (!seen) told.set(core, (seen = new Set()));
  const waits: Promise<void>[] = [];
  for (const d of denied) {
    const key = `${d.toolCallId}\u0000${d.question}\u0000${keyOf(d.toolName, d.input) ?? ""}`;
    if (seen.has(key)) continue;
    if (seen.size >= 10_000) seen.clear();
    seen.add(key);
    waits.push(core.rejected(d.toolCallId, d.toolName, d.input)); // never rejects: a failure is logged
  }
  await Promise.all(waits);
}
