/**
 * Every step module on its own, from data (test/steps/units.yaml): a step is a pure function of
 * plain data, so a case gives the call, the verified history and the earlier holds, and the test
 * asserts the contribution the step returns — its verdict, or the holds, counter needs and notes
 * of a pass.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { loadCatalogue, compileRulebook, canonicalize, type CompiledCatalogue, type Entry } from "../../worker/portable/engine/index.js";
import { reach } from "../../worker/portable/engine/check/steps/reach.js";
import { STEPS, type StepName } from "../../worker/portable/engine/check/orchestrator.js";
import { normaliseCall } from "../../worker/portable/engine/check/normalise.js";
import type { CheckFacts, Hold, LicenceGate, StepResult } from "../../worker/portable/engine/check/types.js";
import { HistoryIndex } from "../../worker/portable/engine/history/index.js";
import { TurnIndex } from "../../worker/portable/engine/origins/typed.js";
import { joinedResults } from "../../worker/portable/engine/conditions/read.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";

const REPO = join(import.meta.dirname, "../..");
const sha = (s: string) => createHash("sha256").update(s).digest("hex");
const valueDigest = (v: unknown) => sha(canonicalize(v)).slice(0, 32);

type Short =
  | { check: string; decision: "allow" | "confirm" | "refuse"; values?: Record<string, unknown>; undo_of?: number; labels?: string[]; agent?: string; link?: string }
  | { report: number; outcome: "ran" | "failed" | "outcome_unknown" | "compensated"; result?: unknown }
  | { turn: string };

interface UnitCase {
  step: StepName;
  catalogue?: string;
  rulebook?: string;
  licence?: LicenceGate;
  historyInvalid?: string;
  /** what the runtime keeps for the session (state/changes.ts) */
  kept?: { spent?: string[]; tallies?: Record<string, number> };
  history?: Short[];
  holds?: Hold[];
  call: { tool: string; args: unknown; origins?: Record<string, string>; labels?: Record<string, string[]>; confirmation?: string; undoOf?: number; facts?: Record<string, unknown> };
  expect: Record<string, unknown>;
}

const catalogues = new Map<string, CompiledCatalogue>();
function catalogueAt(file: string): CompiledCatalogue {
  let c = catalogues.get(file);
  if (!c) catalogues.set(file, (c = loadCatalogue(readFileSync(join(REPO, file), "utf8"), { file, schemaCompiler: ajvCompiler })));
  return c;
}

/** Short history forms as the signed entries the index reads (links are not read by steps). */
function entries(short: Short[]): Entry[] {
  return short.map((s, step): Entry => {
    if ("turn" in s) return { v: 1, step, at: 0, kind: "turn", text: s.turn, link: "" };
    if ("report" in s) return { v: 1, step, at: 0, kind: "report", of: s.report, outcome: s.outcome, result: s.result ?? null, link: "" };
    const values = Object.fromEntries(Object.entries(s.values ?? {}).map(([k, v]) => [k, valueDigest(v)]));
    return {
      v: 1, step, at: 0, kind: "check", tool: s.check, agent: s.agent ?? null, args: "0".repeat(64), origins: "0".repeat(64),
      labels: s.labels ?? [], decision: s.decision, reasons: [], confirmed: null, undo_of: s.undo_of ?? null, values, link: s.link ?? "",
    };
  });
}

function run(c: UnitCase): StepResult {
  const catalogue = catalogueAt(c.catalogue ?? "examples/shop/agent.yaml");
  const history = entries(c.history ?? []);
  const index = new HistoryIndex(catalogue, history);
  const turns = new TurnIndex("en");
  for (const e of history) if (e.kind === "turn") turns.add(e.text);
  const facts: CheckFacts = {
    catalogue, history, sessionId: "s-unit", turns, context: {}, now: Date.UTC(2031, 5, 1), index,
    openToken: () => null,
    from: joinedResults((t) => index.lastResult.get(t), (t, arg, v) => index.resultWhere(t, arg, valueDigest(v))),
    valueDigest, taintModelAfterUntrusted: false,
    kept: { spent: new Set(c.kept?.spent ?? []), tallies: c.kept?.tallies ?? {} },
    ...(c.licence ? { licence: c.licence } : {}),
    ...(c.historyInvalid ? { historyInvalid: c.historyInvalid } : {}),
    ...(c.rulebook ? { rulebook: compileRulebook(readFileSync(join(REPO, c.rulebook), "utf8"), { file: c.rulebook, catalogue }) } : {}),
  };
  const call = normaliseCall(c.call.tool, c.call.args, {
    ...(c.call.origins ? { origins: c.call.origins } : {}), ...(c.call.labels ? { labels: c.call.labels } : {}),
    ...(c.call.confirmation ? { confirmation: c.call.confirmation } : {}), ...(c.call.undoOf !== undefined ? { undoOf: c.call.undoOf } : {}),
    ...(c.call.facts ? { facts: c.call.facts } : {}),
  }, null, sha);
  const tool = catalogue.tools.get(call.tool);
  if (c.step === "reach") return reach(call, facts, tool);
  if (!tool) throw new Error(`case names a tool the catalogue lacks: ${call.tool}`);
  const step = STEPS.find((s) => s.name === c.step);
  if (!step) throw new Error(`no step named ${c.step}`);
  return step.run(call, { ...facts, tool, holds: c.holds ?? [] });
}

const cases = parse(readFileSync(join(import.meta.dirname, "units.yaml"), "utf8")) as UnitCase[];

describe("each step module, from data", () => {
  it("covers every step of the order", () => {
    expect(new Set(cases.map((c) => c.step))).toEqual(new Set(["reach", ...STEPS.map((s) => s.name)]));
  });
  for (const [i, c] of cases.entries()) {
    it(`${c.step} #${i}: ${c.call.tool} → ${String(c.expect.kind)} ${String(c.expect.reason ?? c.expect.reasons ?? "")}`, () => {
      const got = run(c);
      expect(got).toMatchObject(c.expect);
      // a pass that names nothing to add adds nothing
      if (c.expect.kind === "pass") for (const k of ["holds", "counters", "note"] as const) if (!(k in c.expect)) expect(got, k).not.toHaveProperty(k);
    });
  }
});
