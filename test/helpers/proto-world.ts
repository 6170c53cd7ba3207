/**
 * Generated sessions in which one name — an `Object.prototype` member (`constructor`, `__proto__`,
 * `toString`, …) or a plain twin (`plain_3`) — is used in every position user input can name
 * something: argument names (declared and not), origins, labels, facts, result fields, `result:`
 * paths, `{from}` paths, `bind` fields, a tool, an agent and a spend pool.
 *
 * A session is generated once as data with the placeholder `K`, then run in two worlds that differ
 * only in what `K` is; the property (issue 9): the prototype world never throws anything but a
 * typed `StalwartError`, and answers exactly what the plain world answers.
 */
import { prng } from "./prng.js";

export const PROTO_NAMES: readonly string[] = Object.getOwnPropertyNames(Object.prototype).sort();
export const K = "\u0000K\u0000";

const str = { type: "string" };

/** A catalogue in which `k` names an argument, result fields, a tool, an agent and a pool. */
export function catalogueFor(k: string): object {
  const tools = [
    {
      name: "lookup",
      args: { type: "object", properties: { order_id: str, [k]: str }, additionalProperties: false },
      returns: { type: "object", properties: { status: str, [k]: str, nested: { type: "object", properties: { [k]: { type: "number" } } } } },
    },
    { name: "details", after: [{ tool: "lookup", bind: { order_id: k } }], args: { type: "object", properties: { order_id: str }, required: ["order_id"], additionalProperties: false } },
    { name: "gated", args: { type: "object", properties: { [k]: str }, additionalProperties: false }, checks: [{ field: k, is: "ok" }] },
    { name: "capped", args: { type: "object", properties: { n: { type: "number" } }, required: ["n"], additionalProperties: false }, checks: [{ field: "n", at_most: { from: `lookup.nested.${k}` } }] },
    {
      name: "charge",
      writes: true,
      confirm: "when_held",
      undo: "refund",
      args: { type: "object", properties: { [k]: str, amount: { type: "number" } }, required: ["amount"], additionalProperties: false },
      returns: { type: "object", properties: { [k]: str } },
      spend: [{ field: "amount", at_most: 50, per: "day", pool: k }],
      currency: "USD",
    },
    { name: "refund", writes: true, args: { type: "object", properties: { [k]: str, amount: { type: "number" } }, additionalProperties: false } },
    { name: k, args: { type: "object", properties: { [k]: str }, additionalProperties: false } },
  ];
  return { settings: { language: "en" }, agents: [{ name: k, tools: tools.map((t) => t.name), trust: "trusted" }], tools };
}

/** A rulebook whose rule reads `facts.<k>`. */
export function rulebookFor(k: string): object {
  return {
    rules: [{ name: "blocked_by_fact", flow: "proto", tools: ["gated"], when: [{ field: "facts.mode", is: "strict" }, { field: `facts.${k}`, is: "blocked" }], then: "refuse" }],
  };
}

export type Op =
  | { read: string }
  | { check: { tool: string; args: unknown; options: Record<string, unknown> } }
  | { report: { result: unknown } };

const VALUES = ["ok", "v1", "4411", "blocked", "fine"];

