/**
 * The RFC 4180 reader under the rules spreadsheet: quoted cells with commas, quotes and line
 * breaks; CRLF / LF / CR records; positions of every cell; strict errors; and a round trip over
 * random cells written the way a spreadsheet writes them.
 */
import { describe, expect, it } from "vitest";
import { columnLetter, parseCsv } from "../../worker/portable/engine/rulebook/index.js";
import { prng as makePrng } from "../helpers/prng.js";

/** mulberry32: every random case reproduces from its seed */

const texts = (csv: string) => parseCsv(csv).records.map((r) => r.cells.map((c) => c.text));

describe("parseCsv", () => {
  it("reads plain records, LF, CRLF and CR alike", () => {
    expect(texts("a,b,c\n1,2,3\n")).toEqual([["a", "b", "c"], ["1", "2", "3"]]);
    expect(texts("a,b\r\n1,2\r\n")).toEqual([["a", "b"], ["1", "2"]]);
    expect(texts("a,b\r1,2")).toEqual([["a", "b"], ["1", "2"]]);
    expect(texts("a,b\n1,2")).toEqual([["a", "b"], ["1", "2"]]); // no final line break
  });

  it("keeps empty cells, a trailing comma and an empty line", () => {
    expect(texts("a,,c\n,,\n")).toEqual([["a", "", "c"], ["", "", ""]]);
    expect(texts("a,b,")).toEqual([["a", "b", ""]]);
    expect(texts("a\n\nb\n")).toEqual([["a"], [""], ["b"]]);
  });

  it("reads quoted cells with commas, doubled quotes and line breaks", () => {
    const csv = 'name,question\nr,"Over 500, really?"\nq,"say ""hi"""\nm,"two\nlines"\ncr,"a\r\nb"\ne,""\n';
    expect(texts(csv)).toEqual([["name", "question"], ["r", "Over 500, really?"], ["q", 'say "hi"'], ["m", "two\nlines"], ["cr", "a\r\nb"], ["e", ""]]);
  });

  it("skips a byte-order mark", () => {
    expect(texts("\ufeffname,flow\n")).toEqual([["name", "flow"]]);
    expect(parseCsv("\ufeffname,flow\n").records[0]!.cells[0]!.column).toBe(1);
  });

  it("gives every cell the line and column where it starts, and rows as a spreadsheet counts them", () => {
    const { records } = parseCsv('a,b\n"x\ny",z\nlast,"q"\n');
    const at = records.map((r) => [r.row, r.cells.map((c) => `${c.line}:${c.column}${c.quoted ? "q" : ""}`)]);
    expect(at).toEqual([
      [1, ["1:1", "1:3"]],
      [2, ["2:1q", "3:4"]],
      [3, ["4:1", "4:6q"]],
    ]);
  });

  it.each([
    ["a quote never closed", 'a,b\n1,"open\n', 2, 3, "never closed"],
    ["text after a closing quote", 'a,b\n"x"y,2\n', 2, 4, "text follows the closing"],
    ["a quote inside an unquoted cell", 'a,b\n1,x"y\n', 2, 4, "inside a cell that does not start with one"],
  ])("refuses %s at its position", (_what, csv, line, column, message) => {
    const { problems } = parseCsv(csv);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ line, column });
    expect(problems[0]!.message).toContain(message);
    expect(problems[0]!.hint).toBeTruthy();
  });

  it("names spreadsheet columns", () => {
    expect([0, 1, 25, 26, 27, 51, 52, 701, 702].map(columnLetter)).toEqual(["A", "B", "Z", "AA", "AB", "AZ", "BA", "ZZ", "AAA"]);
  });

  it("reads back random cells written the way a spreadsheet writes them (seeded)", () => {
    const rand = makePrng(4180);
    const alphabet = ['a', 'Z', '9', ' ', ',', '"', "\n", "\r\n", "é", "ç", "|", ":", "[", "{"];
    const cell = () => {
      let s = "";
      const n = Math.floor(rand() * 8);
      for (let i = 0; i < n; i++) s += alphabet[Math.floor(rand() * alphabet.length)];
      return s;
    };
    const write = (s: string) => (/[",\r\n]/.test(s) || (s !== s.trim() && rand() < 0.5) ? `"${s.replace(/"/g, '""')}"` : s);
    for (let round = 0; round < 300; round++) {
      const width = 1 + Math.floor(rand() * 5);
      const rows = Array.from({ length: 1 + Math.floor(rand() * 6) }, () => Array.from({ length: width }, cell));
      // a record of one empty cell is written as an empty line: quote it so it stays a record
      const text = rows.map((r) => r.map((c) => (r.length === 1 && c === "" ? '""' : write(c))).join(",")).join(rand() < 0.5 ? "\n" : "\r\n") + (rand() < 0.5 ? "\n" : "");
      const { records, problems } = parseCsv(text);
      expect(problems).toEqual([]);
      expect(records.map((r) => r.cells.map((c) => c.text))).toEqual(rows);
    }
  });
});
