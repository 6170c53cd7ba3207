/**
 * What a replay found, for people and for machines: each call's decision, then per predicate
 * (reason code) how many calls it held and which — the essay's post-hoc job: "find the predicates
 * to add" and "measure each predicate's false-positive rate" (seed 003).
 *
 * A predicate holds a call when the call is refused with it or confirmed with it among its reasons.
 * The person's judgement comes from the trace: `verdict` when given, else `approved` (true: fine,
 * false: not fine). A held call judged fine is a false positive of every predicate that held it;
 * the rate is over the held calls the trace judges.
 */
import type { CheckResult } from "../../worker/portable/engine/index.js";
import type { ReplayedCall, ReplayResult } from "./replay.js";
import { jsonVisible, oneLine } from "../../worker/portable/approvals/visible.js";

interface CallReport {
  id: string;
  session: string;
  tool: string;
  decision: CheckResult["decision"];
  reasons: string[];
  detail: Record<string, unknown>;
  step: number;
  /** the answer when the approval's token was presented, or null */
  after_approval: { decision: CheckResult["decision"]; reasons: string[]; detail: Record<string, unknown>; step: number } | null;
  /** what the trace says the person did */
  approved: boolean | null;
  verdict: "fine" | "harmful" | null;
  /** the replay allowed it (directly or after the approval) */
  would_run: boolean;
  /** the trace reports an outcome, but the replay did not allow the call */
  would_not_have_run: boolean;
  /** the outcomes the trace reports for it, in order */
  outcomes: string[];
}

interface PredicateReport {
  reason: string;
  /** how many calls it held (refused or confirmed) */
  held: number;
  calls: string[];
  /** how many of those the person approved or marked fine: its false positives */
  approved: number;
  /** how many of those the trace judges (approved true/false, or a verdict) */
  judged: number;
  /** approved / judged; null when the trace judges none of them */
  false_positive_rate: number | null;
}

interface Totals {
  calls: number;
  allowed: number;
  confirmed: number;
  refused: number;
  /** confirmed calls the person approved that the replay then allowed */
  approved: number;
  would_not_have_run: number;
}

export interface Report {
  v: 1;
  trace: string;
  sessions: { name: string; language: string | null; calls: number }[];
  calls: CallReport[];
  predicates: PredicateReport[];
  /** calls no predicate held that the person marked harmful or declined: predicates to add */
  missed: string[];
  totals: Totals;
}

export function buildReport(r: ReplayResult): Report {
  const calls = r.calls.map(callReport);
  const rows = new Map<string, PredicateReport>();
  const missed: string[] = [];
  const totals: Totals = { calls: calls.length, allowed: 0, confirmed: 0, refused: 0, approved: 0, would_not_have_run: 0 };
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i]!;
    const judged = judgement(r.calls[i]!);
    if (c.decision === "allow") totals.allowed++;
    else if (c.decision === "confirm") totals.confirmed++;
    else totals.refused++;
    if (c.decision === "confirm" && c.after_approval?.decision === "allow") totals.approved++;
    if (c.would_not_have_run) totals.would_not_have_run++;
    const held = heldBy(c);
    if (held.length === 0 && judged === "not_fine") missed.push(c.id);
    for (const reason of held) {
      let row = rows.get(reason);
      if (!row) rows.set(reason, (row = { reason, held: 0, calls: [], approved: 0, judged: 0, false_positive_rate: null }));
      row.held++;
      row.calls.push(c.id);
      if (judged !== null) row.judged++;
      if (judged === "fine") row.approved++;
    }
  }
  for (const row of rows.values()) row.false_positive_rate = row.judged === 0 ? null : row.approved / row.judged;
  const predicates = [...rows.values()].sort((a, b) => b.held - a.held || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0));
  return { v: 1, trace: r.trace.file, sessions: r.sessions, calls, predicates, missed, totals };
}

function callReport(c: ReplayedCall): CallReport {
  const a = c.afterApproval;
  return {
    id: c.id,
    session: c.session,
    tool: c.tool,
    decision: c.check.decision,
    reasons: [...c.check.reasons],
    detail: c.check.detail,
    step: c.check.step,
    after_approval: a ? { decision: a.decision, reasons: [...a.reasons], detail: a.detail, step: a.step } : null,
    approved: c.approved ?? null,
    verdict: c.verdict ?? null,
    would_run: c.allowedStep !== null,
    would_not_have_run: c.allowedStep === null && c.outcomes.length > 0,
    outcomes: c.outcomes.map((o) => o.outcome),
  };
}

/** The reasons that held a call: its refusal or confirm reasons, and those of a re-check after approval. */
function heldBy(c: CallReport): string[] {
  const out = c.decision === "allow" ? [] : [...c.reasons];
  const a = c.after_approval;
  if (a && a.decision !== "allow") for (const r of a.reasons) if (!out.includes(r)) out.push(r);
  return out;
}