/** One generated session (with `K` where the name goes), from `seed`. */
export function generateSession(seed: number): Op[] {
  const r = prng(seed);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const maybe = (p = 0.5) => r() < p;
  const ops: Op[] = [];
  let lookups = 0;
  const n = 3 + Math.floor(r() * 6);
  for (let i = 0; i < n; i++) {
    const kind = r();
    if (kind < 0.15) {
      ops.push({ read: `values ${pick(VALUES)} ${pick(VALUES)} ${Math.floor(r() * 10)}` });
      continue;
    }
    if (kind < 0.3 && ops.some((o) => "check" in o)) {
      ops.push({ report: { result: { status: pick(VALUES), [K]: pick(VALUES), nested: { [K]: Math.floor(r() * 10) }, ...(maybe(0.2) ? { [`x${K}`]: 1 } : {}) } } });
      continue;
    }
    const tool = pick(["lookup", "details", "gated", "capped", "charge", "refund", K]);
    const args: Record<string, unknown> = {};
    const def = (key: string, v: unknown) => Object.defineProperty(args, key, { value: v, enumerable: true, writable: true, configurable: true });
    if (maybe(0.6)) def("order_id", pick(VALUES));
    if (maybe(0.6)) def(K, pick(VALUES));
    if (maybe(0.4)) def("n", Math.floor(r() * 10));
    if (maybe(0.4)) def("amount", pick([5, 20, 60]));
    if (maybe(0.15)) def(`x${K}`, "extra");
    if (maybe(0.1)) def(K, { [K]: pick(VALUES) });
    const options: Record<string, unknown> = {};
    if (maybe(0.7)) {
      const origins: Record<string, string> = {};
      const set = (key: string) => Object.defineProperty(origins, key, { value: pick(["typed", "model", "context", "computed", `result:${lookups}.${K}`, `result:${lookups}`, `result:${lookups}.nested.${K}`]), enumerable: true, writable: true, configurable: true });
      for (const key of Object.keys(args)) if (maybe(0.7)) set(key);
      if (maybe(0.3)) set(K);
      options.origins = origins;
    }
    if (maybe(0.3)) options.labels = pick([{ call: ["untrusted:x"] }, { [K]: ["trustedness:low"] }, { [K]: ["trusted"] }, { call: [], [K]: [`untrusted:${K}`] }]);
    if (tool === "gated" || maybe(0.2)) options.facts = { mode: pick(["strict", "relaxed"]), ...(maybe(0.6) ? { [K]: pick(VALUES) } : {}) };
    if (maybe(0.2)) options.agent = K;
    if (tool === "refund" && maybe(0.7)) options.undoOf = Math.floor(r() * (ops.length + 1));
    if (tool === "lookup") lookups = ops.length;
    ops.push({ check: { tool, args, options } });
  }
  return ops;
}

/** `value` with every `K` in keys and strings replaced by `k` (own properties throughout). */
export function instantiate<T>(value: T, k: string): T {
  const go = (v: unknown): unknown => {
    if (typeof v === "string") return v.split(K).join(k);
    if (Array.isArray(v)) return v.map(go);
    if (v !== null && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v)) Object.defineProperty(out, go(key) as string, { value: go((v as Record<string, unknown>)[key]), enumerable: true, writable: true, configurable: true });
      return out;
    }
    return v;
  };
  return go(value) as T;
}

export interface Port {
  read(text: string): Promise<unknown>;
  checkToolCall(tool: string, args: unknown, options?: Record<string, unknown>): Promise<{ decision: string; reasons: string[]; detail: Record<string, unknown>; step: number }>;
  report(step: number, outcome: "ran", result?: unknown): Promise<unknown>;
}

/** Decision and reasons (which failure step 3 names first may differ: names sort differently). */
export type Answer = { decision: string; reasons: string[] } | { error: string };

/** Runs one session on a port; every answer, or the code of a typed error (anything else rethrows). */
export async function runSession(port: Port, ops: Op[], isTyped: (err: unknown) => string | undefined): Promise<Answer[]> {
  const out: Answer[] = [];
  let last = -1;
  for (const op of ops) {
    try {
      if ("read" in op) await port.read(op.read);
      else if ("report" in op) {
        if (last >= 0) await port.report(last, "ran", op.report.result);
      } else {
        const a = await port.checkToolCall(op.check.tool, op.check.args, op.check.options);
        last = a.step;
        out.push({ decision: a.decision, reasons: a.reasons });
      }
    } catch (err) {
      const code = isTyped(err);
      if (code === undefined) throw err;
      out.push({ error: code });
    }
  }
  return out;
}
