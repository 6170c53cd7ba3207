/**
 * What the later steps need to know about a verified history, kept up to date entry by entry so
 * a check costs the same at step 20 and at step 2,000 (steps 5, 6, 7, 9, 10, 11 read it).
 */
import type { CompiledCatalogue } from "../catalogue/types.js";
import type { CheckEntry, Entry, ReportEntry } from "./entry.js";

export class HistoryIndex {
  /** allowed check entries by tool, in order */
  readonly allowedByTool = new Map<string, number[]>();
  /** the last report on each check step */
  readonly lastReport = new Map<number, ReportEntry>();
  /** for each undone step, the allowed undos of it */
  readonly undosOf = new Map<number, number[]>();
  /** ask entries whose token was used */
  readonly usedAsks = new Set<number>();
  /** ask entries a person denied or edited (a receipt says so): their token covers nothing */
  readonly refusedAsks = new Set<number>();
  /** allowed calls of `reads_outside` tools, in order */
  readonly outsideReads: { step: number; tool: string }[] = [];
  /** the last `ran` result each tool returned: `{from: tool.field}` reads it */
  readonly lastResult = new Map<string, unknown>();
  /** the last `ran` result of each tool's call with an argument's value (by its digest): `{from, same}` reads it */
  private readonly joined = new Map<string, unknown>();
  /** the step of the person's last turn; a run is what follows it */
  lastTurn = -1;
  /** the steps of the person's turns, in order (signed.ts folds them without a pass over the history) */
  readonly turnSteps: number[] = [];
  /** allowed writes since the last turn */
  runWrites: number[] = [];

  private entries: readonly Entry[];

  constructor(private readonly catalogue: CompiledCatalogue, entries: readonly Entry[]) {
    this.entries = entries;
    for (const e of entries) this.add(e);
  }

  /** Index `entries` from now on: the list this index was built over, extended (signed.ts hands an index on). */
  rebind(entries: readonly Entry[]): void {
    this.entries = entries;
  }

  add(e: Entry): void {
    switch (e.kind) {
      case "turn":
        this.lastTurn = e.step;
        this.turnSteps.push(e.step);
        this.runWrites = [];
        return;
      case "check": {
        if (e.decision !== "allow") return;
        if (e.confirmed !== null) this.usedAsks.add(e.confirmed);
        let list = this.allowedByTool.get(e.tool);
        if (!list) this.allowedByTool.set(e.tool, (list = []));
        list.push(e.step);
        if (e.undo_of !== null) {
          let u = this.undosOf.get(e.undo_of);
          if (!u) this.undosOf.set(e.undo_of, (u = []));
          u.push(e.step);
        }
        const tool = this.catalogue.tools.get(e.tool);
        if (tool?.readsOutside) this.outsideReads.push({ step: e.step, tool: e.tool });
        if (tool && (tool.writes || tool.irreversible || tool.money) && e.undo_of === null) this.runWrites.push(e.step);
        return;
      }
      case "report": {
        this.lastReport.set(e.of, e);
        const checked = this.entries[e.of];
        if (e.outcome === "ran" && checked && checked.kind === "check" && checked.decision === "allow") {
          this.lastResult.set(checked.tool, e.result);
          // `values` is the caller's JSON: own entries only
          for (const arg of Object.keys(checked.values)) this.joined.set(joinKey(checked.tool, arg, checked.values[arg]!), e.result);
        }
        return;
      }
      case "receipt":
        if (e.decision !== "approve") this.refusedAsks.add(e.of);
        return;
    }
  }

  /** What the last call of `tool` whose `arg` had the value with this digest returned (ran), if any. */
  resultWhere(tool: string, arg: string, digest: string): unknown {
    return this.joined.get(joinKey(tool, arg, digest));
  }

  check(step: number): CheckEntry | undefined {
    const e = this.entries[step];
    return e && e.kind === "check" ? e : undefined;
  }

  /** An allowed call counts unless its caller reported it `failed`. */
  counts(step: number): boolean {
    return this.lastReport.get(step)?.outcome !== "failed";
  }

  /** Allowed, and reported `ran`. */
  ran(step: number): boolean {
    const c = this.check(step);
    return c !== undefined && c.decision === "allow" && this.lastReport.get(step)?.outcome === "ran";
  }
}

const joinKey = (tool: string, arg: string, digest: string) => `${tool}\u0000${arg}\u0000${digest}`;
