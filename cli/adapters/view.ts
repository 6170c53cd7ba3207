/**
 * The inference view of a session (engine `viewOfHistory`: its turns, and the calls that were
 * allowed and last reported `ran`), kept up to date entry by entry instead of rebuilt per call.
 *
 * A session's `history.entries` is a watched view: every read goes through a Proxy, and every
 * object read out of it is wrapped in one more (so edits are detected). Reading the two entries a
 * guarded call appends cost more than the rest of the guard together (profiled), so the entries
 * the guard's own operations append are not read back: the session's answer says where each went
 * (`own`), and the guard knows what it holds — the turn it read, the check's tool and decision,
 * the result it reported (a private copy, kept as the session keeps it: the fields the tool's
 * `returns` declares, by the same function). Only an allowed check's labels are not in the
 * answer; they are known to be none when nothing could have put one there (no `result:` origin,
 * no untrusted agent in the catalogue, no outside read in the session), else read. Entries
 * someone else appended (the host, another guard) are read, field by field.
 *
 * Results are also indexed by scalar value (engine `ResultIndex`), so inferring an argument
 * nobody typed looks it up instead of searching every recorded result.
 *
 * Same answer as `viewOfHistory` (test/adapters/view.test.ts compares them on random histories).
 * A new history (after `history_invalid`, or a resumed copy) is a new `entries` array: the entry
 * last seen is then compared (its link, or what the guard knows it holds), and a history that got
 * shorter or changed is read again from the start. An entry edited in place is not seen here —
 * and the check refuses that history (`history_invalid`) whatever was inferred.
 */
import { jsonData, prepareView, RecordedResults } from "../../worker/portable/engine/index.js";
import type { CompiledCatalogue, Decision, Entry, Language, Outcome, PreparedView } from "../../worker/portable/engine/index.js";

/** More new entries than this at once are read from a plain copy, when there is one. */
const BULK = 32;

/** What the guard knows of an entry its own operation appended. */
export type OwnEntry =
  | { kind: "turn"; text: string }
  | { kind: "check"; tool: string; decision: Decision; origins: Readonly<Record<string, string>> }
  | { kind: "report"; of: number; outcome: Outcome; tool: string; recorded: unknown };

export class HistoryMirror {
  private seen = 0;
  /** the `entries` array last read: a new one may be a new history */
  private array: readonly Entry[] | undefined;
  /** the last entry applied: its link when it was read, what the guard knew of it when it was its own */
  private last: { link: string } | { own: OwnEntry } | undefined;
  private turns: string[] = [];
  private folded: PreparedView["turns"] | undefined;
  private readonly recorded: RecordedResults;
  /** a `reads_outside` tool was checked (any decision): labels may come from it */
  private outside = false;

  /**
   * `plain`, when given: the same entries as plain data (a session's `toJSON().entries`, one
   * structured copy beneath the traps), read instead of the watched view when many entries are
   * new at once — a guard made for a session that already holds a long history.
   */
  constructor(
    private readonly catalogue: () => CompiledCatalogue,
    private readonly language: () => Language,
    private readonly context: Readonly<Record<string, unknown>>,
    private readonly plain?: () => readonly Entry[] | undefined,
  ) {
    this.recorded = new RecordedResults(catalogue);
  }

  view(entries: readonly Entry[]): PreparedView {
    this.catchUp(entries, entries.length);
    this.folded ??= prepareView({ language: this.language(), turns: this.turns, results: [], context: {} }).turns;
    return { turns: this.folded, results: this.recorded.results, context: this.context, index: this.recorded.index };
  }

  /** The turns read so far, as the person typed them. */
  turnTexts(entries: readonly Entry[]): readonly string[] {
    this.view(entries);
    return this.turns;
  }

