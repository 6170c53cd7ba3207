/**
 * What the gateway says: the tool result a refused or waiting call comes back as (so the model
 * reads why, and the host reads the decision in `_meta`), and the question a person is asked.
 */
import { cutText, type CheckResult, type InferredOrigin } from "../../worker/portable/engine/index.js";
import { nameVisible, oneLine, visible } from "../../worker/portable/approvals/visible.js";

/** The `_meta` key of the gateway's own answers (never added to a forwarded result). */
const META_KEY = "stalwart-agents/check";

export interface ToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

export function errorResult(text: string, check?: Partial<CheckResult> & Record<string, unknown>): ToolResult {
  return { content: [{ type: "text", text }], isError: true, ...(check ? { _meta: { [META_KEY]: check } } : {}) };
}

/**
 * A fault inside the check (the store, the clock, the history, the home's key) as the refusal it
 * is (fail closed), with the error's stable code and hint when it has them: `KeyChanged` tells the
 * person to restart the gateway, which a bare `internal_error` did not say in any field a host reads.
 */
export function faultCheck(err: unknown): CheckResult {
  const e = err as { message?: unknown; code?: unknown; hint?: unknown } | null | undefined;
  const detail: Record<string, unknown> = { message: typeof e?.message === "string" ? e.message : String(err) };
  if (err instanceof Error && typeof e?.code === "string") detail.code = e.code;
  if (err instanceof Error && typeof e?.hint === "string") detail.hint = e.hint;
  return { decision: "refuse", reasons: ["internal_error"], detail, step: -1 };
}

/** One line per reason, with the detail a person or a model can act on, hidden characters named. */
export function refusalText(tool: string, r: CheckResult): string {
  const d = r.detail;
  const parts: string[] = [];
  for (const reason of r.reasons) {
    switch (reason) {
      case "argument_schema":
        parts.push(`argument_schema: the argument at \`${String(d.pointer ?? "")}\` breaks \`${String(d.rule ?? "")}\`${d.message ? ` (${String(d.message)})` : ""}`);
        break;
      case "undeclared_destination":
        parts.push(`undeclared_destination: ${JSON.stringify(d.destinations ?? [])} may not be sent to by ${tool}`);
        break;
      case "order_rule":
        parts.push(`order_rule: ${String(d.rule ?? "")}`);
        break;
      case "unknown_tool": {
        // in the catalogue but outside the agent's reach (agents.yaml): the agent is named
        const near = Array.isArray(d.nearest) && d.nearest.length > 0 ? ` (did you mean ${d.nearest.map((n) => `\`${String(n)}\``).join(" or ")}?)` : "";
        parts.push(typeof d.agent === "string" ? `unknown_tool: \`${tool}\` is not among agent \`${d.agent}\`'s tools${near}` : `unknown_tool: \`${tool}\` is not in the catalogue${near}`);
        break;
      }
      case "internal_error":
        parts.push(`internal_error${typeof d.code === "string" ? ` (${d.code})` : ""}${d.message ? `: ${String(d.message)}` : d.wording ? `: ${String(d.wording)}` : ""}${typeof d.hint === "string" ? ` — ${d.hint}` : ""}`);
        break;
      case "spend_exceeded":
        parts.push(
          d.per === "call"
            ? `spend_exceeded: ${String(d.amount)}${money(d)} is over the ceiling of ${String(d.at_most)}${money(d)} per call`
            : `spend_exceeded: ${String(d.used)} of ${String(d.at_most)}${money(d)} per ${String(d.per)} is used (pool \`${String(d.pool)}\`), and ${String(d.amount)} more would pass it`,
        );
        break;
      case "limit_reached":
        parts.push(`limit_reached: ${String(d.limit)}${d.used !== undefined ? `, ${String(d.used)} used` : ""}`);
        break;
      default: {
        // a reason with neither message nor wording says what its detail holds (`why`, else the fields)
        const said = d.message ?? d.wording ?? d.why ?? (Object.keys(d).length > 0 ? cutText(JSON.stringify(d), 300) : undefined);
        parts.push(`${reason}${said !== undefined ? `: ${String(said)}` : ""}`);
      }
    }
  }
  // one line per reason whatever its detail holds (a message quoting the model's value), and
  // hidden characters named: a host shows this text to a person too, and the model rereads it
  return `stalwart refused ${oneLine(tool)}, and it did not run.\n${parts.map(oneLine).join("\n")}`;
}

/** " USD" after an amount, when the tool names its currency */
function money(d: Record<string, unknown>): string {
  return typeof d.currency === "string" && d.currency !== "" ? ` ${d.currency}` : "";
}

/**
 * "read_file's result (step 3, content)": the tool a person knows, and the step the history and the trace
 * use (outside audit 25, F9: a step number alone said nothing to the person).
 */
function resultName(step: string, tool: string | undefined, path?: string): string {
  // the path's names are the tool server's: hidden characters named, as in every other name shown
  const at = path ? visible(path) : "";
  if (tool === undefined) return `step ${step}'s result${at ? ` (${at})` : ""}`;
  return `${nameText(tool)}'s result (step ${step}${at ? `, ${at}` : ""})`;
}

