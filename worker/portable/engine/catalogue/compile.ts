/**
 * Step four of loading: a catalogue that linted clean becomes the immutable `CompiledCatalogue`
 * (types.ts) every check reuses — validators built, rules indexed by tool, destinations parsed,
 * conditions parsed, settings defaulted. Nothing here reports problems: lint already did.
 */
import type { CatalogueProblem, SourcePosition } from "../errors.js";
import { joinPointer } from "../schema/pointer.js";
import { compileCondition } from "./conditions.js";
import { parsePattern } from "../destinations/patterns.js";
import { catalogueDigest } from "./digest.js";
import { deepFreeze } from "./freeze.js";
import { entriesOf, isObj, type Obj } from "./lint-meaning.js";
import { closeArgs, closesArguments } from "./arguments.js";
import { declares, keepDeclaredBy } from "./paths.js";
import type {
  AfterRule, CompiledAgent, CompiledCatalogue, CompiledTask, CompiledTool, Condition, DestinationPattern, Filter,
  Language, Outcome, Period, RateLimit, SchemaCheck, SchemaCompiler, Settings, SpendCount, SpendRule,
} from "./types.js";

const DAY_MS = 24 * 60 * 60 * 1000;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: DAY_MS, w: 7 * DAY_MS };

/** `30m`, `12h`, `1d`, `7d` → milliseconds (the pattern was checked by lint). */
export function parseDuration(text: string): number {
  const m = /^([1-9][0-9]{0,5})([smhdw])$/.exec(text);
  return m ? Number(m[1]) * UNIT_MS[m[2]!]! : DAY_MS;
}

const DEFAULT_SETTINGS: Settings = { language: "en", taintPolicy: "confirm", onLicenceLapse: "reads_only", confirmationTtlMs: DAY_MS };

export interface CompileInput {
  data: Obj;
  file: string;
  position: (pointer: string) => SourcePosition;
  validators: Map<string, SchemaCheck>;
  /** lint's warnings, kept on the compiled catalogue for whoever loaded it to show */
  warnings?: readonly CatalogueProblem[];
  schemaCompiler: SchemaCompiler;
  sha256?: (b: Uint8Array) => Uint8Array;
}

export function compile(input: CompileInput): CompiledCatalogue {
  const { data, position } = input;
  let emptyArgs: SchemaCheck | undefined;
  const tools = new Map<string, CompiledTool>();
  const joinTargets = joinedTools(entriesOf(data));
  const periods = poolPeriods(entriesOf(data));
  for (const e of entriesOf(data)) {
    const t = e.raw;
    const at = (...segs: (string | number)[]) => joinPointer(e.pointer, ...segs);
    const cond = (list: unknown, ...segs: (string | number)[]): Condition[] =>
      Array.isArray(list) ? list.map((c, i) => compileCondition(c as Obj, at(...segs, i), position)) : [];

    const args = isObj(t.args) ? t.args : undefined;
    const effectiveArgs = args ? closeArgs(args) : undefined;
    const validateArgs = args ? input.validators.get(e.pointer)! : (emptyArgs ??= input.schemaCompiler({ type: "object", additionalProperties: false }));
    const returns = isObj(t.returns) ? t.returns : undefined;

    const after: AfterRule[] = Array.isArray(t.after)
      ? t.after.map((a) => (typeof a === "string" ? { tool: a } : { tool: String((a as Obj).tool), ...(isObj((a as Obj).bind) ? { bind: { ...((a as Obj).bind as Record<string, string>) } } : {}) }))
      : [];
    let atMostPerSession: number | undefined;
    const rateLimits: RateLimit[] = [];
    if (typeof t.at_most === "number") atMostPerSession = t.at_most;
    else for (const r of Array.isArray(t.at_most) ? t.at_most : isObj(t.at_most) ? [t.at_most] : []) {
      const limit = { count: Number((r as Obj).count), per: (r as Obj).per as Period };
      // two limits of one period are one count: the smaller holds (not each call counted twice)
      const same = rateLimits.findIndex((l) => l.per === limit.per);
      if (same < 0) rateLimits.push(limit);
      else rateLimits[same] = { count: Math.min(rateLimits[same]!.count, limit.count), per: limit.per };
    }

    let filter: Filter | undefined;
    if (isObj(t.filter)) filter = { each: String(t.filter.each), keep: cond(t.filter.keep, "filter", "keep"), unknown: t.filter.unknown === "pass" ? "pass" : "drop" };
    let outcome: Outcome | undefined;
    if (isObj(t.outcome)) {
      const o = t.outcome;
      outcome = {
        follow: String(o.follow),
        same: String(o.same),
        doneWhen: cond(o.done_when, "outcome", "done_when"),
        failedWhen: cond(o.failed_when, "outcome", "failed_when"),
        giveUpAfterMinutes: Number(o.give_up_after),
      };
    }
    const spend: SpendRule[] = Array.isArray(t.spend)
      ? t.spend.map((s) => {
          const r = s as Obj;
          return { field: String(r.field), atMost: Number(r.at_most), per: r.per as Period, ...(typeof r.pool === "string" ? { pool: r.pool } : {}) };
        })
      : [];
    let sendsOut: DestinationPattern[] | undefined;
    if (Array.isArray(t.sends_out)) {
      sendsOut = [];
      for (const d of t.sends_out) {
        const r = parsePattern(String(d));
        if (r.ok) sendsOut.push(r.pattern);
      }
    }

    const tool: CompiledTool = {
      name: e.name,
      writes: e.writes,
      irreversible: t.irreversible === true,
      money: t.money === true,
      ...(typeof t.undo === "string" ? { undo: t.undo } : {}),
      keepValues: typeof t.undo === "string" || joinTargets.has(e.name),
      ...(sendsOut ? { sendsOut } : {}),
      // an allow-list covers every argument of its tool: `lookup_args` exempt only where there is none
      lookupArgs: new Set(Array.isArray(t.lookup_args) && !sendsOut ? t.lookup_args.map(String) : []),
      readsOutside: t.reads_outside === true,
      trust: typeof t.trust === "string" ? t.trust : "trusted",
      confirm: t.confirm === "when_held" ? "when_held" : "always",
      after,
      notAfter: Array.isArray(t.not_after) ? t.not_after.map(String) : [],
      ...(atMostPerSession !== undefined ? { atMostPerSession } : {}),
      rateLimits,
      checks: cond(t.checks, "checks"),
      ...(filter ? { filter } : {}),
      spend,
      spendCounts: spendCounts(e.name, spend, periods),
      ...(typeof t.currency === "string" ? { currency: t.currency } : {}),
      ...(outcome ? { outcome } : {}),
      ...(args ? { argsSchema: args } : {}),
      validateArgs,
      argsClosed: effectiveArgs ? closesArguments(effectiveArgs) : true,
      ...(returns ? { returnsSchema: returns } : {}),
      returnsDeclares: (path: string) => declares(returns, path),
      keepDeclared: (result: unknown) => (returns ? keepDeclaredBy(returns, returns, result) : undefined),
      source: position(e.pointer),
      ...(e.kind === "http" ? { http: { method: String(t.method), path: String(t.path) } } : {}),
      ...(e.kind === "code" ? { code: { function: String(t.function) } } : {}),
    };
    tools.set(e.name, tool);
  }

  const agents = new Map<string, CompiledAgent>();
  if (Array.isArray(data.agents)) {
    for (const a of data.agents as Obj[]) {
      agents.set(String(a.name), { name: String(a.name), tools: new Set((a.tools as unknown[]).map(String)), trust: typeof a.trust === "string" ? a.trust : "trusted" });
    }
  }
  const tasks: CompiledTask[] = Array.isArray(data.tasks)
    ? (data.tasks as Obj[]).map((t) => ({ name: String(t.name), steps: t.steps === "all_at_once" ? "all_at_once" : "in_order", tools: (t.tools as unknown[]).map(String) }))
    : [];

  const s = isObj(data.settings) ? data.settings : {};
  const settings: Settings = {
    language: (s.language as Language | undefined) ?? DEFAULT_SETTINGS.language,
    taintPolicy: s.taint_policy === "refuse" ? "refuse" : "confirm",
    onLicenceLapse: s.on_licence_lapse === "refuse" ? "refuse" : "reads_only",
    confirmationTtlMs: typeof s.confirmation_ttl === "string" ? parseDuration(s.confirmation_ttl) : DEFAULT_SETTINGS.confirmationTtlMs,
  };

  return deepFreeze({
    settings,
    tools,
    agents,
    tasks,
    digest: catalogueDigest(data, input.sha256),
    file: input.file,
    warnings: [...(input.warnings ?? [])],
  });
}

