/**
 * A pending record from a `confirm` (pure): what the person needs to decide — the exact arguments
 * with each one's origin and labels, the reasons in words, what the call adds to each counter —
 * and the token, whose claims give the digest, the ask step and the expiry.
 */
import { spendAmount } from "../check/spend-amount.js";
import type { CheckResult, Labels } from "../check/types.js";
import type { CompiledCatalogue } from "../catalogue/types.js";
import { sha256Hex } from "../canonical/sha256.js";
import { defineOwn, own } from "../canonical/own.js";
import { cloneData } from "../canonical/clone.js";
import { readClaims, sealedClaims } from "../tokens/confirmation.js";
import { isUntrustedLabel } from "../check/steps/labels.js";
import { stepOf } from "../origins/origins.js";
import type { ArgumentOrigin, CounterEffect, PendingRecord } from "./record.js";

export interface PendingInput {
  session: string;
  tool: string;
  args: Record<string, unknown>;
  check: CheckResult;
  origins?: Readonly<Record<string, string>> | undefined;
  labels?: Labels | undefined;
  catalogue?: CompiledCatalogue | undefined;
  now: number;
  /** the tool whose result a step is, for a `result:` origin's words on the page ("read_file's result") */
  resultTool?: ((step: number) => string | undefined) | undefined;
  /** SHA-256 of a text, hex, for the record's id: default the JavaScript one; a runtime with the WASM core passes its own (3× faster) */
  sha256Hex?: ((text: string) => string) | undefined;
}

/** The tool of the checked call at `step` of a history, for pendingFrom's `resultTool`. */
export function toolAt(entries: readonly { readonly kind?: unknown; readonly tool?: unknown }[], step: number): string | undefined {
  const e = Number.isSafeInteger(step) && step >= 0 ? entries[step] : undefined;
  return e?.kind === "check" && typeof e.tool === "string" ? e.tool : undefined;
}

/** The token's claims, read for display and binding (step 10 checks its MAC when it is spent). */
export function tokenClaims(token: string): { digest: string; exp: number; ask: number; agent: string | null; session: string; tool: string } | null {
  // the token the check has just sealed (a confirm's record is built right after it): its claims as sealed
  const c = sealedClaims(token) ?? readClaims(token);
  return c && { digest: c.digest, exp: c.exp, ask: c.ask, agent: c.agent, session: c.session, tool: c.tool };
}

/**
 * The id of a confirm's pending record, from its token: the worker creates the record as it
 * answers, and the remote SDK finds it from the answer alone (no field added to the answer).
 * A token names one ask of one session, so one token is one record.
 */
export function approvalIdOf(token: string, sha: (text: string) => string = sha256Hex): string {
  return `p_${sha(`stalwart-approval-id-v1.${token}`).slice(0, 16)}`;
}

/** A record for a confirm that carries a token, or null (nothing can be approved without one). */
export function pendingFrom(i: PendingInput): PendingRecord | null {
  const token = i.check.confirmation;
  if (i.check.decision !== "confirm" || !token) return null;
  const claims = tokenClaims(token);
  if (!claims || claims.session !== i.session || claims.tool !== i.tool) return null;
  const origins: PendingRecord["origins"] = {};
  const whole = i.labels ? (own(i.labels, "call") as readonly string[] | undefined) ?? [] : [];
  // the arguments the check held for where they came from (step 11): a trusted origin among them was claimed, not found
  const held = i.check.reasons.includes("argument_origin") && Array.isArray(i.check.detail.arguments) ? (i.check.detail.arguments as unknown[]) : [];
  for (const k of Object.keys(i.args)) {
    const mine = i.labels ? (own(i.labels, k) as readonly string[] | undefined) ?? [] : [];
    const origin = i.origins ? own(i.origins, k) : undefined;
    // (no labels, the usual case: no Set and arrays made to say so)
    const o: ArgumentOrigin = { origin: typeof origin === "string" ? origin : "missing", labels: whole.length === 0 && mine.length === 0 ? [] : [...new Set([...whole, ...mine])].sort() };
    // only these two are checked against the session (a turn, a result) rather than taken as said
    if (held.includes(k) && (o.origin === "typed" || o.origin.startsWith("result:")) && !o.labels.some(isUntrustedLabel)) o.doubted = true;
    const from = i.resultTool && o.origin.startsWith("result:") ? i.resultTool(stepOf(o.origin)) : undefined;
    if (typeof from === "string") o.tool = from;
    defineOwn(origins, k, o); // `__proto__` too: an argument's name is data
  }
  return {
    v: 1, id: approvalIdOf(token, i.sha256Hex), session: i.session, step: claims.ask, tool: i.tool, agent: claims.agent,
    args: cloneData(i.args), digest: claims.digest, origins, reasons: [...i.check.reasons],
    wording: typeof i.check.detail.wording === "string" ? i.check.detail.wording : "",
    counters: i.catalogue ? counterEffects(i.catalogue, i.tool, i.args) : [],
    token, created: i.now, expires: claims.exp,
  };
}

/** What the call adds to each spend ceiling and rate limit its tool declares (counts before it are the store's). */
export function counterEffects(catalogue: CompiledCatalogue, tool: string, args: Record<string, unknown>): CounterEffect[] {
  const t = catalogue.tools.get(tool);
  if (!t) return [];
  const out: CounterEffect[] = [];
  for (const s of t.spend) {
    const amount = spendAmount(args, s.field);
    if (amount === undefined) continue;
    out.push({ counter: `spend ${s.pool ?? t.name}${t.currency ? ` (${t.currency})` : ""}`, adds: amount, ceiling: s.atMost, per: s.per, before: null, after: null });
  }
  for (const r of t.rateLimits) out.push({ counter: `calls of ${t.name}`, adds: 1, ceiling: r.count, per: r.per, before: null, after: null });
  return out;
}
