/**
 * What one answer changes in the session's kept state (state/store.ts): which names it spends and
 * which tallies it moves, so that "once" holds whatever history the host hands back — a fork, an
 * older snapshot, a restarted history (checks.md, "The session history"). Pure.
 *
 *   spent  "ask:<link>"   the ask entry whose token an allow consumed (step 10)
 *          "refused:<mac>" a token whose call a person denied or edited (written by the approval store)
 *   tally  "undo:<link>"  allowed undos of that entry not reported failed (once per session, step 6)
 *          "count:<tool>" allowed calls not reported failed, undos included (`at_most: N`, step 5)
 *          "seen:<tool>"  allowed calls of the tool, whatever their outcome (`not_after: [tool]`)
 *          "untrusted"    allowed reads of a `reads_outside` tool (`not_after: [untrusted]`)
 */
import type { CompiledCatalogue } from "../catalogue/types.js";
import type { CheckEntry, Entry, Outcome } from "../history/entry.js";

/** What the steps read of the kept state; empty when the engine keeps none. */
export interface KeptState {
  spent: ReadonlySet<string>;
  tallies: Readonly<Record<string, number>>;
}

export const NOTHING_KEPT: KeptState = Object.freeze({ spent: new Set<string>(), tallies: Object.freeze({}) });

export const askName = (link: string) => `ask:${link}`;
/**
 * A person denied or edited the call a token covers: its MAC (the part after its last dot), kept
 * spent by the approval store beside the receipt (cli/approvals/refusals.ts), so a host that
 * deletes the receipt cannot bring the token back.
 */
export const refusedName = (token: string) => `refused:${token.slice(token.lastIndexOf(".") + 1)}`;
export const undoName = (link: string) => `undo:${link}`;
export const countName = (tool: string) => `count:${tool}`;
export const seenName = (tool: string) => `seen:${tool}`;
export const UNTRUSTED = "untrusted";

export function tally(kept: KeptState, name: string): number {
  return Object.hasOwn(kept.tallies, name) ? (kept.tallies[name] ?? 0) : 0;
}

export interface KeptChange {
  spend: string[];
  tally: Record<string, number>;
}

/** A check entry's change: nothing unless it allowed the call. */
export function changeOfCheck(entry: CheckEntry, history: readonly Entry[], catalogue: CompiledCatalogue): KeptChange {
  // A plain object: every name here is prefixed ("seen:", "count:", "undo:") or "untrusted", so
  // none is `__proto__`; one without a prototype cost ~0.9 µs a check (V8 dictionary mode).
  const change: KeptChange = { spend: [], tally: {} };
  if (entry.decision !== "allow") return change;
  change.tally[seenName(entry.tool)] = 1;
  if (entry.confirmed !== null) {
    const ask = history[entry.confirmed];
    if (ask) change.spend.push(askName(ask.link));
  }
  if (entry.undo_of !== null) {
    const undone = history[entry.undo_of];
    if (undone) change.tally[undoName(undone.link)] = 1;
  }
  // an undo is a call of its tool too: its `at_most` counts it (step 5 checks an undo like any call)
  change.tally[countName(entry.tool)] = 1;
  if (catalogue.tools.get(entry.tool)?.readsOutside) change.tally[UNTRUSTED] = 1;
  return change;
}

/**
 * A report's change: `failed` gives back the call's `at_most` count (and an undo's mark: the undo
 * may be sent again); `ran` after `failed` takes them again, because the call happened.
 */
export function changeOfReport(checked: CheckEntry, outcome: Outcome, before: Outcome | undefined, history: readonly Entry[]): KeptChange {
  // plain, as changeOfCheck's: every name is prefixed
  const change: KeptChange = { spend: [], tally: {} };
  if (checked.decision !== "allow") return change;
  const undone = checked.undo_of !== null ? history[checked.undo_of] : undefined;
  const by = outcome === "failed" && before !== "failed" ? -1 : outcome === "ran" && before === "failed" ? 1 : 0;
  if (by === 0) return change;
  change.tally[countName(checked.tool)] = by;
  if (undone) change.tally[undoName(undone.link)] = by;
  return change;
}

/**
 * The tallies a whole verified history adds up to, as its answers moved them one by one: what a
 * restart carries over when the store keeps no record of the session (it forgot it after its idle
 * time, or never saw it). The history is ours (its links verify), so what it shows happened did;
 * a newer copy may show more, so this is a floor. Spent names are not carried: a restart leaves
 * the old asks and steps behind, and nothing of them can be spent from the new history.
 */
export function historyTallies(history: readonly Entry[], catalogue: CompiledCatalogue): Record<string, number> {
  const out: Record<string, number> = {};
  const add = (t: Record<string, number>) => {
    for (const name of Object.keys(t)) out[name] = Math.max(0, (Object.hasOwn(out, name) ? out[name]! : 0) + t[name]!);
  };
  const last = new Map<number, Outcome>();
  for (const e of history) {
    if (e.kind === "check") add(changeOfCheck(e, history, catalogue).tally);
    else if (e.kind === "report") {
      const checked = history[e.of];
      if (checked?.kind !== "check") continue;
      add(changeOfReport(checked, e.outcome, last.get(e.of), history).tally);
      last.set(e.of, e.outcome);
    }
  }
  return out;
}

/** `change` with `extra` tallies added (a restart's carried ones); `change` itself when there are none. */
export function withTallies(change: KeptChange, extra: Readonly<Record<string, number>> | undefined): KeptChange {
  if (extra === undefined) return change;
  const names = Object.keys(extra);
  if (names.length === 0) return change;
  const tally = { ...change.tally };
  for (const n of names) tally[n] = (Object.hasOwn(tally, n) ? tally[n]! : 0) + extra[n]!;
  return { spend: change.spend, tally };
}