/** The tools a `{from: tool.field, same: arg}` in some tool's `checks` joins on. */
function joinedTools(entries: readonly { raw: Obj }[]): Set<string> {
  const out = new Set<string>();
  const visit = (c: unknown, depth: number) => {
    if (!isObj(c) || depth > 20) return;
    if (Array.isArray(c.any)) for (const x of c.any) visit(x, depth + 1);
    for (const v of Object.values(c)) {
      if (isObj(v) && typeof v.from === "string" && typeof v.same === "string") out.add(v.from.slice(0, v.from.indexOf(".")));
    }
  };
  for (const e of entries) if (Array.isArray(e.raw.checks)) for (const c of e.raw.checks) visit(c, 0);
  return out;
}

const poolOf = (tool: string, r: { pool?: unknown }): string => (typeof r.pool === "string" ? r.pool : tool);

/** Every period (not `call`) any tool declares for each spend pool, in the catalogue's order. */
function poolPeriods(entries: readonly { name: string; raw: Obj }[]): Map<string, Exclude<Period, "call">[]> {
  const out = new Map<string, Exclude<Period, "call">[]>();
  for (const e of entries) {
    if (!Array.isArray(e.raw.spend)) continue;
    for (const s of e.raw.spend) {
      if (!isObj(s) || typeof s.per !== "string" || s.per === "call") continue;
      const pool = poolOf(e.name, s);
      const list = out.get(pool) ?? [];
      if (!list.includes(s.per as Exclude<Period, "call">)) list.push(s.per as Exclude<Period, "call">);
      out.set(pool, list);
    }
  }
  return out;
}

/**
 * A tool's spend as counts: one per period of each pool it names (`SpendCount`). The same field
 * declared twice for one period counts once, under the smaller ceiling.
 */
function spendCounts(tool: string, spend: readonly SpendRule[], periods: Map<string, Exclude<Period, "call">[]>): SpendCount[] {
  const out: SpendCount[] = [];
  const pools: string[] = [];
  // a per-call ceiling names a pool too: its amount counts in the pool's periods
  for (const r of spend) if (!pools.includes(poolOf(tool, r))) pools.push(poolOf(tool, r));
  for (const pool of pools) {
    const mine = spend.filter((r) => poolOf(tool, r) === pool);
    const fields = [...new Set(mine.map((r) => r.field))];
    for (const per of periods.get(pool) ?? []) {
      const ceilings = mine.filter((r) => r.per === per).map((r) => r.atMost);
      out.push({ pool, per, fields, atMost: ceilings.length > 0 ? Math.min(...ceilings) : null });
    }
  }
  return out;
}
