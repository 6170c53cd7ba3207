/**
 * A rules spreadsheet (CSV) read into the same data a YAML rulebook parses to, with every value's
 * position set to its cell, so that one linter serves both (checks.md "Rulebook gate": "YAML rules,
 * or a rules spreadsheet as CSV, same condition language as `checks`").
 *
 *   name,flow,tools,field,op,value,then,question,because
 *
 * One condition per row; rows with the same `name` are one rule (its conditions all must hold),
 * in the order the name first appears. `tools` are separated by `|` (empty: every tool). `field`
 * is a path, or `total:path` / `count:path`. `value` is read as JSON when it parses (`500`,
 * `true`, `["a","b"]`, `"4411"`), else as text; `from:tool.field` is `{from: tool.field}`. A rule's
 * `flow`, `tools`, `then`, `question`, `because` are written once (later rows leave them empty or
 * repeat them exactly). `any:` has no spreadsheet form: write that rule in YAML.
 */
import type { CatalogueProblem, SourcePosition } from "../errors.js";
import { joinPointer } from "../schema/pointer.js";
import { unknownWordHint } from "../schema/suggest.js";
import type { Located, Source } from "../catalogue/source.js";
import { columnLetter, parseCsv, type CsvCell, type CsvRecord } from "./csv.js";

const CSV_COLUMNS = ["name", "flow", "tools", "field", "op", "value", "then", "question", "because"] as const;
type Column = (typeof CSV_COLUMNS)[number];
/** Written once per rule; later rows of the same rule leave them empty or repeat them. */
const RULE_COLUMNS = ["flow", "tools", "then", "question", "because"] as const;

export interface CsvSource extends Source {
  /** `row 3` for a pointer inside a rule: the row its condition (or the rule's first row) is on */
  rowOf(pointer: string): number | undefined;
}

const define = (o: Record<string, unknown>, k: string, v: unknown) => Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });

/** `from:tool.field` → `{from}`; JSON when it parses (finite numbers only); else the text. */
function csvValue(text: string): { value: unknown } | { problem: string; hint: string } {
  const t = text.trim();
  if (/^from:/i.test(t)) return { value: { from: t.slice(5).trim() } };
  if (t === "") return { value: text };
  let v: unknown;
  try {
    v = JSON.parse(t);
  } catch {
    return { value: text.trim() };
  }
  if (typeof v === "number" && !Number.isFinite(v)) return { problem: `\`${t}\` is not a finite number`, hint: "write a smaller number, or quote it as text: `\"\"\"1e999\"\"\"`" };
  return { value: v };
}

