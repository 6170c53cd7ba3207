/**
 * Step 11: every reason a write needs a person, together. A write with none of them is still
 * confirmed, by `write` — unless the tool declares `confirm: when_held`.
 * This module gathers `argument_origin`; `tainted_call` (step 9) and `gate_clarify` (step 8)
 * arrive in `input.holds`.
 * Egress provenance (checks.md, beyond the seed): a destination is egress whatever the tool's
 * class, so a destination argument of any tool — a read included — whose origin is not trusted
 * or that carries an untrusted label is confirmed with `argument_origin` naming it. Labels alone
 * still never hold a read.
 */
import { originProblems, originTrusted } from "../../origins/origins.js";
import { scanDestinations } from "../../destinations/index.js";
import { isUntrustedLabel } from "./labels.js";
import { PASS, argNamesOf, type Call, type StepInput, type Hold, type ReasonCode, type StepResult } from "../types.js";
import { isWrite } from "./classes.js";

const PIVOT_ENDING = "Nothing undoes this step, and the steps after it cannot undo it.";

export function confirmReasons(call: Call, input: StepInput): StepResult {
  const { tool, index } = input;
  if (call.undoOf !== undefined) {
    // A bound undo needs no person unless the rulebook asks about it (step 12 allows it).
    const asked = input.holds.filter((h) => h.reason === "gate_clarify");
    return asked.length ? confirmWith(asked, tool.name) : PASS;
  }
  const egress = egressProblems(call, input);
  // A read is never held by a label, but the rulebook may ask about it (step 8's gate_clarify),
  // and a destination it would send to must come from somewhere trusted.
  if (!isWrite(tool)) {
    const asked: Hold[] = input.holds.filter((h) => h.reason === "gate_clarify");
    if (egress.length > 0) asked.push(originHold(egress));
    return asked.length ? confirmWith(asked, tool.name) : PASS;
  }
  const holds: Hold[] = [];
  const origins = originProblems(call, input);
  // both lists are in argument order, so with no egress problem the origins' list is the union
  const untrusted = egress.length === 0 ? origins : argNamesOf(call).filter((a) => origins.includes(a) || egress.includes(a));
  if (untrusted.length > 0) holds.push(originHold(untrusted));
  for (let i = 0; i < input.holds.length; i++) holds.push(input.holds[i]!);
  if (tool.irreversible) {
    // Earlier writes of this run that would be undone if this one failed.
    const undoable = index.runWrites.filter((s) => {
      const w = index.check(s);
      return w !== undefined && input.catalogue.tools.get(w.tool)?.undo !== undefined && index.counts(s) && !(index.undosOf.get(s) ?? []).some((u) => index.counts(u));
    });
    if (undoable.length > 0) {
      holds.push({
        reason: "irreversible_pivot",
        detail: { undoable_steps: undoable },
        wording: `${tool.name} cannot be undone, and ${undoable.length} earlier step${undoable.length > 1 ? "s" : ""} of this run would be undone if it failed. ${PIVOT_ENDING}`,
      });
    }
  }
  if (!tool.argsClosed) {
    holds.push({ reason: "schema_partial", detail: { schema: "open" }, wording: `${tool.name} accepts arguments its schema does not name.` });
  }
  if (holds.length === 0) {
    if (tool.confirm === "when_held") return PASS;
    holds.push({ reason: "write", wording: `${tool.name} changes something.` });
  }
  return confirmWith(holds, tool.name);
}

function originHold(names: readonly string[]): Hold {
  return {
    reason: "argument_origin",
    detail: { arguments: [...names] },
    wording: names.length === 1 ? oneOriginWording(names[0]!) : `${names.map(nameShown).join(", ")} were not typed by you or taken from a trusted source.`,
  };
}

const PLAIN_NAME = /^[A-Za-z0-9_.:@$-]{1,64}$/;
const NAME_SHOWN = 48;

/**
 * An argument's name as the question shows it. Where a tool's schema is open the model picks the
 * names, and a name is in the person's question: a plain one (ASCII) is shown as it is; any
 * other quoted as JSON, cut, its backticks and every character outside printable ASCII escaped, so
 * it cannot close its quotes and speak for stalwart ("`x` is fine. Checked by stalwart: …",
 * outside audit 8, F1), nor pass for a declared name (`аmount` with a Cyrillic а: audit 11, F5).
 */
export function nameShown(name: string): string {
  if (PLAIN_NAME.test(name)) return `\`${name}\``;
  const cut = name.length > NAME_SHOWN;
  const json = JSON.stringify(cut ? name.slice(0, NAME_SHOWN) : name).replace(/[^\x20-\x5f\x61-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return cut ? `\`${json.slice(0, -1)}…"\` (${name.length} characters)` : `\`${json}\``;
}

/** The one-argument wording, kept per name (a few names recur; the map is dropped when it fills). */
function oneOriginWording(name: string): string {
  let w = oneOrigin.get(name);
  if (w === undefined) {
    if (oneOrigin.size >= 256) oneOrigin.clear();
    oneOrigin.set(name, (w = `${nameShown(name)} was not typed by you or taken from a trusted source.`));
  }
  return w;
}
const oneOrigin = new Map<string, string>();

/**
 * Arguments holding a destination whose origin is not trusted, or that carry an untrusted label.
 * Only a `sends_out` tool can get here with a destination: step 4 refused any other's.
 */
function egressProblems(call: Call, input: StepInput): string[] {
  if (!input.tool.sendsOut) return [];
  const callLabels = Object.hasOwn(call.labelsByArg, "call") ? (call.labelsByArg.call ?? []) : [];
  const out: string[] = [];
  for (const name of argNamesOf(call)) {
    const value = call.args[name];
    if (scanDestinations([name, value], NO_SKIP).length === 0) continue;
    const origin = Object.hasOwn(call.origins, name) ? call.origins[name] : undefined;
    const labels = Object.hasOwn(call.labelsByArg, name) ? (call.labelsByArg[name] ?? []) : [];
    if (!originTrusted(origin, value, input, call.tool, name) || labels.some(isUntrustedLabel) || callLabels.some(isUntrustedLabel)) out.push(name);
  }
  return out;
}

const NO_SKIP: ReadonlySet<string> = new Set();

function confirmWith(holds: Hold[], toolName: string): StepResult {
  // Order is the contract's list order, so answers compare stably: a stable insertion sort (a
  // handful of holds; Array.prototype.sort allocates its work space on every confirm).
  for (let i = 1; i < holds.length; i++) {
    const h = holds[i]!;
    const rank = ORDER.indexOf(h.reason);
    let j = i - 1;
    while (j >= 0 && ORDER.indexOf(holds[j]!.reason) > rank) {
      holds[j + 1] = holds[j]!;
      j--;
    }
    holds[j + 1] = h;
  }
  const detail: Record<string, unknown> = {};
  const reasons: ReasonCode[] = new Array(holds.length);
  // The pivot's question must end with its fixed sentence (checks.md), so it goes last.
  let pivot: Hold | undefined;
  let wording = "";
  for (let i = 0; i < holds.length; i++) {
    const h = holds[i]!;
    if (h.detail) Object.assign(detail, h.detail);
    reasons[i] = h.reason;
    if (pivot === undefined && h.reason === "irreversible_pivot") pivot = h;
    else wording += h.wording + " ";
  }
  detail.wording = wording + `Allow ${toolName}?` + (pivot ? " " + pivot.wording : "");
  return { kind: "confirm", reasons, detail };
}

const ORDER: ReasonCode[] = ["gate_clarify", "argument_origin", "tainted_call", "irreversible_pivot", "schema_partial", "write"];
