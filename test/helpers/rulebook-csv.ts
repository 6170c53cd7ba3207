/** test/fixtures/rulebooks/rich.csv, and the same spreadsheet with its `name` column moved last. */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const richCsv = readFileSync(join(import.meta.dirname, "../fixtures/rulebooks/rich.csv"), "utf8");

/** Each record's first cell moved to the end, cells kept as written (quotes, line breaks): a header starting `flow,`. */
export function nameLast(csv: string): string {
  const records: string[][] = [];
  let cells: string[] = [];
  let cell = "";
  let quoted = false;
  for (const ch of csv) {
    if (ch === '"') quoted = !quoted; // a doubled quote flips twice
    if (!quoted && ch === ",") {
      cells.push(cell);
      cell = "";
    } else if (!quoted && ch === "\n") {
      records.push([...cells, cell]);
      cells = [];
      cell = "";
    } else cell += ch;
  }
  if (cell !== "" || cells.length > 0) records.push([...cells, cell]);
  return records.map((r) => [...r.slice(1), r[0]].join(",")).join("\n") + (csv.endsWith("\n") ? "\n" : "");
}
