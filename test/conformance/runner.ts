/**
 * The one conformance runner: a case is data (test/conformance/cases/*.yaml) — a catalogue, a
 * sequence of turns, checks, reports, history edits, clock moves and resumes, with the expected
 * decision, reasons and detail of each check. Drivers (in-process SDK, the worker over HTTP, …)
 * run the same files; a driver-specific skip names its reason.
 */
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

export const CASES_DIR = join(dirname(fileURLToPath(import.meta.url)), "cases");
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export interface SessionSpec {
  name?: string;
  taintModelAfterUntrusted?: boolean;
  rulebook?: string;
  language?: "en" | "pt-BR";
  context?: Record<string, unknown>;
  agent?: string;
}

export interface Expect {
  decision: "allow" | "confirm" | "refuse";
  reasons: string[];
  /** each key must equal (deeply) the answer's detail key */
  detail?: Record<string, unknown>;
  /** the detail's wording must contain each of these */
  wording_contains?: string[];
  /** the detail's wording must end with this */
  wording_ends_with?: string;
  /** keys the detail must not have (e.g. `bundles`, answered only with `explain`) */
  detail_absent?: string[];
}

/** A check that is not answered but refused as input: the typed error's `code` and `pointer`. */
export interface ExpectError {
  code: string;
  pointer?: string;
}

export interface CheckSpec {
  tool: string;
  args?: unknown;
  origins?: Record<string, string>;
  labels?: Record<string, string[]>;
  confirmation?: string;
  agent?: string;
  undoOf?: number | string;
  facts?: Record<string, unknown>;
  explain?: boolean;
}

export type CaseStep =
  | { read: string; in?: string }
  | { check: CheckSpec; in?: string; expect: Expect; save?: string; note?: string }
  | { check: CheckSpec; in?: string; expect_error: ExpectError; note?: string }
  /** checks asked at once, none awaited before the next is asked; answered one at a time in the order asked */
  | { together: { check: CheckSpec; expect: Expect }[]; in?: string; expect_entries?: number; note?: string }
  | { report: { step: number | string; outcome: string; result?: unknown }; in?: string }
  | { advance: string }
  | { history: HistoryEdit; in?: string }
  | { resume: true; in?: string }
  /** keep a copy of the session as it is now (what `toJSON()` gives) under a name */
  | { snapshot: string; in?: string }
  /** resume a kept copy as another session of the case (a fork, an older snapshot, a second process) */
  | { resume_snapshot: string; as: string };

export type HistoryEdit =
  | { set: { index: number; field: string; value: unknown } }
  | { remove: number }
  | { swap: [number, number] }
  | { truncate: number }
  | { replace_with: string }
  | { splice_from: { session: string; index: number } };

export interface Case {
  name: string;
  description?: string;
  /** a path relative to the repo root, or an inline catalogue object */
  catalogue: string | object;
  session?: SessionSpec;
  sessions?: Record<string, SessionSpec>;
  clock?: string;
  skip?: Record<string, string>;
  steps: CaseStep[];
  file?: string;
}

/** What a driver must provide: the SDK's shape (in-process `Client` or `Client({url})`). */
export interface DriverSession {
  read(text: string): Promise<unknown>;
  checkToolCall(tool: string, args: unknown, options?: Record<string, unknown>): Promise<{ decision: string; reasons: string[]; detail: Record<string, unknown>; confirmation?: string; step: number }>;
  report(step: number, outcome: string, result?: unknown): Promise<unknown>;
  history: { entries: unknown[] };
  toJSON(): unknown;
}
export interface Driver {
  name: string;
  /** called at the start of each case: counters are per tenant/home, so each case gets its own */
  newCase?(c: Case): void;
  session(name: string, opts: Record<string, unknown>, now: () => Date): DriverSession;
  resume(saved: unknown, opts: { catalogue: string | object; rulebook?: string }, now: () => Date): DriverSession;
}

export function loadCases(): Case[] {
  const files = readdirSync(CASES_DIR).filter((f) => /\.(ya?ml|json)$/.test(f)).sort();
  const out: Case[] = [];
  for (const f of files) {
    const text = readFileSync(join(CASES_DIR, f), "utf8");
    const doc = f.endsWith(".json") ? JSON.parse(text) : parse(text);
    const list: Case[] = Array.isArray(doc) ? doc : [doc];
    for (const c of list) out.push({ ...c, file: f });
  }
  return out;
}

