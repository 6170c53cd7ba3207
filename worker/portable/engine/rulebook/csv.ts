/**
 * A small RFC 4180 reader: records separated by CRLF, LF or CR; cells by `,`; a cell that starts
 * with `"` runs to the matching `"` and may hold commas, line breaks and `""` (one quote). Every
 * cell keeps the line and column where it starts, so a rules spreadsheet's errors point at cells.
 * Strict where a spreadsheet would never write something (a stray quote, text after a closing
 * quote, a quote never closed): those are problems, not guesses. A byte-order mark is skipped.
 */

export interface CsvCell {
  /** the cell's text, quotes removed and `""` read as `"` */
  text: string;
  /** where the cell starts (its opening quote, when quoted); 1-based */
  line: number;
  column: number;
  quoted: boolean;
}

export interface CsvRecord {
  cells: CsvCell[];
  /** 1-based: the header is record 1, as a spreadsheet numbers rows */
  row: number;
}

export interface CsvProblem {
  line: number;
  column: number;
  message: string;
  hint?: string;
}

/** Characters read at most (the same bound as a YAML rulebook). */
const MAX_CSV_TEXT = 16 * 1024 * 1024;
/** Records read at most. */
const MAX_CSV_RECORDS = 100_000;

export function parseCsv(text: string): { records: CsvRecord[]; problems: CsvProblem[] } {
  const records: CsvRecord[] = [];
  const problems: CsvProblem[] = [];
  if (text.length > MAX_CSV_TEXT) {
    problems.push({ line: 1, column: 1, message: `the spreadsheet is ${text.length} characters long; at most ${MAX_CSV_TEXT} are read` });
    return { records, problems };
  }
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  let lineStart = i;
  let cells: CsvCell[] = [];
  const n = text.length;
  const endRecord = () => {
    records.push({ cells, row: records.length + 1 });
    cells = [];
  };
  /** past a line break at i (CRLF, LF or CR); true if there was one */
  const newline = (): boolean => {
    const c = text.charCodeAt(i);
    if (c === 13) {
      i += text.charCodeAt(i + 1) === 10 ? 2 : 1;
    } else if (c === 10) {
      i += 1;
    } else return false;
    line++;
    lineStart = i;
    return true;
  };

  while (i < n) {
    if (records.length >= MAX_CSV_RECORDS) {
      problems.push({ line, column: 1, message: `the spreadsheet has more than ${MAX_CSV_RECORDS} rows`, hint: "split it into several rulebooks" });
      return { records, problems };
    }
    const cell: CsvCell = { text: "", line, column: i - lineStart + 1, quoted: false };
    if (text.charCodeAt(i) === 34) {
      // a quoted cell: runs to the next `"` not followed by another `"`
      cell.quoted = true;
      const open = { line, column: cell.column };
      i++;
      let out = "";
      let closed = false;
      while (i < n) {
        const c = text.charCodeAt(i);
        if (c === 34) {
          if (text.charCodeAt(i + 1) === 34) {
            out += '"';
            i += 2;
            continue;
          }
          i++;
          closed = true;
          break;
        }
        if (c === 13 || c === 10) {
          out += c === 13 && text.charCodeAt(i + 1) === 10 ? "\r\n" : text[i];
          newline();
          continue;
        }
        const next = text.indexOf('"', i);
        const stop = next === -1 ? n : next;
        // copy up to the next quote or line break in one go
        let j = i;
        while (j < stop) {
          const d = text.charCodeAt(j);
          if (d === 13 || d === 10) break;
          j++;
        }
        out += text.slice(i, j);
        i = j;
      }
      cell.text = out;
      if (!closed) {
        problems.push({ line: open.line, column: open.column, message: "this quoted cell is never closed", hint: 'close it with `"`; a quote inside a quoted cell is written `""`' });
        cells.push(cell);
        endRecord();
        return { records, problems };
      }
      if (i < n && text.charCodeAt(i) !== 44 && text.charCodeAt(i) !== 13 && text.charCodeAt(i) !== 10) {
        problems.push({ line, column: i - lineStart + 1, message: "text follows the closing `\"` of a quoted cell", hint: 'after a closing quote comes `,` or the end of the line; a quote inside a quoted cell is written `""`' });
        // skip to the end of this cell so the rest of the row is still read
        while (i < n && text.charCodeAt(i) !== 44 && text.charCodeAt(i) !== 13 && text.charCodeAt(i) !== 10) i++;
      }
    } else {
      let j = i;
      while (j < n) {
        const c = text.charCodeAt(j);
        if (c === 44 || c === 13 || c === 10) break;
        if (c === 34) problems.push({ line, column: j - lineStart + 1, message: "a `\"` inside a cell that does not start with one", hint: 'quote the whole cell and double the quote: `"say ""hi"""`' });
        j++;
      }
      cell.text = text.slice(i, j);
      i = j;
    }
    cells.push(cell);
    if (i >= n) break;
    if (text.charCodeAt(i) === 44) {
      i++;
      if (i >= n) cells.push({ text: "", line, column: i - lineStart + 1, quoted: false }); // `a,` at the very end
      continue;
    }
    newline();
    endRecord();
  }
  if (cells.length > 0) endRecord();
  return { records, problems };
}

/** A spreadsheet's column letter: 0 → A, 25 → Z, 26 → AA. */
export function columnLetter(index: number): string {
  let s = "";
  let k = index + 1;
  while (k > 0) {
    const r = (k - 1) % 26;
    s = String.fromCharCode(65 + r) + s;
    k = Math.floor((k - 1) / 26);
  }
  return s;
}
