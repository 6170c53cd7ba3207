/**
 * What `counters.json` and `counters.witness.json` must hold, checked field by field when they
 * are read: a file that parses but is not a meter (JSON `null`, a list, a count that is a string
 * or negative, a date that does not parse) is damaged licence state, refused `LicenceFileUnreadable`
 * naming the file and the field — never read as a fresh meter, never an `internal_error` later.
 */
import { StalwartError, type Anomaly, type Counters, type CountersWitness, type Stop } from "../../worker/portable/licensing/index.js";
import { meters } from "../../worker/portable/licensing/index.js";

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

/** `LicenceFileUnreadable` for a file under `licence/` that reads but holds no valid meter state. */
export function damaged(file: string, what: string, hint: string): StalwartError {
  return new StalwartError("LicenceFileUnreadable", `\`${file}\` is damaged: ${what}`, { hint });
}

export const COUNTERS_HINT =
  "remove counters.json (the runtime takes the counts from counters.witness.json, and reports the rollback) or restore it from a backup; `stalwart doctor` names the file";
export const WITNESS_HINT =
  "restore counters.witness.json from a backup, or remove both counters.json and counters.witness.json (this machine's counts for the month start again; what was reported stays with the service)";

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);
const held = (x: unknown) => (x === null ? "null" : Array.isArray(x) ? "a list" : `a ${typeof x}`);
const isCount = (n: unknown): n is number => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
const isDate = (d: unknown): d is string => typeof d === "string" && !Number.isNaN(Date.parse(d));

function fields(x: unknown, file: string, hint: string): Obj {
  if (!isObj(x)) throw damaged(file, `it holds ${held(x)}, not the meters' state`, hint);
  const bad = (field: string, want: string) => damaged(file, `\`${field}\` must be ${want} (it holds ${JSON.stringify(x[field]) ?? "nothing"})`, hint);
  if (x.v !== 1) throw bad("v", "1");
  if (!isCount(x.seq)) throw bad("seq", "a non-negative integer");
  if (!isDate(x.last_seen)) throw bad("last_seen", "an ISO date");
  if (!isObj(x.months)) throw bad("months", "an object of months");
  for (const [month, counts] of Object.entries(x.months)) {
    if (!MONTH.test(month)) throw damaged(file, `\`months\` names \`${month}\`, not a month (YYYY-MM)`, hint);
    if (!isObj(counts)) throw damaged(file, `\`months.${month}\` must be an object of counts`, hint);
    for (const [meter, n] of Object.entries(counts)) if (!isCount(n)) throw damaged(file, `\`months.${month}.${meter}\` must be a non-negative integer (it holds ${JSON.stringify(n)})`, hint);
  }
  if (x.released_at !== undefined && !isDate(x.released_at)) throw bad("released_at", "an ISO date");
  if (x.stop !== undefined && !(isObj(x.stop) && isDate(x.stop.at) && typeof x.stop.code === "string")) throw bad("stop", "{at, code}");
  if (x.anomalies !== undefined && !(Array.isArray(x.anomalies) && x.anomalies.every((a) => typeof a === "string"))) throw bad("anomalies", "a list of names");
  return x;
}

export function checkCounters(x: unknown, file: string): Counters {
  const o = fields(x, file, COUNTERS_HINT);
  if (typeof o.installation_id !== "string") throw damaged(file, "`installation_id` must be a string", COUNTERS_HINT);
  if (!isCount(o.report_seq)) throw damaged(file, "`report_seq` must be a non-negative integer", COUNTERS_HINT);
  return { v: 1, installation_id: o.installation_id, seq: o.seq as number, last_seen: o.last_seen as string, months: o.months as Counters["months"], report_seq: o.report_seq, ...extras(o) };
}

/** The optional fields, as read (already checked by `fields`). */
function extras(o: Obj): Pick<Counters, "released_at" | "stop" | "anomalies"> {
  const out: Pick<Counters, "released_at" | "stop" | "anomalies"> = {};
  if (typeof o.released_at === "string") out.released_at = o.released_at;
  if (isObj(o.stop)) out.stop = { at: o.stop.at as string, code: o.stop.code as string };
  if (Array.isArray(o.anomalies)) out.anomalies = o.anomalies.filter((a): a is Anomaly => (meters.ANOMALIES as readonly unknown[]).includes(a));
  return out;
}

export function checkWitness(x: unknown, file: string): CountersWitness {
  const o = fields(x, file, WITNESS_HINT);
  if (o.installation_id !== undefined && typeof o.installation_id !== "string") throw damaged(file, "`installation_id` must be a string", WITNESS_HINT);
  const w: CountersWitness = { v: 1, seq: o.seq as number, last_seen: o.last_seen as string, months: o.months as CountersWitness["months"], ...extras(o) };
  if (typeof o.installation_id === "string") w.installation_id = o.installation_id;
  return w;
}

/**
 * A counters file at or past its witness's `seq` must hold at least the witness's counts (each
 * write raises `seq` and only adds). A month the witness has and the counters do not is allowed
 * only when it was pruned (the counters hold the newest `KEEP_MONTHS` months, all later).
 * Returns what is wrong, or undefined.
 */
export function contradiction(c: Counters, w: CountersWitness): string | undefined {
  const kept = Object.keys(c.months).sort();
  for (const [month, counts] of Object.entries(w.months)) {
    const mine = c.months[month];
    if (!mine) {
      if (kept.length >= meters.KEEP_MONTHS && kept.every((k) => k > month)) continue;
      return `it drops the month ${month} its witness counts (seq ${c.seq}, witness seq ${w.seq})`;
    }
    for (const [meter, n] of Object.entries(counts)) {
      if ((mine[meter] ?? 0) < n) return `\`months.${month}.${meter}\` is ${mine[meter] ?? 0}, below its witness's ${n} at a seq (${c.seq}) not behind the witness's (${w.seq})`;
    }
  }
  return undefined;
}

/** The stricter of two stop records: the earlier stop, the earlier release. */
export function mergeStops(c: Counters, w: CountersWitness | undefined): void {
  if (!w) return;
  const earlier = (a: string | undefined, b: string | undefined) => (a === undefined ? b : b === undefined ? a : Date.parse(a) <= Date.parse(b) ? a : b);
  const released = earlier(c.released_at, w.released_at);
  if (released !== undefined) c.released_at = released;
  const stop: Stop | undefined = !c.stop ? w.stop : !w.stop ? c.stop : Date.parse(c.stop.at) <= Date.parse(w.stop.at) ? c.stop : w.stop;
  if (stop) c.stop = { ...stop };
  const anomalies = new Set<Anomaly>([...(c.anomalies ?? []), ...(w.anomalies ?? [])]);
  if (anomalies.size) c.anomalies = [...anomalies];
}