function originWords(o: InferredOrigin | undefined): string {
  if (!o) return "origin unknown";
  const labels = o.labels.length ? `; carries ${o.labels.join(", ")}` : "";
  const m = /^result:(\d+)(?:\.(.+))?$/.exec(o.origin);
  if (m) return `from ${resultName(m[1]!, o.tool, m[2])}${labels}`;
  // a result holds it too, but the model had sent it to the tool server first: said, not hidden (outside audit 25, F5)
  const echo = o.origin === "model" && o.sentBefore ? /^result:(\d+)/.exec(o.sentBefore) : null;
  if (echo) return `written by the model; ${resultName(echo[1]!, o.tool)} holds it too, but the model had sent it to the tool server before`;
  const words: Record<string, string> = { typed: "typed by you", reply: "your reply", context: "from the session's context", computed: "computed", model: "written by the model" };
  return (Object.prototype.hasOwnProperty.call(words, o.origin) ? words[o.origin] : o.origin) + labels;
}

/**
 * The check's own question: the tool, the exact arguments with where each came from, each reason's
 * wording. Hidden characters are named as the approvals page and `approvals show` name them (one
 * function, `visible`): the same call must read the same whichever way the person approves it.
 */
export function question(tool: string, args: Record<string, unknown>, origins: Record<string, InferredOrigin>, r: CheckResult, namespace?: string): string {
  // An Agents JS namespace is named: tools of one name in two namespaces read alike otherwise (outside audit 7, F14).
  const which = namespace === undefined ? tool : `${tool}, in namespace \`${nameText(namespace)}\`,`;
  const lines = [`${which} needs your approval before it runs.`, "", "Arguments:"];
  for (const k of Object.keys(args)) lines.push(`  ${nameText(k)} = ${visible(short(JSON.stringify(args[k])))}   (${originWords(origins[k])})`);
  if (Object.keys(args).length === 0) lines.push("  (none)");
  lines.push("", `Why (${r.reasons.join(", ")}): ${oneLine(String(r.detail.wording ?? ""))}`);
  return lines.join("\n");
}

/**
 * Why a presented token covered nothing (step 10's `detail.confirmation`), in words a person
 * reads: "not_ours" alone says nothing to them (outside audit 7, F4).
 */
export function tokenWords(code: string): string {
  switch (code) {
    case "not_ours": return "it was given in another conversation (another session)";
    case "other_call": return "the call changed after it was asked about (another tool, agent or arguments)";
    case "expired": return "it expired";
    case "used": return "it was used already (an approval covers one run of the call)";
    case "no_ask": return "the question it answers is not in this conversation's history (restarted, or another copy)";
    case "denied": return "a person denied or edited the call";
    default: return "it covers another call";
  }
}

/**
 * An argument's name as the person reads it. The model chooses names too (a schema that allows
 * more than it names): one with a line break could write its own "Why …" into the question, and
 * `аmount` (a Cyrillic а) would read as `amount` beside it (outside audit 11, F5). So a name that
 * is not plain ASCII letters, digits, `_`, `-` and `.` is shown quoted, on one line, every
 * character outside ASCII named (`"[U+0430]mount"`, `"t[U+3164]o"`).
 */
export function nameText(k: string): string {
  return /^[A-Za-z0-9_.-]+$/.test(k) ? k : nameVisible(oneLine(JSON.stringify(k)));
}

/**
 * A name someone else chose (a tool server's own `serverInfo.name`), quoted on one line and at most
 * 100 characters: unquoted, a name with line breaks could write a question of its own under ours.
 */
export function quotedName(s: string): string {
  const q = oneLine(JSON.stringify(s));
  return q.length > 100 ? `${cutText(q, 98)}…"` : q;
}

/**
 * What renders blank in a value's JSON (its line breaks and tabs are escapes there): Unicode's
 * white space (U+00A0, U+2000–U+200A, U+3000, …), the braille blank and the Hangul fillers.
 */
const BLANK_RUN = /[\s\u2800\u115F\u1160\u3164\uFFA0]{8,}/gu;

/** A run of blanks as its count: `[361 spaces]`, or `[361 blank characters: U+0020, U+00A0]`. */
function blankRun(run: string): string {
  if (/^ +$/.test(run)) return `[${run.length} spaces]`;
  const kinds = [...new Set(run)].map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`);
  return `[${run.length} blank characters: ${kinds.slice(0, 4).join(", ")}${kinds.length > 4 ? ", …" : ""}]`;
}

/**
 * A value's JSON as the question shows it: a run of 8 or more blank characters as its count
 * (padding must not push what matters out of sight, whether of spaces, em spaces or no-break
 * spaces between them: outside audit 9, F3), then, past 500 characters, its start and its end with
 * the full length between (the end of a long message is where a model hides its request).
 */
export function short(s: string | undefined): string {
  const t = s ?? "undefined";
  const runs = t.replace(BLANK_RUN, blankRun);
  if (runs.length <= 500) return runs;
  return `${cutText(runs, 380)}… (${t.length} characters) …${tail(runs, 100)}`;
}

/** The last `n` UTF-16 units of `s`, not starting inside a surrogate pair. */
function tail(s: string, n: number): string {
  let from = s.length - n;
  if (from > 0 && /[\uDC00-\uDFFF]/.test(s[from]!)) from++;
  return s.slice(Math.max(0, from));
}