function judgement(c: ReplayedCall): "fine" | "not_fine" | null {
  if (c.verdict) return c.verdict === "fine" ? "fine" : "not_fine";
  if (c.approved === undefined) return null;
  return c.approved ? "fine" : "not_fine";
}

// — text —

/** Short detail after a reason: `argument_origin (amount)`, `argument_schema (/note additionalProperties)`. */
function reasonText(reason: string, d: Record<string, unknown>): string {
  const list = (v: unknown) => (Array.isArray(v) && v.length > 0 ? v.map(String).join(", ") : undefined);
  let note: string | undefined;
  if (reason === "argument_origin") note = list(d.arguments);
  else if (reason === "argument_schema") note = [typeof d.pointer === "string" ? d.pointer || "/" : undefined, typeof d.rule === "string" ? d.rule : undefined].filter(Boolean).join(" ") || undefined;
  else if (reason === "undeclared_destination") note = list(d.destinations);
  else if (reason === "tainted_call") note = list(d.labels);
  else if (typeof d.rule === "string" && (reason === "order_rule" || reason.startsWith("condition_") || reason.startsWith("compensation_"))) note = d.rule;
  return note ? `${reason} (${note})` : reason;
}

function answerText(a: { decision: string; reasons: string[]; detail: Record<string, unknown> }): string {
  return [a.decision, a.reasons.map((r) => reasonText(r, a.detail)).join(", ")].filter(Boolean).join(" ");
}

/** `c1 refund_card: confirm argument_origin (amount); approved → allow confirmed` */
function callLine(c: CallReport): string {
  let line = `${c.id} ${c.tool}: ${answerText(c)}`;
  if (c.after_approval) {
    line += `; approved → ${answerText(c.after_approval)}`;
    if (c.after_approval.decision !== "allow" && typeof c.after_approval.detail.confirmation === "string") line += ` (token ${c.after_approval.detail.confirmation.replace(/_/g, " ")})`;
  } else if (c.approved === false) line += "; declined";
  if (c.verdict) line += `; marked ${c.verdict}`;
  if (c.would_not_have_run) line += `; would not have run (the trace reports: ${c.outcomes.join(", ")})`;
  return line;
}

const MAX_IDS = 12;

function ids(list: readonly string[]): string {
  if (list.length <= MAX_IDS) return list.join(" ");
  return `${list.slice(0, MAX_IDS).join(" ")} … (+${list.length - MAX_IDS} more)`;
}

function percent(x: number): string {
  return `${Math.round(x * 100)}%`;
}

/** The whole human-readable report. */
export function formatReport(report: Report): string {
  const out: string[] = [];
  let k = 0;
  for (const info of report.sessions) {
    if (out.length > 0) out.push("");
    out.push(`session ${info.name}${info.language ? ` (${info.language})` : ""}`);
    // a session's calls follow each other in report.calls, in trace order
    for (let j = 0; j < info.calls; j++) out.push(callLine(report.calls[k++]!));
  }
  out.push("");
  if (report.predicates.length === 0) out.push("no predicate held a call");
  else {
    const head = ["predicate", "held", "false positives", "calls"];
    const rows = report.predicates.map((p) => [
      p.reason,
      String(p.held),
      p.false_positive_rate === null ? "–" : `${p.approved} of ${p.judged} (${percent(p.false_positive_rate)})`,
      ids(p.calls),
    ]);
    const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const fmt = (r: string[]) =>
      r.map((cell, i) => (i === r.length - 1 ? cell : i === 1 ? cell.padStart(width[i]!) : cell.padEnd(width[i]!))).join("  ").trimEnd();
    out.push(fmt(head), ...rows.map(fmt));
    out.push("false positives: held calls the person approved or marked fine, of those the trace judges");
  }
  out.push("");
  const t = report.totals;
  out.push(`${t.calls} call${t.calls === 1 ? "" : "s"}: ${t.allowed} allowed, ${t.confirmed} confirmed (${t.approved} approved), ${t.refused} refused`);
  if (report.missed.length) out.push(`held by no predicate, yet marked harmful or declined: ${ids(report.missed)} — a predicate to add?`);
  const notRun = report.calls.filter((c) => c.would_not_have_run).map((c) => c.id);
  if (notRun.length) out.push(`would not have run, though the trace reports an outcome: ${ids(notRun)}`);
  // Tool names, session names and details are the trace's, and so the model's: each line on one
  // line, hidden characters named, so none can forge a line of the report or conceal one (audit 7, F11).
  return out.map(oneLine).join("\n") + "\n";
}

/** `--json` as printed: JSON whose hidden characters are `\uXXXX` escapes (the same values), so none acts on the terminal. */
export function reportJsonText(report: Report): string {
  return jsonVisible(JSON.stringify(reportJson(report), null, 2)) + "\n";
}

/** `--json`: the report, with the brief's keys first. */
export function reportJson(report: Report): unknown {
  return {
    v: report.v,
    trace: report.trace,
    sessions: report.sessions,
    calls: report.calls,
    predicates: report.predicates,
    missed: report.missed,
    totals: report.totals,
  };
}
