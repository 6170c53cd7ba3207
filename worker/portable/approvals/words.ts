/**
 * How a pending confirmation reads to a person (the page, `stalwart approvals show`): where each
 * argument came from, in words, with anything from outside flagged; the counters' before → after.
 */
import { cutText, type Approval, type ApprovalStatus, type ArgumentOrigin, type CounterEffect } from "../engine/index.js";
import { visible } from "./visible.js";

export interface OriginWords {
  text: string;
  /** from outside, or not from anyone trusted: the page marks it */
  flagged: boolean;
}

export function originWords(o: ArgumentOrigin): OriginWords {
  const outside = o.labels.filter((l) => l.startsWith("untrusted:")).map((l) => l.slice("untrusted:".length));
  const base = originText(o.origin, o.tool);
  if (outside.length > 0) return { text: `${base}; from outside (${outside.join(", ")})`, flagged: true };
  // the host's word, which the check could not confirm: never shown as fact
  if (o.doubted === true) return { text: `${base}, the program says, but ${o.origin === "typed" ? "no message of the person holds it" : "that result does not hold it"}`, flagged: true };
  return { text: base, flagged: !TRUSTED.has(o.origin.split(":")[0] ?? "") };
}

const TRUSTED = new Set(["typed", "reply", "context", "computed", "result"]);

function originText(origin: string, tool: string | undefined): string {
  if (origin === "typed") return "typed by the person";
  if (origin === "reply") return "written by the person in a reply";
  if (origin === "context") return "from the session's context";
  if (origin === "computed") return "computed by the host";
  if (origin === "model") return "written by the model";
  if (origin === "missing") return "no origin given";
  const m = /^result:(\d+)(?:\.(.+))?$/.exec(origin);
  // the tool a person knows, and the step the history uses (the gateway's question says the same)
  const at = m?.[2] ? visible(m[2]) : "";
  if (m) return tool === undefined ? `from step ${m[1]}'s result${at ? ` (${at})` : ""}` : `from ${visible(tool)}'s result (step ${m[1]}${at ? `, ${at}` : ""})`;
  return `origin \`${origin}\``;
}

export function counterWords(c: CounterEffect): string {
  const period = c.per === "call" ? "per call" : `per ${c.per}`;
  if (c.before !== null && c.after !== null) return `${c.counter}: ${c.before} → ${c.after} of ${c.ceiling} ${period}`;
  return `${c.counter}: adds ${c.adds}, ceiling ${c.ceiling} ${period}`;
}

export function statusWords(s: ApprovalStatus, a: Approval): string {
  const r = a.receipt;
  const by = visible(r?.by ?? "?");
  switch (s) {
    case "pending":
      return "waiting for a person";
    case "approved":
      return `approved by ${by}, not run yet`;
    case "used":
      return `approved by ${by}, ran`;
    case "denied":
      return `denied by ${by}`;
    case "edited":
      return `edited by ${by} (checked again as a new call)`;
    case "withdrawn":
      return r?.decision === "approve" ? `approved by ${by}, withdrawn unrun (the gateway that asked stopped)` : "withdrawn undecided (the gateway that asked stopped)";
    case "expired":
      return "expired undecided";
  }
}

/** ISO time in UTC, to the second. */
export function when(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * `text` trimmed and cut to at most `max` UTF-16 units without splitting a surrogate pair (half an
 * emoji is not text: the receipt's canonical form refuses it), or undefined when nothing is left.
 */
export function clip(text: unknown, max: number): string | undefined {
  if (typeof text !== "string") return undefined;
  const t = text.trim();
  if (t === "") return undefined;
  return cutText(t, max);
}
