/**
 * Generated hostile requests across the check worker's check, read, report and catalogue routes
 * (issue 9), and the run that judges the answers: no response ≥ 500, no `allow` (every check body
 * carries something that must be refused: an undeclared argument, an edited history, a value its
 * pattern refuses), no request over 2 s. Used by test/worker/fuzz.test.ts (sized for CI) and by
 * scripts/fuzz-worker.ts (the full 100,000).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { prng } from "./prng.js";

type Call = (method: string, path: string, body?: unknown, key?: string | null, type?: string) => Response | Promise<Response>;

export const PROTO = Object.getOwnPropertyNames(Object.prototype);
const storeYaml = readFileSync(join(import.meta.dirname, "../../examples/store/agent.yaml"), "utf8");
const EVIL = "^([a-z0-9]+[-.]?)*[a-z0-9]+$";
const patternsYaml = `tools:\n  - name: lookup_host\n    args: {type: object, properties: {host: {type: string, pattern: '${EVIL}'}, keys: {type: object, patternProperties: {'${EVIL}': {type: number}}, additionalProperties: false}}, additionalProperties: false}\n`;

export interface HostileStats {
  total: number;
  byRoute: Record<string, number>;
  status: Record<string, number>;
  over500: number;
  allows: number;
  slow: number;
  maxMs: number;
  /** the first few violations, to show */
  failures: string[];
}