export function readCsv(text: string, file: string): CsvSource {
  const positions = new Map<string, Located>();
  const problems: CatalogueProblem[] = [];
  const rows = new Map<string, number>();
  const rowOf = (pointer: string): number | undefined => {
    for (let p = pointer; ; p = p.slice(0, p.lastIndexOf("/"))) {
      const r = rows.get(p);
      if (r !== undefined) return r;
      if (p === "") return undefined;
    }
  };
  const source: CsvSource = { file, data: undefined, positions, problems, fromObject: false, rowOf };
  const at = (c: { line: number; column: number }): SourcePosition => ({ file, line: c.line, column: c.column });
  const problem = (c: { line: number; column: number }, pointer: string, message: string, hint?: string) =>
    problems.push({ ...at(c), pointer, message, ...(hint ? { hint } : {}) });

  const parsed = parseCsv(text);
  for (const p of parsed.problems) problem(p, "", p.message, p.hint);
  if (problems.length > 0) return source;
  const blank = (r: CsvRecord) => r.cells.every((c) => !c.quoted && c.text.trim() === "");
  const records = parsed.records.filter((r) => !blank(r));
  if (records.length === 0) {
    problem({ line: 1, column: 1 }, "", "the spreadsheet is empty", `start with the header row: \`${CSV_COLUMNS.join(",")}\``);
    return source;
  }

  // the header: known column names, each once; `name`, `flow` and `then` required
  const header = records[0]!;
  const columns = new Map<Column, number>();
  header.cells.forEach((c, index) => {
    const word = c.text.trim().toLowerCase();
    if (!(CSV_COLUMNS as readonly string[]).includes(word)) {
      problem(c, "", word === "" ? `column ${columnLetter(index)} of the header has no name` : `unknown column \`${c.text.trim()}\``, word === "" ? `name it, or delete the column; columns: ${CSV_COLUMNS.join(", ")}` : unknownWordHint(word, CSV_COLUMNS));
    } else if (columns.has(word as Column)) {
      problem(c, "", `column \`${word}\` appears twice in the header`, "remove one of them");
    } else columns.set(word as Column, index);
  });
  for (const need of ["name", "flow", "then"] as const) {
    if (!columns.has(need)) problem(header.cells[0]!, "", `the header has no \`${need}\` column`, `the header is \`${CSV_COLUMNS.join(",")}\``);
  }
  if (problems.length > 0) return source;

  const rules: Record<string, unknown>[] = [];
  const byName = new Map<string, { index: number; firstRow: number; set: Map<string, { text: string; row: number }> }>();
  const cellOf = (r: CsvRecord, col: Column): CsvCell | undefined => {
    const k = columns.get(col);
    return k === undefined ? undefined : r.cells[k];
  };
  const textOf = (r: CsvRecord, col: Column): string => (cellOf(r, col)?.text ?? "").trim();
  const put = (pointer: string, cell: CsvCell | undefined, key?: CsvCell, row?: number) => {
    if (cell) positions.set(pointer, key ? { value: at(cell), key: at(key) } : { value: at(cell) });
    if (row !== undefined) rows.set(pointer, row);
  };

  for (const r of records.slice(1)) {
    r.cells.forEach((c, k) => {
      if (k >= header.cells.length && (c.quoted || c.text.trim() !== "")) problem(c, "", `row ${r.row} has a cell in column ${columnLetter(k)}, past the header's last column`, "move it under a column, or add the column to the header");
    });
    const nameCell = cellOf(r, "name")!;
    const name = textOf(r, "name");
    if (name === "") {
      problem(nameCell ?? r.cells[0]!, "", `row ${r.row} has no \`name\``, "every row names the rule it belongs to; rows with the same name are one rule");
      continue;
    }
    let rule = byName.get(name);
    if (!rule) {
      const index = rules.length;
      const raw: Record<string, unknown> = {};
      define(raw, "name", name);
      rules.push(raw);
      rule = { index, firstRow: r.row, set: new Map() };
      byName.set(name, rule);
      const base = `/rules/${index}`;
      put(base, nameCell, undefined, r.row);
      put(joinPointer(base, "name"), nameCell, nameCell);
    }
    const raw = rules[rule.index]!;
    const base = `/rules/${rule.index}`;

    for (const col of RULE_COLUMNS) {
      const cell = cellOf(r, col);
      const value = textOf(r, col);
      if (!cell || value === "") continue;
      const before = rule.set.get(col);
      if (before) {
        if (before.text !== value) problem(cell, joinPointer(base, col), `rule \`${name}\` (row ${r.row}): \`${col}\` is \`${clipText(value)}\` here but \`${clipText(before.text)}\` in row ${before.row}`, `write a rule's \`${col}\` once, or the same on every row of \`${name}\``);
        continue;
      }
      rule.set.set(col, { text: value, row: r.row });
      const pointer = joinPointer(base, col);
      if (col === "tools") {
        const names = value.split("|").map((t) => t.trim());
        define(raw, col, names);
        names.forEach((_, k) => put(joinPointer(pointer, k), cell));
      } else {
        define(raw, col, value);
      }
      put(pointer, cell, cell, r.row);
    }

    // the condition on this row, if any
    const fieldCell = cellOf(r, "field");
    const opCell = cellOf(r, "op");
    const valueCell = cellOf(r, "value");
    const field = textOf(r, "field");
    const op = textOf(r, "op");
    const hasValue = valueCell !== undefined && (valueCell.quoted || valueCell.text.trim() !== "");
    if (field === "" && op === "" && !hasValue) continue;
    if (op === "" && hasValue) {
      problem(valueCell!, "", `rule \`${name}\` (row ${r.row}): a \`value\` with no \`op\``, "name the operator in the `op` column: `is`, `is_not`, `one_of`, `over`, …");
      continue;
    }
    const when = (raw.when as unknown[] | undefined) ?? (define(raw, "when", []), raw.when as unknown[]);
    const j = when.length;
    const cp = joinPointer(base, "when", j);
    const cond: Record<string, unknown> = {};
    const anchor = field !== "" ? fieldCell : op !== "" ? opCell : valueCell;
    if (j === 0) put(joinPointer(base, "when"), anchor);
    put(cp, anchor, undefined, r.row);
    if (field !== "") {
      const m = /^(total|count)\s*:\s*(.*)$/i.exec(field);
      const subject = m ? m[1]!.toLowerCase() : "field";
      define(cond, subject, m ? m[2]! : field);
      put(joinPointer(cp, subject), fieldCell, fieldCell);
    }
    if (op !== "") {
      const v = csvValue(valueCell?.text ?? "");
      const vp = joinPointer(cp, op);
      if ("problem" in v) {
        problem(valueCell!, vp, `rule \`${name}\` (row ${r.row}): ${v.problem}`, v.hint);
        continue;
      } else {
        define(cond, op, v.value);
        const value = v.value;
        const vc = hasValue ? valueCell : opCell;
        put(vp, vc, opCell);
        if (Array.isArray(value)) value.forEach((_, k) => put(joinPointer(vp, k), vc));
        else if (value !== null && typeof value === "object") for (const k of Object.keys(value)) put(joinPointer(vp, k), vc);
      }
    }
    when.push(cond);
  }
  const data: Record<string, unknown> = {};
  define(data, "rules", rules);
  source.data = data;
  positions.set("", { value: at(header.cells[0]!) });
  positions.set("/rules", { value: at(header.cells[0]!) });
  return source;
}

function clipText(s: string): string {
  const one = s.replace(/\s+/g, " ");
  return one.length > 40 ? one.slice(0, 40) + "…" : one;
}
