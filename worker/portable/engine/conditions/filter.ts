/**
 * `filter` on a read (checks.md "Conditions, limits, spend, outcomes"): which records the read
 * passes on. `each` names the list in the result (`jobs[]` or `jobs`; `data.jobs[]`; `[]` only
 * last); a record is kept when every `keep` condition holds for it, read with the record as both
 * subject and row (`{from_row: field}` compares with another field of the same record).
 *
 * A record where a value could not be read is dropped, unless `unknown: pass` keeps it. The
 * conditions combine as in `evaluateAll`: a record that fails one condition is dropped even when
 * another is unknown, so `unknown: pass` keeps only records lacking a value, never ones that fail.
 * A record the evaluator could not finish (data nested past any JSON's depth) is always dropped.
 *
 * Fail closed: a result without the list (or where it is not a list) passes nothing on: `kept` is
 * a fresh result holding only an empty list at `each`, and `problem` says why.
 * The input is never changed: the containers on the way to the list are copied, the rest shared.
 */
import type { Filter } from "../catalogue/types.js";
import { FAILS, HOLDS, newTrace, run, type Code } from "./compare.js";
import type { Scope } from "./types.js";
import { compilePath, FIELD, MISSING, readOne, type Seg } from "./read.js";

interface FilterProblem {
  /** `each_unreadable`: `each` is not a path to one list; `each_missing`: the result lacks it; `each_not_a_list` */
  code: "each_unreadable" | "each_missing" | "each_not_a_list";
  wording: string;
}

export interface FilterOutcome {
  /** the result with the `each` list replaced by the kept records */
  kept: unknown;
  /** records not passed on (failed, or unknown and not passed) */
  dropped: number;
  /** records where a value could not be read (kept under `unknown: pass`, else also counted in `dropped`) */
  unknown: number;
  /** set when the list itself could not be read: nothing was passed on */
  problem?: FilterProblem;
}

/** `{from}` read once per filter, whatever the number of records (a filter names few: a list scan). */
function memoFrom(from: Scope["from"]): Scope["from"] {
  const tools: string[] = [];
  const paths: string[] = [];
  const values: unknown[] = [];
  return (tool, path) => {
    for (let i = 0; i < tools.length; i++) if (tools[i] === tool && paths[i] === path) return values[i];
    const v = from(tool, path);
    tools.push(tool);
    paths.push(path);
    values.push(v);
    return v;
  };
}

/** A copy of `node` with `value` at `segs` (names and indexes); the input is not changed. */
function replaceAt(node: unknown, segs: readonly Seg[], i: number, value: unknown): unknown {
  if (i === segs.length) return value;
  const s = segs[i]!;
  if (s.kind === FIELD) {
    const obj = node as Record<string, unknown>;
    return { ...obj, [s.name]: replaceAt(obj[s.name], segs, i + 1, value) };
  }
  const list = (node as unknown[]).slice();
  list[s.index] = replaceAt(list[s.index], segs, i + 1, value);
  return list;
}

/** A fresh result holding only `value` at `segs` (list slots before an index are null). */
function buildAt(segs: readonly Seg[], i: number, value: unknown): unknown {
  if (i === segs.length) return value;
  const s = segs[i]!;
  const inner = buildAt(segs, i + 1, value);
  if (s.kind === FIELD) return { [s.name]: inner };
  const list: unknown[] = new Array(s.index).fill(null);
  list.push(inner);
  return list;
}

export function applyFilter(filter: Filter, result: unknown, from: Scope["from"]): FilterOutcome {
  const p = compilePath(filter.each);
  const segs = p === null ? undefined : p.eachLast ? p.segs.slice(0, -1) : p.multi ? undefined : p.segs;
  if (segs === undefined || segs.length === 0) {
    return { kept: [], dropped: 0, unknown: 0, problem: { code: "each_unreadable", wording: `\`each: ${filter.each}\` does not name one list (write \`jobs[]\` or \`data.jobs[]\`), so nothing is passed on.` } };
  }
  const list = readOne(result, segs);
  if (!Array.isArray(list)) {
    const missing = list === MISSING;
    return {
      kept: buildAt(segs, 0, []),
      dropped: 0,
      unknown: 0,
      problem: missing
        ? { code: "each_missing", wording: `the result has no \`${filter.each}\`, so nothing is passed on.` }
        : { code: "each_not_a_list", wording: `\`${filter.each}\` in the result is not a list, so nothing is passed on.` },
    };
  }

  const scope: Scope = { subject: undefined, row: undefined, from: memoFrom(from) };
  const t = newTrace();
  const keep = filter.keep;
  const pass = filter.unknown === "pass";
  const kept: unknown[] = [];
  let dropped = 0;
  let unknown = 0;
  for (let r = 0; r < list.length; r++) {
    const record = list[r];
    scope.subject = record;
    scope.row = record;
    // three-valued AND over `keep`, as evaluateAll
    let code: Code = HOLDS;
    let broken = false;
    for (let i = 0; i < keep.length; i++) {
      const c = run(keep[i]!, scope, t);
      if (c === FAILS) {
        code = FAILS;
        break;
      }
      if (c !== HOLDS) {
        code = c;
        if (t.why === "error") broken = true;
      }
    }
    if (code === HOLDS) kept.push(record);
    else if (code === FAILS) dropped++;
    else {
      unknown++;
      if (pass && !broken) kept.push(record);
      else dropped++;
    }
  }
  return { kept: replaceAt(result, segs, 0, kept), dropped, unknown };
}