const UNITS: Record<string, number> = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3 };
function duration(s: string): number {
  const m = /^(-?\d+)(s|m|h|d)$/.exec(s); // negative: the clock set back
  if (!m) throw new Error(`bad duration \`${s}\``);
  return Number(m[1]) * UNITS[m[2]!]!;
}

export interface StepOutcome {
  index: number;
  note?: string;
  expected: Expect;
  actual: { decision: string; reasons: string[]; detail: Record<string, unknown> };
}

/**
 * Run a case; returns every check's expected and actual answer (the caller asserts). `years`
 * moves the case's clock that many calendar years (same month, day and time), to show that
 * nothing in the check reads the wall clock.
 */
export async function runCase(c: Case, driver: Driver, opts: { years?: number } = {}): Promise<StepOutcome[]> {
  driver.newCase?.(c);
  const start = new Date(c.clock ?? "2026-11-29T12:00:00Z");
  if (opts.years) start.setUTCFullYear(start.getUTCFullYear() + opts.years);
  let clock = start.getTime();
  const now = () => new Date(clock);
  const catalogue = typeof c.catalogue === "string" ? join(REPO, c.catalogue) : c.catalogue;
  const specs: Record<string, SessionSpec> = c.sessions ?? { main: c.session ?? {} };
  const first = Object.keys(specs)[0]!;
  const sessions = new Map<string, DriverSession>();
  const rulebookOf = (spec: SessionSpec) => (spec.rulebook ? { rulebook: join(REPO, spec.rulebook) } : {});
  for (const [key, spec] of Object.entries(specs)) {
    const { name, rulebook: _r, ...options } = spec; // the name is session()'s first argument, not an option
    sessions.set(key, driver.session(name ?? key, { catalogue, ...options, ...rulebookOf(spec) }, now));
  }
  const saved = new Map<string, { step: number; confirmation?: string }>();
  const ref = (v: unknown): unknown => {
    if (typeof v !== "string" || !v.startsWith("$")) return v;
    const [name, field] = v.slice(1).split(".");
    const s = saved.get(name!);
    if (!s) throw new Error(`case refers to unsaved \`${name}\``);
    return field === "step" ? s.step : s.confirmation;
  };
  const out: StepOutcome[] = [];
  const snapshots = new Map<string, unknown>();
  for (let i = 0; i < c.steps.length; i++) {
    const step = c.steps[i]!;
    const key = ("in" in step && step.in) || first;
    const session = sessions.get(key);
    if (!session) throw new Error(`step ${i} names unknown session \`${key}\``);
    if ("read" in step) await session.read(step.read);
    else if ("advance" in step) clock += duration(step.advance);
    else if ("report" in step) await session.report(ref(step.report.step) as number, step.report.outcome, step.report.result);
    else if ("resume" in step) sessions.set(key, driver.resume(JSON.parse(JSON.stringify(session.toJSON())), { catalogue, ...rulebookOf(specs[key]!) }, now));
    else if ("history" in step) editHistory(session, step.history, sessions);
    else if ("snapshot" in step) snapshots.set(step.snapshot, JSON.parse(JSON.stringify(session.toJSON())));
    else if ("resume_snapshot" in step) {
      const copy = snapshots.get(step.resume_snapshot);
      if (copy === undefined) throw new Error(`step ${i} resumes unknown snapshot \`${step.resume_snapshot}\``);
      sessions.set(step.as, driver.resume(structuredClone(copy), { catalogue, ...rulebookOf(specs[key] ?? {}) }, now));
    }
    else if ("together" in step) {
      const answers = await Promise.all(step.together.map((t) => session.checkToolCall(t.check.tool, t.check.args ?? {}, optionsOf(t.check, ref))));
      answers.forEach((r, j) => out.push({ index: i, note: `${step.note ?? "together"} #${j}`, expected: step.together[j]!.expect, actual: { decision: r.decision, reasons: r.reasons, detail: r.detail } }));
      if (step.expect_entries !== undefined && session.history.entries.length !== step.expect_entries) {
        throw new Error(`step ${i}: the history has ${session.history.entries.length} entries, expected ${step.expect_entries}`);
      }
    } else if ("check" in step && "expect_error" in step) {
      const k = step.check;
      const thrown = await session.checkToolCall(k.tool, k.args ?? {}, optionsOf(k, ref)).then(
        (r) => new Error(`step ${i}: expected ${step.expect_error.code}, got ${r.decision} ${JSON.stringify(r.reasons)}`),
        (err: unknown) => err,
      );
      const e = thrown as { code?: unknown; pointer?: unknown; message?: unknown };
      if (e.code !== step.expect_error.code || (step.expect_error.pointer !== undefined && e.pointer !== step.expect_error.pointer)) {
        throw new Error(`step ${i}${step.note ? ` (${step.note})` : ""}: expected ${JSON.stringify(step.expect_error)}, got ${String(e.code)} at ${String(e.pointer)}: ${String(e.message)}`);
      }
    } else if ("check" in step) {
      const k = step.check;
      const r = await session.checkToolCall(k.tool, k.args ?? {}, optionsOf(k, ref));
      if (step.save) saved.set(step.save, { step: r.step, ...(r.confirmation ? { confirmation: r.confirmation } : {}) });
      out.push({ index: i, ...(step.note ? { note: step.note } : {}), expected: step.expect, actual: { decision: r.decision, reasons: r.reasons, detail: r.detail } });
    } else throw new Error(`step ${i} has no known kind`);
  }
  return out;
}