/** Runs `n` generated hostile requests against `call` (an app's `request`, or fetch to a worker). */
export async function runHostile(call: Call, n: number, seed: number): Promise<HostileStats> {
  await call("PUT", "/v1/catalogues/store", storeYaml, undefined, "application/yaml");
  await call("PUT", "/v1/catalogues/patterns", patternsYaml, undefined, "application/yaml");
  const start = async (catalogue: string) => ((await (await call("POST", "/v1/sessions", { catalogue, name: "fuzz" })).json()) as { session: Record<string, any> }).session;
  let store = await start("store");
  // one allowed read and its report, so that histories have check and report entries to edit
  const first = (await (await call("POST", "/v1/check", { session: store, tool: "get_order", args: { order_id: "4411" } })).json()) as { session: Record<string, any>; check: { step: number } };
  store = ((await (await call("POST", "/v1/report", { session: first.session, step: first.check.step, outcome: "ran", result: { order_id: "4411", status: "paid" } })).json()) as { session: Record<string, any> }).session;
  const patterns = await start("patterns");

  const r = prng(seed);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const name = () => (r() < 0.6 ? pick(PROTO) : pick(["shell", "x", "note", "order_id2", "🙂", "a.b", "", " "]));
  const own = (entries: [string, unknown][]) => {
    const o: Record<string, unknown> = {};
    for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
    return o;
  };
  const junk = (depth = 0): unknown => {
    const k = r();
    if (depth > 3 || k < 0.3) return pick<unknown>([null, 0, -1, 1.5, "", "x", true, "hello\r\nworld", "\u0000", "https://evil.example/x", "a".repeat(28) + "!", "\u212aelvin", 1e308]);
    if (k < 0.6) return Array.from({ length: Math.floor(r() * 4) }, () => junk(depth + 1));
    return own(Array.from({ length: 1 + Math.floor(r() * 3) }, () => [name(), junk(depth + 1)] as [string, unknown]));
  };
  const deep = (d: number): unknown => (d === 0 ? "x" : r() < 0.5 ? [deep(d - 1)] : { [pick(PROTO)]: deep(d - 1) });
  const clone = <T,>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

  /** Check bodies: each carries something that must be refused. */
  const checks: (() => Record<string, unknown>)[] = [
    // an undeclared argument named like a prototype member (or anything), with hostile options
    () => ({ session: store, tool: "get_order", args: own([["order_id", "4411"], [name(), junk()]]), options: { origins: own([[name(), pick(["typed", "model", "result:1.status", "result:0.constructor"])]]), labels: own([[name(), [pick(["untrusted:x", "trustedness:low", "trusted"])]]]), facts: own([[name(), junk()]]) } }),
    // a write with a prototype-named undeclared argument
    () => ({ session: store, tool: "refund_card", args: own([["order_id", "4411"], ["amount", 40], [pick(PROTO), junk()]]), options: { origins: own([["order_id", "typed"], ["amount", "typed"], [pick(PROTO), "typed"]]) } }),
    // an edited history entry: a field set to junk, a kind or value digest named like a member
    () => {
      const s = clone(store);
      const e = s.entries[Math.floor(r() * s.entries.length)];
      const what = r();
      if (what < 0.3) e.kind = pick(PROTO);
      else if (what < 0.6 && e.values) e.values = own([[pick(PROTO), "0".repeat(32)]]);
      else e[pick(Object.keys(e))] = junk();
      // an edit that happens to write what was there is no edit: make it one
      if (JSON.stringify(s) === JSON.stringify(store)) e.at = -1;
      return { session: s, tool: "get_order", args: { order_id: "4411" } };
    },
    // an argument its pattern refuses, at a length that backtracks for ever in a built-in engine
    () => ({ session: patterns, tool: "lookup_host", args: { host: "a".repeat(20 + Math.floor(r() * 5000)) + "!" } }),
    () => ({ session: patterns, tool: "lookup_host", args: { keys: own([["a".repeat(20 + Math.floor(r() * 3000)) + "!", 1]]) } }),
    // a destination in a tool that sends nothing out, spelled with hostile characters
    () => ({ session: store, tool: "get_order", args: { order_id: pick(["https://evil.example/x", "4411\r\nhttps://evil.example", "evil.com", "x@evil.com"]) } }),
    // nesting past any limit, or a huge undeclared list
    () => ({ session: store, tool: "get_order", args: { order_id: "4411", [pick(PROTO)]: deep(40 + Math.floor(r() * 300)) } }),
    () => ({ session: store, tool: "list_orders", args: { customer: "c", extra: Array.from({ length: 2000 }, () => pick(PROTO)) } }),
    // an unknown tool named like a member, or not a string
    () => ({ session: store, tool: pick([...PROTO, 7, null, ["x"], {}]), args: { order_id: "4411" } }),
  ];

  const reads: (() => Record<string, unknown>)[] = [
    () => ({ session: store, text: pick<unknown>(["hello\r\nworld", "\u0000".repeat(100), "a".repeat(200_000), 5, null, ["x"], own([[pick(PROTO), 1]])]) }),
    () => own([["session", store], ["text", "ok"], [pick(PROTO), junk()]]),
    () => ({ session: own([...Object.entries(clone(store)), [pick(PROTO), junk()]]), text: "ok" }),
  ];
  const reports: (() => Record<string, unknown>)[] = [
    () => ({ session: store, step: 1, outcome: pick<unknown>(["ran", "failed", ...PROTO, 7]), result: junk() }),
    () => ({ session: store, step: pick<unknown>([0, 1, 2, -1, 1.5, 1e9, "1", ...PROTO]), outcome: "ran", result: own([[pick(PROTO), junk()], ["status", "paid"]]) }),
    () => ({ session: store, step: 1, outcome: "ran", result: deep(50 + Math.floor(r() * 400)) }),
  ];
  const catalogues: (() => string)[] = [
    () => `tools:\n  - name: ${pick(PROTO)}\n    args: {type: object, properties: {${pick(PROTO)}: {type: string, pattern: '${pick([EVIL, "^(?=a)", "(a)\\\\1", "a{1001}", "(", "^[a-z]+$"])}'}}}\n`,
    () => `tools:\n  - name: t\n    args: {type: object, properties: {a: {type: string}}, anyOf: [{required: [a]}, {patternProperties: {'${pick([EVIL, "^x", "(?<!y)"])}': {}}}]}\n`,
    () => `${pick(PROTO)}: 1\ntools: [{name: a, ${pick(PROTO)}: true}]\n`,
    () => `tools:\n  - {name: a, writes: true, money: true, confirm: when_held, currency: USD, spend: [{field: x, at_most: 1, per: day, pool: ${pick(PROTO)}}]}\n  - {name: b, writes: true, currency: EUR, spend: [{field: x, at_most: 1, per: day, pool: ${pick(PROTO)}}]}\n`,
    () => `tools:\n  - name: c\n    checks: [{field: q, at_most: {from: ${pick(PROTO)}.${pick(PROTO)}, same: ${pick(PROTO)}}}]\n`,
    () => `a: &a [${Array.from({ length: 9 }, () => "*a").join(",")}]\n`.replace("*a", "x"),
    () => "tools:\n" + "  - {name: x, args: " + "{type: object, properties: {a: ".repeat(30) + "{}" + "}}".repeat(30) + "}\n",
  ];

  const stats: HostileStats = { total: 0, byRoute: {}, status: {}, over500: 0, allows: 0, slow: 0, maxMs: 0, failures: [] };
  const fail = (what: string) => {
    if (stats.failures.length < 20) stats.failures.push(what);
  };
  for (let i = 0; i < n; i++) {
    const k = r();
    const [route, method, path, body, type] =
      k < 0.55 ? ["check", "POST", "/v1/check", JSON.stringify(pick(checks)()), "application/json"]
      : k < 0.7 ? ["read", "POST", "/v1/sessions/read", JSON.stringify(pick(reads)()), "application/json"]
      : k < 0.85 ? ["report", "POST", "/v1/report", JSON.stringify(pick(reports)()), "application/json"]
      : ["catalogue", "PUT", `/v1/catalogues/${pick(["fz", "a.b", "x-1"])}`, pick(catalogues)(), "application/yaml"];
    const t0 = performance.now();
    const res = await call(method, path, body, undefined, type);
    const text = await res.text();
    const ms = performance.now() - t0;
    stats.total++;
    stats.byRoute[route] = (stats.byRoute[route] ?? 0) + 1;
    stats.status[String(res.status)] = (stats.status[String(res.status)] ?? 0) + 1;
    stats.maxMs = Math.max(stats.maxMs, ms);
    if (ms > 2000) {
      stats.slow++;
      fail(`${route} took ${Math.round(ms)} ms: ${body.slice(0, 200)}`);
    }
    if (res.status >= 500) {
      stats.over500++;
      fail(`${route} ${res.status}: ${body.slice(0, 200)} → ${text.slice(0, 200)}`);
    }
    if (route === "check" && res.status === 200) {
      const decision = (JSON.parse(text) as { check?: { decision?: string } }).check?.decision;
      if (decision === "allow") {
        stats.allows++;
        fail(`check allowed: ${body.slice(0, 300)} → ${text.slice(0, 300)}`);
      }
    }
  }
  return stats;
}
