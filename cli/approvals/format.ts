/** `stalwart approvals list | show` as text (the page says the same in HTML). */
import { approvalStatus, type Approval } from "../../worker/portable/engine/index.js";
import { counterWords, originWords, statusWords, when } from "../../worker/portable/approvals/words.js";
import { nameVisible, visible } from "../../worker/portable/approvals/visible.js";

/** `unreadable`: how many records could not be read (each named on stderr): "nothing waits" would not be known. */
export function listText(all: readonly Approval[], now: number, unreadable = 0): string {
  if (all.length === 0) return unreadable > 0 ? `nothing that can be read waits for a person (${unreadable} record${unreadable === 1 ? "" : "s"} cannot be read)\n` : "nothing waits for a person\n";
  const lines = all.map((a) => {
    const s = approvalStatus(a, now);
    return `${a.record.id}  ${s.padEnd(9)}  ${a.record.tool}  ${when(a.record.created)}  ${a.record.reasons.join(",")}`;
  });
  return lines.join("\n") + "\n";
}

export function showText(a: Approval, now: number): string {
  const r = a.record;
  const out = [
    `${r.id}: ${r.tool}${r.agent ? ` (agent ${visible(r.agent)})` : ""} — ${statusWords(approvalStatus(a, now), a)}`,
    `  session ${r.session}, step ${r.step}; asked ${when(r.created)}, expires ${when(r.expires)}`,
    `  ${visible(r.wording)}`,
    "  arguments:",
  ];
  for (const k of Object.keys(r.args)) {
    const o = Object.hasOwn(r.origins, k) ? r.origins[k]! : { origin: "missing", labels: [] };
    const w = originWords(o);
    // a name is shown as a value is: `\u202Eot` must not read as a second `to`
    out.push(`    ${nameVisible(k)} = ${visible(JSON.stringify(r.args[k]))}  — ${w.text}${w.flagged ? "  [!]" : ""}`);
  }
  out.push(`  reasons: ${r.reasons.join(", ")}`);
  for (const c of r.counters) out.push(`  ${counterWords(c)}`);
  if (a.receipt) out.push(`  receipt: ${a.receipt.decision} by ${visible(a.receipt.by)} at ${when(a.receipt.at)}${a.receipt.message ? ` — ${visible(a.receipt.message)}` : ""} (call ${a.receipt.call.slice(0, 12)}…)`);
  // each entry is one line: a newline in the host's text (an agent, a receipt's name) would print
  // a line of its own choosing, such as a receipt that is not there
  return out.map((line) => line.replace(/[\t\n]/g, (c) => `[U+000${c === "\t" ? "9" : "A"}]`)).join("\n") + "\n";
}