function optionsOf(k: CheckSpec, ref: (v: unknown) => unknown): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  if (k.origins) options.origins = k.origins;
  if (k.labels) options.labels = k.labels;
  if (k.confirmation !== undefined) options.confirmation = ref(k.confirmation);
  if (k.agent !== undefined) options.agent = k.agent;
  if (k.undoOf !== undefined) options.undoOf = ref(k.undoOf);
  if (k.facts !== undefined) options.facts = k.facts;
  if (k.explain !== undefined) options.explain = k.explain;
  return options;
}

function editHistory(session: DriverSession, edit: HistoryEdit, sessions: Map<string, DriverSession>): void {
  const entries = session.history.entries as Record<string, unknown>[];
  if ("set" in edit) entries[edit.set.index]![edit.set.field] = edit.set.value;
  else if ("remove" in edit) entries.splice(edit.remove, 1);
  else if ("swap" in edit) {
    const [a, b] = edit.swap;
    const t = entries[a]!;
    entries[a] = entries[b]!;
    entries[b] = t;
  } else if ("truncate" in edit) entries.length = edit.truncate;
  else if ("replace_with" in edit) session.history.entries = JSON.parse(JSON.stringify(sessions.get(edit.replace_with)!.history.entries));
  else if ("splice_from" in edit) {
    const other = sessions.get(edit.splice_from.session)!.history.entries;
    entries[edit.splice_from.index] = JSON.parse(JSON.stringify(other[edit.splice_from.index]));
  }
}

/** Deep subset comparison for `detail`: every expected key must be present and equal. */
export function detailMismatches(expected: Record<string, unknown> | undefined, actual: Record<string, unknown>): string[] {
  if (!expected) return [];
  const problems: string[] = [];
  for (const [k, v] of Object.entries(expected)) {
    if (JSON.stringify(actual[k]) !== JSON.stringify(v)) problems.push(`detail.${k}: expected ${JSON.stringify(v)}, got ${JSON.stringify(actual[k])}`);
  }
  return problems;
}

/** The assertions every driver makes on every check of a case (vitest's `expect` passed in). */
export function assertOutcomes(outcomes: StepOutcome[], expect: (value: unknown, message?: string) => any): void {
  for (const o of outcomes) {
    const where = `step ${o.index}${o.note ? ` (${o.note})` : ""}`;
    expect({ decision: o.actual.decision, reasons: o.actual.reasons }, where).toEqual({ decision: o.expected.decision, reasons: o.expected.reasons });
    expect(detailMismatches(o.expected.detail, o.actual.detail), where).toEqual([]);
    for (const w of o.expected.wording_contains ?? []) expect(String(o.actual.detail.wording), where).toContain(w);
    for (const k of o.expected.detail_absent ?? []) expect(Object.keys(o.actual.detail), `${where}: detail.${k} is not answered`).not.toContain(k);
    if (o.expected.wording_ends_with) expect(String(o.actual.detail.wording).endsWith(o.expected.wording_ends_with), `${where}: ${String(o.actual.detail.wording)}`).toBe(true);
  }
}
