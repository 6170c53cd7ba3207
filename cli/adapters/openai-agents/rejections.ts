/**
 * A person's rejection of an interruption (`state.reject(item)`), told to the guard (outside audit
 * 7, F10). Agents JS 0.20 answers a rejected call itself, calling none of the tool's hooks
 * (`needsApproval`, guardrails, `invoke`: runner/toolExecution.mjs, `approval === false`), so the
 * token minted for the ask would stay good and the RunState saved at the ask, approved later, would
 * run the call. `state.reject` calls its run context's `rejectTool`; the framework hands that
 * context to every function tool's `isEnabled` when a state is read back (`RunState.fromString`)
 * and before each model turn, so each guarded tool's `isEnabled` wraps it once (`watchRejections`).
 * A rejected item whose agent holds one of our tools marks that call's record rejected — before
 * the framework records it, so a `rejectTool` that throws leaves the call refused, not approvable.
 */
import type { CallGuard } from "../guard.js";
import { calledNamespace, parseArgs } from "./calls.js";

interface Ours {
  core: CallGuard;
  name: string;
  namespace: string | undefined;
}

/** our guarded tool copies, with what they guard */
const ours = new WeakMap<object, Ours>();
/** run contexts whose `rejectTool` is wrapped already */
const watched = new WeakSet<object>();

export function ownTool(copy: object, o: Ours): void {
  ours.set(copy, o);
}

/** Wrap a run context's `rejectTool` (once), so that a rejection of one of our calls reaches its guard. */
export function watchRejections(ctx: unknown): void {
  if (typeof ctx !== "object" || ctx === null || watched.has(ctx)) return;
  const reject: unknown = (ctx as { rejectTool?: unknown }).rejectTool;
  if (typeof reject !== "function") return;
  watched.add(ctx);
  Object.defineProperty(ctx, "rejectTool", {
    value: function rejectTool(this: unknown, item: unknown, ...rest: unknown[]): unknown {
      noteRejection(item);
      return reject.call(this, item, ...rest);
    },
    enumerable: false, writable: true, configurable: true,
  });
}

function noteRejection(item: unknown): void {
  const { rawItem: raw, agent } = (typeof item === "object" && item !== null ? item : {}) as { rawItem?: { type?: unknown; callId?: unknown; name?: unknown; namespace?: unknown; arguments?: unknown }; agent?: { tools?: unknown } };
  if (raw?.type !== "function_call" || typeof raw.callId !== "string" || typeof raw.name !== "string") return;
  const tools: unknown = agent?.tools;
  if (!Array.isArray(tools)) return;
  const ns = calledNamespace({ name: raw.name, namespace: raw.namespace });
  const args = typeof raw.arguments === "string" ? parseArgs(raw.arguments) : undefined;
  for (const t of tools) {
    const o = typeof t === "object" && t !== null ? ours.get(t) : undefined;
    if (o && o.name === raw.name && o.namespace === ns) o.core.rejected(raw.callId, o.name, args, o.namespace);
  }
}