  /**
   * The guard's own operation appended the entry at `step` (the session's answer). Everything
   * before it is read first; an entry read already (by a view taken meanwhile) is not taken twice.
   */
  own(entries: readonly Entry[], step: number, entry: OwnEntry): void {
    if (step < 0 || step >= entries.length) return;
    this.catchUp(entries, step);
    if (this.seen !== step) return;
    switch (entry.kind) {
      case "turn":
        this.addTurn(entry.text);
        break;
      case "check": {
        let labels: readonly string[] = [];
        if (entry.decision === "allow" && !this.unlabelled(entry.origins)) {
          const e = entries[step];
          if (e?.kind !== "check" || !Array.isArray(e.labels)) return; // not what the session said it wrote: read it when asked
          labels = e.labels;
        }
        this.addCheck(step, entry.tool, entry.decision, labels);
        break;
      }
      case "report": {
        const t = this.catalogue().tools.get(entry.tool);
        const kept = entry.recorded === undefined || !t ? null : (t.keepDeclared(entry.recorded) ?? null);
        this.addReport(entry.of, entry.outcome, kept);
        break;
      }
    }
    this.seen = step + 1;
    this.last = { own: entry };
  }

  /** Apply entries `seen` to `upTo`; a new or shorter history is first compared, and read from 0 if it changed. */
  private catchUp(entries: readonly Entry[], upTo: number): void {
    if (entries.length < this.seen || (entries !== this.array && this.seen > 0 && !this.continues(entries))) this.reset();
    this.array = entries;
    let from = entries;
    if (upTo - this.seen > BULK && this.plain) {
      const copy = this.plain();
      if (Array.isArray(copy) && copy.length === entries.length) from = copy;
    }
    for (let k = this.seen; k < upTo; k++) {
      const e = from[k]!;
      this.add(e);
      this.last = { link: e.link };
    }
    if (upTo > this.seen) this.seen = upTo;
  }

  /** Does `entries` hold, where the last applied entry was, that entry? */
  private continues(entries: readonly Entry[]): boolean {
    const e = entries[this.seen - 1];
    const last = this.last;
    if (!e || !last) return false;
    if ("link" in last) return e.link === last.link;
    const o = last.own;
    if (e.kind !== o.kind) return false;
    if (o.kind === "turn") return e.kind === "turn" && e.text === o.text;
    if (o.kind === "check") return e.kind === "check" && e.tool === o.tool && e.decision === o.decision;
    return e.kind === "report" && e.of === o.of && e.outcome === o.outcome;
  }

  /**
   * An allowed check carries no label when nothing could have given it one (origins/labels.ts):
   * the guard passes no labels, no argument came from a result, no agent of the catalogue is
   * untrusted, and nothing was read from outside (`taint_model_after_untrusted`).
   */
  private unlabelled(origins: Readonly<Record<string, string>>): boolean {
    if (this.outside) return false;
    for (const k of Object.keys(origins)) if (origins[k]!.startsWith("result:")) return false;
    for (const a of this.catalogue().agents.values()) if (a.trust === "untrusted") return false;
    return true;
  }

  /** Read once, field by field (each read of the watched view is a trap): only what the view keeps. */
  private add(e: Entry): void {
    switch (e.kind) {
      case "turn":
        return this.addTurn(e.text);
      case "check": {
        const decision = e.decision;
        return this.addCheck(e.step, e.tool, decision, decision === "allow" ? e.labels : []);
      }
      case "report": {
        const { outcome, of } = e;
        const r = e.result;
        return this.addReport(of, outcome, outcome === "ran" && r !== null && typeof r === "object" ? jsonData(r) : r);
      }
    }
  }

  private addTurn(text: string): void {
    this.turns.push(text);
    this.folded = undefined;
  }

  private addCheck(step: number, tool: string, decision: string, labels: readonly string[]): void {
    if (this.catalogue().tools.get(tool)?.readsOutside) this.outside = true;
    this.recorded.check(step, tool, decision, labels);
  }

  private addReport(of: number, outcome: string, result: unknown): void {
    this.recorded.report(of, outcome, result);
  }

  private reset(): void {
    this.seen = 0;
    this.last = undefined;
    this.turns = [];
    this.folded = undefined;
    this.recorded.clear();
    this.outside = false;
  }
}
