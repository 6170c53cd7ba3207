/**
 * The condition language (checks.md "Conditions, limits, spend, outcomes"), parser and evaluator
 * together: every condition below is written in YAML, compiled by `loadCatalogue` as a `checks`
 * entry, then evaluated. One table of cases: every operator × operand kind (value, list, `from`,
 * `from` with `[]`) × subject kind (`field`, `field` with `[]`, `total`, `count`), `any:`,
 * unreadable values, dates, and the spec's own examples. Then the few shapes YAML cannot write,
 * the three-valued rules of `evaluateAll`, and a seeded property test (nothing ever throws; the
 * opposite operators answer opposite).
 */
import { describe, expect, it } from "vitest";
import { loadCatalogue } from "../../worker/portable/engine/catalogue/index.js";
import type { Condition } from "../../worker/portable/engine/catalogue/types.js";
import { evaluate, evaluateAll, fromResults, parseInstant, type Scope, type Truth, type Verdict } from "../../worker/portable/engine/conditions/index.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";
import { prng as mulberry32 } from "../helpers/prng.js";

/** What the tools last returned, unless a case says otherwise. */
const RESULTS: Record<string, unknown> = {
  check_stock: { in_stock: 5 },
  src: { n: 5, status: "paid", skills: ["go", "rust", "sql"], tag: "vip", since: "2025-01-01T00:00:00Z", range: [1, 10] },
};

interface Case {
  name: string;
  /** the condition, as a YAML flow map */
  cond: string;
  subject: unknown;
  truth: Truth;
  /** replaces RESULTS (a tool left out never returned) */
  results?: Record<string, unknown>;
  unknown?: string;
  wording?: string | RegExp;
}

const c = (name: string, cond: string, subject: unknown, truth: Truth, more: Partial<Case> = {}): Case => ({ name, cond, subject, truth, ...more });
const NONE = {}; // no tool returned anything

const CASES: Case[] = [
  // ── is ───────────────────────────────────────────────────────────────────────────────────────
  c("is: equal", "{field: status, is: paid}", { status: "paid" }, "holds"),
  c("is: different", "{field: status, is: paid}", { status: "pending" }, "fails", { wording: '`status` is "pending", not "paid".' }),
  c("is: missing field", "{field: status, is: paid}", {}, "unknown", { unknown: "status", wording: "`status` could not be read: `status` is missing." }),
  c("is: number", "{field: n, is: 5}", { n: 5 }, "holds"),
  c("is: a string is not a number", "{field: n, is: 5}", { n: "5" }, "fails"),
  c("is: true", "{field: flag, is: true}", { flag: true }, "holds"),
  c("is: \"true\" is not true", "{field: flag, is: true}", { flag: "true" }, "fails"),
  c("is: null", "{field: x, is: null}", { x: null }, "holds"),
  c("is: null is not absent", "{field: x, is: null}", {}, "unknown", { unknown: "x" }),
  c("is: from", "{field: status, is: {from: src.status}}", { status: "paid" }, "holds"),
  c("is: from never returned", "{field: status, is: {from: src.status}}", { status: "paid" }, "unknown", { results: NONE, unknown: "src.status", wording: "`src.status` could not be read: `src` has not returned it in this session." }),
  c("is: every item", '{field: "items[].status", is: ok}', { items: [{ status: "ok" }, { status: "ok" }] }, "holds"),
  c("is: one item differs", '{field: "items[].status", is: ok}', { items: [{ status: "ok" }, { status: "late" }] }, "fails", { wording: '`items[].status` has "late", not "ok".' }),
  c("is: no items holds vacuously", '{field: "items[].status", is: ok}', { items: [] }, "holds"),
  c("is: one item unreadable", '{field: "items[].status", is: ok}', { items: [{ status: "ok" }, {}] }, "unknown", { unknown: "items[].status", wording: "`items[].status` could not be read: one of the values of `items[].status` is missing." }),
  c("is: an unreadable item and a failing one fail", '{field: "items[].status", is: ok}', { items: [{}, { status: "late" }] }, "fails"),
  c("is: the list is missing", '{field: "items[].status", is: ok}', {}, "unknown", { unknown: "items[].status" }),
  c("is: the list is not a list", '{field: "items[].status", is: ok}', { items: "ok" }, "unknown"),
  c("is: a list against a value is a wrong type", "{field: tags, is: vip}", { tags: ["vip"] }, "unknown", { unknown: "tags", wording: /not a single value/ }),
  c("is: nested index", '{field: "order.lines[1].sku", is: A2}', { order: { lines: [{ sku: "A1" }, { sku: "A2" }] } }, "holds"),
  c("is: index past the end", '{field: "order.lines[1].sku", is: A2}', { order: { lines: [{ sku: "A1" }] } }, "unknown"),
  c("is: a name does not read into a list", '{field: "order.lines.sku", is: A2}', { order: { lines: [{ sku: "A2" }] } }, "unknown"),
  c("is: inherited properties are not fields", "{field: constructor, is: x}", {}, "unknown"),
  c("is: a rulebook subject {args, facts}", '{field: "args.amount", is: 40}', { args: { amount: 40 }, facts: {} }, "holds"),

  // ── is_not ───────────────────────────────────────────────────────────────────────────────────
  c("is_not: other value", "{field: status, is_not: cancelled}", { status: "paid" }, "holds"),
  c("is_not: the value", "{field: status, is_not: cancelled}", { status: "cancelled" }, "fails", { wording: '`status` is "cancelled", which it must not be.' }),
  c("is_not: missing is never a pass", "{field: status, is_not: cancelled}", {}, "unknown"),
  c("is_not: from, equal", "{field: status, is_not: {from: src.status}}", { status: "paid" }, "fails", { wording: '`status` is "paid", the same as `src.status` "paid", which it must not be.' }),
  c("is_not: from, different", "{field: status, is_not: {from: src.status}}", { status: "new" }, "holds"),
  c("is_not: a list is not silently different", "{field: tags, is_not: banned}", { tags: ["banned"] }, "unknown"),
  c("is_not: every item", '{field: "tags[]", is_not: banned}', { tags: ["ok", "banned"] }, "fails"),

  // ── one_of ───────────────────────────────────────────────────────────────────────────────────
  c("one_of: in the list (spec)", '{field: zip, one_of: ["94110", "94114"], because: "We only deliver there."}', { zip: "94110" }, "holds"),
  c("one_of: not in the list says because (spec)", '{field: zip, one_of: ["94110", "94114"], because: "We only deliver there."}', { zip: "10001" }, "fails", { wording: "We only deliver there." }),
  c("one_of: a number is not the string", '{field: zip, one_of: ["94110", "94114"], because: "We only deliver there."}', { zip: 94110 }, "fails"),
  c("one_of: missing is a plain sentence, not because", '{field: zip, one_of: ["94110", "94114"], because: "We only deliver there."}', {}, "unknown", { wording: "`zip` could not be read: `zip` is missing." }),
  c("one_of: plain wording", '{field: zip, one_of: ["94110", "94114"]}', { zip: "10001" }, "fails", { wording: '`zip` is "10001", not one of "94110", "94114".' }),
  c("one_of: from []", '{field: skill, one_of: {from: "src.skills[]"}}', { skill: "go" }, "holds"),
  c("one_of: from [], not there", '{field: skill, one_of: {from: "src.skills[]"}}', { skill: "cobol" }, "fails", { wording: '`skill` is "cobol", not one of `src.skills[]` ["go", "rust", "sql"].' }),
  c("one_of: from [] never returned", '{field: skill, one_of: {from: "src.skills[]"}}', { skill: "go" }, "unknown", { results: NONE, unknown: "src.skills[]" }),
  c("one_of: from a list field", "{field: skill, one_of: {from: src.skills}}", { skill: "rust" }, "holds"),
  c("one_of: from a number is a wrong operand", "{field: skill, one_of: {from: src.n}}", { skill: "go" }, "unknown", { unknown: "src.n", wording: "`src.n` 5 is not a list, so `one_of` cannot compare `skill` with it." }),
  c("one_of: every required skill is a resume skill", '{field: "required_skills[]", one_of: {from: "read_resume.skills[]"}}', { required_skills: ["go", "sql"] }, "holds", { results: { read_resume: { skills: ["go", "rust", "sql"] } } }),
  c("one_of: one required skill missing from the resume", '{field: "required_skills[]", one_of: {from: "read_resume.skills[]"}}', { required_skills: ["go", "cobol"] }, "fails", { results: { read_resume: { skills: ["go", "rust", "sql"] } }, wording: '`required_skills[]` has "cobol", not one of `read_resume.skills[]` ["go", "rust", "sql"].' }),
  c("one_of: no required skills holds vacuously", '{field: "required_skills[]", one_of: {from: "read_resume.skills[]"}}', { required_skills: [] }, "holds", { results: { read_resume: { skills: ["go"] } } }),
  c("one_of: no required skills holds even before the resume was read", '{field: "required_skills[]", one_of: {from: "read_resume.skills[]"}}', { required_skills: [] }, "holds", { results: NONE }),
  c("one_of: required skills, resume never read", '{field: "required_skills[]", one_of: {from: "read_resume.skills[]"}}', { required_skills: ["go"] }, "unknown", { results: NONE, unknown: "read_resume.skills[]" }),
  c("one_of: a list subject is a wrong type", "{field: tags, one_of: [a, b]}", { tags: ["a"] }, "unknown", { wording: /write `path\[\]`/ }),
  c("one_of: numbers", "{field: n, one_of: [1, 2, 3]}", { n: 2 }, "holds"),
  c("one_of: booleans", "{field: flag, one_of: [true]}", { flag: false }, "fails"),
  c("one_of: null", "{field: x, one_of: [null, a]}", { x: null }, "holds"),

  // ── none_of ──────────────────────────────────────────────────────────────────────────────────
  c("none_of: not in the list", '{field: zip, none_of: ["94110"]}', { zip: "10001" }, "holds"),
  c("none_of: in the list", '{field: zip, none_of: ["94110"]}', { zip: "94110" }, "fails", { wording: '`zip` is "94110", which is among "94110".' }),
  c("none_of: every item, one banned", '{field: "tags[]", none_of: [banned]}', { tags: ["ok", "banned"] }, "fails"),
  c("none_of: every item, none banned", '{field: "tags[]", none_of: [banned]}', { tags: ["ok"] }, "holds"),
  c("none_of: no items", '{field: "tags[]", none_of: [banned]}', { tags: [] }, "holds"),
  c("none_of: from [], not there", '{field: skill, none_of: {from: "src.skills[]"}}', { skill: "cobol" }, "holds"),
  c("none_of: from [], there", '{field: skill, none_of: {from: "src.skills[]"}}', { skill: "go" }, "fails"),
  c("none_of: a list subject is never a silent pass", "{field: tags, none_of: [banned]}", { tags: ["banned"] }, "unknown"),

  // ── at_least / at_most / under / over ─────────────────────────────────────────────────────────
  c("at_most: quantity 7 against in_stock 5 (spec)", "{field: quantity, at_most: {from: check_stock.in_stock}}", { quantity: 7 }, "fails", { wording: "`quantity` is 7, more than `check_stock.in_stock` 5." }),
  c("at_most: equal holds", "{field: quantity, at_most: {from: check_stock.in_stock}}", { quantity: 5 }, "holds"),
  c("at_most: a numeric string is a wrong type", "{field: quantity, at_most: {from: check_stock.in_stock}}", { quantity: "7" }, "unknown", { unknown: "quantity", wording: '`quantity` is "7", not a number, so `at_most` cannot compare it.' }),
  c("at_most: check_stock never ran", "{field: quantity, at_most: {from: check_stock.in_stock}}", { quantity: 1 }, "unknown", { results: NONE, unknown: "check_stock.in_stock" }),
  c("at_most: check_stock returned a string", "{field: quantity, at_most: {from: check_stock.in_stock}}", { quantity: 1 }, "unknown", { results: { check_stock: { in_stock: "five" } }, unknown: "check_stock.in_stock" }),
  c("at_most: check_stock returned without the field", "{field: quantity, at_most: {from: check_stock.in_stock}}", { quantity: 1 }, "unknown", { results: { check_stock: {} }, unknown: "check_stock.in_stock" }),
  c("at_least: equal holds", "{field: salary, at_least: 70000}", { salary: 70000 }, "holds"),
  c("at_least: less", "{field: salary, at_least: 70000}", { salary: 69999 }, "fails", { wording: "`salary` is 69999, less than 70000." }),
  c("at_least: null is a wrong type", "{field: salary, at_least: 70000}", { salary: null }, "unknown"),
  c("at_least: true is a wrong type", "{field: salary, at_least: 70000}", { salary: true }, "unknown"),
  c("under: less", "{field: price, under: 10}", { price: 9.99 }, "holds"),
  c("under: equal fails", "{field: price, under: 10}", { price: 10 }, "fails", { wording: "`price` is 10, not less than 10." }),
  c("over: equal fails", "{field: price, over: 0}", { price: 0 }, "fails", { wording: "`price` is 0, not more than 0." }),
  c("over: more", "{field: price, over: 0}", { price: 0.01 }, "holds"),
  c("over: negative", "{field: price, over: 0}", { price: -1 }, "fails"),
  c("at_most: every item", '{field: "items[].price", at_most: 100}', { items: [{ price: 50 }, { price: 100 }] }, "holds"),
  c("at_most: one item over", '{field: "items[].price", at_most: 100}', { items: [{ price: 50 }, { price: 101 }] }, "fails", { wording: "`items[].price` has 101, more than 100." }),
  c("at_most: no items", '{field: "items[].price", at_most: 100}', { items: [] }, "holds"),
  c("at_most: one item a string", '{field: "items[].price", at_most: 100}', { items: [{ price: 50 }, { price: "x" }] }, "unknown", { unknown: "items[].price", wording: '`items[].price` has "x", not a number, so `at_most` cannot compare it.' }),
  c("at_most: a string item and an item over fail", '{field: "items[].price", at_most: 100}', { items: [{ price: "x" }, { price: 101 }] }, "fails"),
  c("at_least: nested []", '{field: "orders[].items[].qty", at_least: 1}', { orders: [{ items: [{ qty: 1 }] }, { items: [{ qty: 2 }, { qty: 3 }] }] }, "holds"),
  c("at_least: nested [], one under", '{field: "orders[].items[].qty", at_least: 1}', { orders: [{ items: [{ qty: 1 }] }, { items: [{ qty: 0 }] }] }, "fails"),
  c("at_least: nested [], an order without items", '{field: "orders[].items[].qty", at_least: 1}', { orders: [{ items: [{ qty: 1 }] }, {}] }, "unknown"),
  c("at_least: from", "{field: n, at_least: {from: src.n}}", { n: 5 }, "holds"),
  c("over: from, equal", "{field: n, over: {from: src.n}}", { n: 5 }, "fails", { wording: "`n` is 5, not more than `src.n` 5." }),

  // ── between ──────────────────────────────────────────────────────────────────────────────────
  c("between: low bound", "{field: n, between: [1, 10]}", { n: 1 }, "holds"),
  c("between: high bound", "{field: n, between: [1, 10]}", { n: 10 }, "holds"),
  c("between: under", "{field: n, between: [1, 10]}", { n: 0 }, "fails", { wording: "`n` is 0, not between 1 and 10." }),
  c("between: over", "{field: n, between: [1, 10]}", { n: 11 }, "fails"),
  c("between: a string is a wrong type", "{field: n, between: [1, 10]}", { n: "5" }, "unknown"),
  c("between: dates", '{field: d, between: ["2025-01-01", "2025-12-31"]}', { d: "2025-06-01" }, "holds"),
  c("between: the last day", '{field: d, between: ["2025-01-01", "2025-12-31"]}', { d: "2025-12-31" }, "holds"),
  c("between: a second after the last midnight", '{field: d, between: ["2025-01-01", "2025-12-31"]}', { d: "2025-12-31T00:00:01Z" }, "fails"),
  c("between: after", '{field: d, between: ["2025-01-01", "2025-12-31"]}', { d: "2026-01-01" }, "fails"),
  c("between: not a date", '{field: d, between: ["2025-01-01", "2025-12-31"]}', { d: "soon" }, "unknown", { wording: /not an ISO 8601 date/ }),
  c("between: from", "{field: n, between: {from: src.range}}", { n: 3 }, "holds"),
  c("between: from, outside", "{field: n, between: {from: src.range}}", { n: 11 }, "fails", { wording: "`n` is 11, not between 1 and 10 (`src.range`)." }),
  c("between: from a one-item list", "{field: n, between: {from: src.range}}", { n: 1 }, "unknown", { results: { src: { range: [1] } }, unknown: "src.range" }),

  // ── before / after ───────────────────────────────────────────────────────────────────────────
  c("before: the day before", '{field: due, before: "2025-01-31"}', { due: "2025-01-30" }, "holds"),
  c("before: the same day fails", '{field: due, before: "2025-01-31"}', { due: "2025-01-31" }, "fails", { wording: '`due` is "2025-01-31", not before "2025-01-31".' }),
  c("before: the last millisecond", '{field: due, before: "2025-01-31"}', { due: "2025-01-30T23:59:59.999Z" }, "holds"),
  c("before: an offset reaching midnight", '{field: due, before: "2025-01-31"}', { due: "2025-01-30T23:00:00-01:00" }, "fails"),
  c("before: an offset a second short", '{field: due, before: "2025-01-31"}', { due: "2025-01-30T22:59:59-01:00" }, "holds"),
  c("before: a positive offset", '{field: due, before: "2025-01-31"}', { due: "2025-01-31T00:30:00+01:00" }, "holds"),
  c("before: a word is not a date", '{field: due, before: "2025-01-31"}', { due: "tomorrow" }, "unknown", { unknown: "due", wording: '`due` is "tomorrow", not an ISO 8601 date, so `before` cannot compare it.' }),
  c("before: a number is not a date", '{field: due, before: "2025-01-31"}', { due: 20250130 }, "unknown"),
  c("before: 30 February is not a date", '{field: due, before: "2025-03-31"}', { due: "2025-02-30" }, "unknown"),
  c("before: slashes are not ISO 8601", '{field: due, before: "2025-01-31"}', { due: "2025/01/30" }, "unknown"),
  c("before: hour 24 is not a time", '{field: due, before: "2025-01-31"}', { due: "2025-01-30T24:00:00Z" }, "unknown"),
  c("after: from", "{field: at, after: {from: src.since}}", { at: "2025-01-01T00:00:01Z" }, "holds"),
  c("after: from, the same instant fails", "{field: at, after: {from: src.since}}", { at: "2025-01-01" }, "fails"),
  c("after: from, not a date", "{field: at, after: {from: src.since}}", { at: "2025-01-02" }, "unknown", { results: { src: { since: "yesterday" } }, unknown: "src.since" }),
  c("after: a fraction of a second", '{field: at, after: "2025-01-31T00:00:00Z"}', { at: "2025-01-31T00:00:00.5Z" }, "holds"),
  c("before: no offset reads as UTC", '{field: at, before: "2025-01-31T00:00:01Z"}', { at: "2025-01-31T00:00:00" }, "holds"),
  c("after: every event", '{field: "events[].at", after: "2025-01-01"}', { events: [{ at: "2025-02-01" }, { at: "2025-03-01T10:00:00Z" }] }, "holds"),
  c("after: one event before", '{field: "events[].at", after: "2025-01-01"}', { events: [{ at: "2025-02-01" }, { at: "2024-12-31" }] }, "fails"),
  c("after: 29 February of a leap year", '{field: at, after: "2025-01-01"}', { at: "2024-02-29" }, "fails"),
  c("after: 29 February of another year", '{field: at, after: "2025-01-01"}', { at: "2023-02-29" }, "unknown"),

  // ── contains ─────────────────────────────────────────────────────────────────────────────────
  c("contains: substring", "{field: note, contains: urgent}", { note: "very urgent please" }, "holds"),
  c("contains: no substring", "{field: note, contains: urgent}", { note: "calm" }, "fails", { wording: '`note` does not contain "urgent".' }),
  c("contains: a number is a wrong type", "{field: note, contains: urgent}", { note: 5 }, "unknown"),
  c("contains: missing", "{field: note, contains: urgent}", {}, "unknown"),
  c("contains: list element", "{field: tags, contains: vip}", { tags: ["vip", "new"] }, "holds"),
  c("contains: empty list", "{field: tags, contains: vip}", { tags: [] }, "fails"),
  c("contains: a nested list is not the element", "{field: tags, contains: vip}", { tags: [["vip"]] }, "fails"),
  c("contains: [] values as one list", '{field: "items[].sku", contains: A1}', { items: [{ sku: "A2" }, { sku: "A1" }] }, "holds"),
  c("contains: found among readable values", '{field: "items[].sku", contains: A1}', { items: [{}, { sku: "A1" }] }, "holds"),
  c("contains: not found, one unreadable", '{field: "items[].sku", contains: A1}', { items: [{}, { sku: "A2" }] }, "unknown", { unknown: "items[].sku" }),
  c("contains: not found", '{field: "items[].sku", contains: A1}', { items: [{ sku: "A2" }] }, "fails"),
  c("contains: no items", '{field: "items[].sku", contains: A1}', { items: [] }, "fails"),
  c("contains: from", "{field: tags, contains: {from: src.tag}}", { tags: ["vip"] }, "holds"),
  c("contains: from [], all there", '{field: tags, contains: {from: "src.skills[]"}}', { tags: ["go", "rust", "sql", "x"] }, "holds"),
  c("contains: from [], one not there", '{field: tags, contains: {from: "src.skills[]"}}', { tags: ["go", "rust"] }, "fails", { wording: '`tags` does not contain "sql" (from `src.skills[]`).' }),
  c("contains: from [] in a string", '{field: note, contains: {from: "src.skills[]"}}', { note: "go, rust and sql" }, "holds"),
  c("contains: a number in a list", "{field: tags, contains: 5}", { tags: [5] }, "holds"),
  c("contains: a number in a string is a wrong operand", "{field: note, contains: 5}", { note: "5" }, "unknown"),

  // ── total ────────────────────────────────────────────────────────────────────────────────────
  c("total: under the ceiling", '{total: "items[].price", at_most: 25}', { items: [{ price: 10 }, { price: 15 }] }, "holds"),
  c("total: over the ceiling", '{total: "items[].price", at_most: 25}', { items: [{ price: 10 }, { price: 16 }] }, "fails", { wording: "the total of `items[].price` is 26, more than 25." }),
  c("total: no items is 0", '{total: "items[].price", at_most: 25}', { items: [] }, "holds"),
  c("total: a string inside", '{total: "items[].price", at_most: 25}', { items: [{ price: 10 }, { price: "5" }] }, "unknown", { unknown: "items[].price", wording: 'the total of `items[].price` could not be read: "5" in `items[].price` is not a number.' }),
  c("total: an item without price", '{total: "items[].price", at_most: 25}', { items: [{ price: 10 }, {}] }, "unknown"),
  c("total: a list of numbers", "{total: amounts, at_most: 25}", { amounts: [10, 15] }, "holds"),
  c("total: not a list", "{total: amounts, at_most: 25}", { amounts: 25 }, "unknown", { wording: "the total of `amounts` could not be read: `amounts` is 25, not a list." }),
  c("total: 0.1 + 0.2 is 0.3", "{total: amounts, at_most: 0.3}", { amounts: [0.1, 0.2] }, "holds"),
  c("total: nested []", '{total: "orders[].items[].price", over: 100}', { orders: [{ items: [{ price: 60 }] }, { items: [{ price: 30 }, { price: 20 }] }] }, "holds"),
  c("total: from", '{total: "items[].price", at_least: {from: src.n}}', { items: [{ price: 2 }, { price: 3 }] }, "holds"),

  // ── count ────────────────────────────────────────────────────────────────────────────────────
  c("count: at the ceiling", "{count: items, at_most: 3}", { items: [1, 2, 3] }, "holds"),
  c("count: over", "{count: items, at_most: 3}", { items: [1, 2, 3, 4] }, "fails", { wording: "the number of `items` is 4, more than 3." }),
  c("count: a string is not a list", "{count: items, at_most: 3}", { items: "abc" }, "unknown"),
  c("count: missing", "{count: items, at_most: 3}", {}, "unknown", { unknown: "items" }),
  c("count: [] of an empty list", '{count: "items[]", is: 0}', { items: [] }, "holds"),
  c("count: nested []", '{count: "orders[].items[]", at_least: 3}', { orders: [{ items: [1] }, { items: [2, 3] }] }, "holds"),
  c("count: a value missing among them", '{count: "items[].sku", at_most: 5}', { items: [{ sku: 1 }, {}] }, "unknown"),
  c("count: from", "{count: items, at_most: {from: src.n}}", { items: [1, 2, 3, 4, 5, 6] }, "fails"),

  // ── any ──────────────────────────────────────────────────────────────────────────────────────
  c("any: the first holds", "{any: [{field: a, is: 1}, {field: b, is: 2}]}", { a: 1 }, "holds"),
  c("any: the second holds", "{any: [{field: a, is: 1}, {field: b, is: 2}]}", { a: 0, b: 2 }, "holds"),
  c("any: one holds, one unreadable", "{any: [{field: a, is: 1}, {field: b, is: 2}]}", { b: 2 }, "holds"),
  c("any: none holds", "{any: [{field: a, is: 1}, {field: b, is: 2}]}", { a: 0, b: 0 }, "fails", { wording: "none of these holds: (1) `a` is 0, not 1. (2) `b` is 0, not 2." }),
  c("any: none holds, one unreadable", "{any: [{field: a, is: 1}, {field: b, is: 2}]}", { b: 3 }, "unknown", { unknown: "a" }),
  c("any: none readable", "{any: [{field: a, is: 1}, {field: b, is: 2}]}", {}, "unknown", { unknown: "a" }),
  c("any: because", '{any: [{field: a, is: 1}, {field: b, is: 2}], because: "Needs a or b."}', { a: 0, b: 0 }, "fails", { wording: "Needs a or b." }),
  c("any: nested, inner holds", "{any: [{field: a, is: 1}, {any: [{field: b, is: 2}, {field: c, at_least: 3}]}]}", { a: 0, b: 0, c: 3 }, "holds"),
  c("any: nested, none holds", "{any: [{field: a, is: 1}, {any: [{field: b, is: 2}, {field: c, at_least: 3}]}]}", { a: 0, b: 0, c: 0 }, "fails", { wording: /\(2\) none of these holds: \(1\) `b` is 0, not 2\. \(2\) `c` is 0, less than 3\./ }),
  c("any: a child's because in the list", '{any: [{field: a, is: 1, because: "A must be 1."}, {field: b, is: 2}]}', { a: 0, b: 0 }, "fails", { wording: "none of these holds: (1) A must be 1. (2) `b` is 0, not 2." }),
];

function yamlOf(conds: readonly string[]): string {
  return [
    "tools:",
    "  - name: check_stock",
    "    returns: {type: object, properties: {in_stock: {type: integer}}}",
    "  - name: read_resume",
    "    returns: {type: object, properties: {skills: {type: array, items: {type: string}}}}",
    "  - name: src",
    "    returns:",
    "      type: object",
    "      properties:",
    "        n: {type: number}",
    "        status: {type: string}",
    "        skills: {type: array, items: {type: string}}",
    "        tag: {type: string}",
    "        since: {type: string}",
    "        range: {type: array, items: {type: number}}",
    "  - name: subject",
    "    checks:",
    ...conds.map((x) => `      - ${x}`),
    "",
  ].join("\n");
}

const TEXTS = [...new Set(CASES.map((k) => k.cond))];
const CATALOGUE = loadCatalogue(yamlOf(TEXTS), { schemaCompiler: ajvCompiler, file: "conditions.yaml" });
const CHECKS = CATALOGUE.tools.get("subject")!.checks;
const compiled = (text: string): Condition => CHECKS[TEXTS.indexOf(text)]!;
const scopeOf = (subject: unknown, results: Record<string, unknown> = RESULTS): Scope => ({ subject, from: fromResults((tool) => results[tool]) });

describe("the condition table (YAML → catalogue → evaluate)", () => {
  it("covers every operator, subject kind and operand kind, with ≥ 80 cases", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(80);
    const ops = new Set<string>();
    const subjects = new Set<string>();
    const operands = new Set<string>();
    const walk = (x: Condition) => {
      if (x.kind === "any") return x.conditions.forEach(walk);
      ops.add(x.op);
      subjects.add(x.subject.kind + (x.subject.path.includes("[]") ? "[]" : ""));
      operands.add(x.operand.kind + (x.operand.kind === "from" && x.operand.path.includes("[]") ? "[]" : ""));
    };
    CHECKS.forEach(walk);
    expect([...ops].sort()).toEqual(["after", "at_least", "at_most", "before", "between", "contains", "is", "is_not", "none_of", "one_of", "over", "under"]);
    expect([...subjects].sort()).toEqual(["count", "count[]", "field", "field[]", "total", "total[]"]);
    expect([...operands].sort()).toEqual(["from", "from[]", "list", "value"]);
  });

  it.each(CASES)("$name", (k) => {
    const cond = compiled(k.cond);
    const v = evaluate(cond, scopeOf(k.subject, k.results));
    expect(v.truth).toBe(k.truth);
    if (k.truth === "holds") {
      expect(v).toEqual({ truth: "holds" });
      return;
    }
    expect(v.condition).toBeDefined();
    expect(typeof v.wording).toBe("string");
    expect(v.wording!.length).toBeGreaterThan(0);
    if (k.truth === "fails") expect(v.unknown).toBeUndefined();
    if (k.truth === "unknown") expect(typeof v.unknown).toBe("string");
    if (k.unknown !== undefined) expect(v.unknown).toBe(k.unknown);
    if (typeof k.wording === "string") expect(v.wording).toBe(k.wording);
    else if (k.wording) expect(v.wording).toMatch(k.wording);
  });

  it("a verdict names the compiled condition, with its place in the YAML", () => {
    const text = "{field: quantity, at_most: {from: check_stock.in_stock}}";
    const cond = compiled(text);
    const v = evaluate(cond, scopeOf({ quantity: 7 }));
    expect(v.condition).toBe(cond);
    expect(v.condition!.source).toEqual({ file: "conditions.yaml", line: 18 + TEXTS.indexOf(text), column: 9 });
  });

  it("inside an any, the unreadable alternative is named, not the any", () => {
    const any = compiled("{any: [{field: a, is: 1}, {field: b, is: 2}]}");
    const v = evaluate(any, scopeOf({ b: 3 }));
    expect(v.condition).toBe((any as Extract<Condition, { kind: "any" }>).conditions[0]);
    expect(evaluate(any, scopeOf({ a: 0, b: 0 })).condition).toBe(any);
  });
});

describe("evaluateAll: all must hold, three-valued", () => {
  const spec = loadCatalogue(
    [
      "tools:",
      "  - name: check_stock",
      "    returns: {type: object, properties: {in_stock: {type: integer}}}",
      "  - name: cancel_order",
      "    writes: true",
      "  - name: create_order",
      "    writes: true",
      "    undo: cancel_order",
      "    checks:",
      "      - {field: quantity, at_most: {from: check_stock.in_stock}}",
      '      - {field: zip, one_of: ["94110", "94114"], because: "We only deliver there."}',
      "",
    ].join("\n"),
    { schemaCompiler: ajvCompiler },
  );
  const checks = spec.tools.get("create_order")!.checks;
  const stock = (n?: number) => fromResults((tool) => (tool === "check_stock" && n !== undefined ? { in_stock: n } : undefined));

  it("holds when every condition holds", () => {
    expect(evaluateAll(checks, { subject: { quantity: 5, zip: "94114" }, from: stock(5) })).toEqual({ truth: "holds" });
  });
  it("an empty list holds", () => {
    expect(evaluateAll([], { subject: {}, from: stock() }).truth).toBe("holds");
  });
  it("quantity 7 against in_stock 5 fails (checks.md)", () => {
    const v = evaluateAll(checks, { subject: { quantity: 7, zip: "94110" }, from: stock(5) });
    expect(v).toMatchObject({ truth: "fails", condition: checks[0], wording: "`quantity` is 7, more than `check_stock.in_stock` 5." });
  });
  it("the first failure decides when two fail", () => {
    expect(evaluateAll(checks, { subject: { quantity: 7, zip: "10001" }, from: stock(5) }).condition).toBe(checks[0]);
  });
  it("a failure after an unknown one decides: fails, naming the failing condition", () => {
    const v = evaluateAll(checks, { subject: { quantity: 1, zip: "10001" }, from: stock() });
    expect(v).toMatchObject({ truth: "fails", condition: checks[1], wording: "We only deliver there." });
    expect(v.unknown).toBeUndefined();
  });
  it("a failure before an unknown one decides too", () => {
    const v = evaluateAll(checks, { subject: { quantity: 7 }, from: stock(5) });
    expect(v).toMatchObject({ truth: "fails", condition: checks[0] });
  });
  it("unknown when nothing fails and one is unknown", () => {
    const v = evaluateAll(checks, { subject: { quantity: 1, zip: "94110" }, from: stock() });
    expect(v).toMatchObject({ truth: "unknown", condition: checks[0], unknown: "check_stock.in_stock" });
  });
  it("the first unknown one decides when two are unknown", () => {
    const v = evaluateAll(checks, { subject: { quantity: 1 }, from: stock() });
    expect(v).toMatchObject({ truth: "unknown", condition: checks[0], unknown: "check_stock.in_stock" });
  });
  it("stops at the first failure", () => {
    let calls = 0;
    const from = (tool: string, path: string) => (calls++, stock(5)(tool, path));
    evaluateAll([checks[1]!, checks[0]!], { subject: { quantity: 1, zip: "10001" }, from });
    expect(calls).toBe(0);
  });
});

describe("shapes YAML cannot write, and the evaluator's own edges", () => {
  const src = { file: "test", line: 1, column: 1 };
  const cmp = (path: string, op: Extract<Condition, { kind: "compare" }>["op"], operand: Extract<Condition, { kind: "compare" }>["operand"], kind: "field" | "total" | "count" = "field"): Condition => ({ kind: "compare", subject: { kind, path }, op, operand, source: src });
  const scope = (subject: unknown, extra: Partial<Scope> = {}): Scope => ({ subject, from: () => undefined, ...extra });

  it("a path that does not parse is unknown", () => {
    const v = evaluate(cmp("a..b", "is", { kind: "value", value: 1 }), scope({ a: 1 }));
    expect(v).toMatchObject({ truth: "unknown", unknown: "a..b" });
  });
  it("is: lists and maps compare deeply, keys in any order", () => {
    expect(evaluate(cmp("x", "is", { kind: "value", value: { a: [1, { b: 2 }], c: null } }), scope({ x: { c: null, a: [1, { b: 2 }] } })).truth).toBe("holds");
    expect(evaluate(cmp("x", "is", { kind: "value", value: { a: 1 } }), scope({ x: { a: 1, b: 2 } })).truth).toBe("fails");
    expect(evaluate(cmp("x", "is", { kind: "list", values: [1, 2] }), scope({ x: [1, 2] })).truth).toBe("holds");
    expect(evaluate(cmp("x", "is_not", { kind: "list", values: [1, 2] }), scope({ x: [2, 1] })).truth).toBe("holds");
  });
  it("one_of with a single value as operand is a wrong operand", () => {
    expect(evaluate(cmp("x", "one_of", { kind: "value", value: 1 }), scope({ x: 1 })).truth).toBe("unknown");
  });
  it("an operand with no value is unknown", () => {
    expect(evaluate(cmp("x", "is_not", { kind: "value", value: undefined }), scope({ x: 1 })).truth).toBe("unknown");
  });
  it("between with one number and one date is a wrong operand", () => {
    expect(evaluate(cmp("x", "between", { kind: "list", values: [1, "2025-01-01"] }), scope({ x: 1 })).truth).toBe("unknown");
  });
  it("an empty any fails", () => {
    expect(evaluate({ kind: "any", conditions: [], source: src }, scope({})).truth).toBe("fails");
  });
  it("from_row reads scope.row, or the subject when no row is given", () => {
    const c = cmp("max", "at_least", { kind: "from_row", path: "min" });
    expect(evaluate(c, scope({ max: 5, min: 3 })).truth).toBe("holds");
    expect(evaluate(c, scope({ max: 5 }, { row: { min: 9 } })).truth).toBe("fails");
    expect(evaluate(c, scope({ max: 5 }, { row: {} }))).toMatchObject({ truth: "unknown", unknown: "min" });
  });
  it("a from that throws is unknown, not an exception", () => {
    const v = evaluate(cmp("x", "is", { kind: "from", tool: "t", path: "p" }), scope({ x: 1 }, { from: () => { throw new Error("store down"); } }));
    expect(v).toMatchObject({ truth: "unknown" });
    expect(v.wording).toMatch(/store down/);
  });
  it("data nested past any JSON's depth is unknown, not a stack overflow", () => {
    const nest = (n: number) => {
      const root: unknown[] = [];
      let cur = root;
      for (let i = 0; i < n; i++) {
        const next: unknown[] = [];
        cur.push(next);
        cur = next;
      }
      return root;
    };
    expect(evaluate(cmp("x", "is", { kind: "value", value: nest(100) }), scope({ x: nest(100) })).truth).toBe("holds");
    expect(evaluate(cmp("x", "is", { kind: "value", value: nest(10_000) }), scope({ x: nest(10_000) }))).toMatchObject({ truth: "unknown", wording: "the condition on `x` could not be evaluated: a value is nested too deeply." });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const other: Record<string, unknown> = {};
    other.self = other;
    expect(evaluate(cmp("x", "is_not", { kind: "value", value: cyclic }), scope({ x: other })).truth).toBe("unknown");
  });
  it("own properties only: __proto__ and length are not fields", () => {
    const subject = JSON.parse('{"__proto__": {"polluted": 1}, "list": [1, 2]}');
    expect(evaluate(cmp("__proto__.polluted", "is", { kind: "value", value: 1 }), scope(subject)).truth).toBe("holds");
    expect(evaluate(cmp("polluted", "is", { kind: "value", value: 1 }), scope(subject)).truth).toBe("unknown");
    expect(evaluate(cmp("list.length", "is", { kind: "value", value: 2 }), scope(subject)).truth).toBe("unknown");
    expect(evaluate(cmp("list", "is", { kind: "value", value: 2 }, "count"), scope(subject)).truth).toBe("holds");
  });
  it("a from that evaluates conditions itself (re-entry) does not disturb the outer verdict", () => {
    const inner = cmp("y", "is", { kind: "value", value: 2 });
    const outer = cmp("x", "at_most", { kind: "from", tool: "t", path: "p" });
    const from = () => (evaluate(inner, scope({ y: 3 })).truth === "fails" ? 5 : 100);
    const v = evaluate(outer, scope({ x: 7 }, { from }));
    expect(v).toMatchObject({ truth: "fails", condition: outer, wording: "`x` is 7, more than `t.p` 5." });
    expect(evaluate(outer, scope({ x: 5 }, { from })).truth).toBe("holds");
  });
  it("long values are cut short in the wording", () => {
    const v = evaluate(cmp("x", "is", { kind: "value", value: "a" }), scope({ x: "b".repeat(10_000) }));
    expect(v.wording!.length).toBeLessThan(200);
  });
});

describe("parseInstant: ISO 8601 only, the same on every runtime", () => {
  it.each([
    ["2025-01-31", Date.UTC(2025, 0, 31)],
    ["2025-01-31T12:34Z", Date.UTC(2025, 0, 31, 12, 34)],
    ["2025-01-31T12:34:56Z", Date.UTC(2025, 0, 31, 12, 34, 56)],
    ["2025-01-31t12:34:56z", Date.UTC(2025, 0, 31, 12, 34, 56)],
    ["2025-01-31 12:34:56", Date.UTC(2025, 0, 31, 12, 34, 56)],
    ["2025-01-31T12:34:56.789Z", Date.UTC(2025, 0, 31, 12, 34, 56, 789)],
    ["2025-01-31T12:34:56.7891234Z", Date.UTC(2025, 0, 31, 12, 34, 56, 789)],
    ["2025-01-31T12:34:56+02:00", Date.UTC(2025, 0, 31, 10, 34, 56)],
    ["2025-01-31T12:34:56-0530", Date.UTC(2025, 0, 31, 18, 4, 56)],
    ["2024-02-29", Date.UTC(2024, 1, 29)],
    ["2000-02-29", Date.UTC(2000, 1, 29)],
    ["0050-06-01", Date.parse("0050-06-01T00:00:00Z")],
    ["1969-12-31T23:59:59Z", -1000],
  ])("%s", (text, ms) => {
    expect(parseInstant(text)).toBe(ms);
  });
  it.each(["", "2025", "2025-1-31", "2025-13-01", "2025-00-10", "2025-01-32", "2023-02-29", "1900-02-29", "2025-01-31T", "2025-01-31T25:00Z", "2025-01-31T12:60Z", "2025-01-31T12:00:00.Z", "2025-01-31T12:00+2", "2025-01-31T12:00:00+24:00", "2025-01-31X12:00", "2025-01-31T12:00:00Zjunk", "+2025-01-31", "March 7, 2025", "2025/01/31", " 2025-01-31"])("%j is not a date", (text) => {
    expect(parseInstant(text)).toBeNaN();
  });
  it("numbers, null and objects are not dates", () => {
    for (const v of [0, 1738281600000, null, undefined, {}, ["2025-01-31"], true]) expect(parseInstant(v)).toBeNaN();
  });
});

// ── property test ──────────────────────────────────────────────────────────────────────────────

describe("property: random conditions over random data never throw, and opposites answer opposite", () => {
  const SEED = Number(process.env.FUZZ_SEED ?? 20250131);
  const rnd = mulberry32(SEED);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const NUMBERS = [0, -0, 1, -1, 0.1, 0.2, 0.30000000000000004, 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER, NaN, Infinity, -Infinity, 70000, 69999.99];
  const STRINGS = ["", "a", "go", "2025-01-31", "2025-01-31T00:00:00Z", "2025-02-30", "__proto__", "constructor", "x".repeat(500), "é", "0"];
  const PATHS = ["a", "b", "a.b", "a[]", "a[].b", "a[0]", "a[1].b", "a[].b[]", "a..b", "[]", "a[", "a]", "", " ", "a[x]", "a[99999999999]", "constructor", "__proto__", "length", "a.length", "a[]["];
  const OPS = ["is", "is_not", "one_of", "none_of", "at_least", "at_most", "under", "over", "between", "before", "after", "contains"] as const;
  const src = { file: "prop", line: 1, column: 1 };

  function value(depth: number): unknown {
    const r = rnd();
    if (depth > 3 || r < 0.35) return pick(NUMBERS);
    if (r < 0.6) return pick(STRINGS);
    if (r < 0.65) return pick([null, true, false, undefined]);
    if (r < 0.82) return Array.from({ length: Math.floor(rnd() * 4) }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = Math.floor(rnd() * 4); i > 0; i--) o[pick(["a", "b", "c", "__proto__", "length"])] = value(depth + 1);
    return o;
  }
  function operand(): Extract<Condition, { kind: "compare" }>["operand"] {
    const r = rnd();
    if (r < 0.4) return { kind: "value", value: value(2) };
    if (r < 0.7) return { kind: "list", values: Array.from({ length: Math.floor(rnd() * 4) }, () => value(3)) };
    if (r < 0.9) return { kind: "from", tool: pick(["t", "u"]), path: pick(PATHS) };
    return { kind: "from_row", path: pick(PATHS) };
  }
  function condition(depth: number): Condition {
    if (depth < 2 && rnd() < 0.15) return { kind: "any", conditions: Array.from({ length: Math.floor(rnd() * 3) }, () => condition(depth + 1)), source: src };
    return { kind: "compare", subject: { kind: pick(["field", "field", "total", "count"] as const), path: pick(PATHS) }, op: pick(OPS), operand: operand(), ...(rnd() < 0.2 ? { because: "because" } : {}), source: src };
  }
  const results: Record<string, unknown> = { t: value(0), u: { a: [1, 2], b: "2025-01-31" } };
  const from = fromResults((tool) => results[tool]);
  const ok = (v: Verdict) => {
    expect(["holds", "fails", "unknown"]).toContain(v.truth);
    if (v.truth === "holds") expect(v.wording).toBeUndefined();
    else expect(typeof v.wording).toBe("string");
  };

  it(`5,000 random conditions (seed ${SEED})`, () => {
    for (let i = 0; i < 5000; i++) {
      const cond = condition(0);
      const subject = rnd() < 0.8 ? { a: value(0), b: value(0) } : value(0);
      const s: Scope = { subject, from, ...(rnd() < 0.3 ? { row: value(0) } : {}) };
      let v: Verdict;
      try {
        v = evaluate(cond, s);
        ok(v);
        ok(evaluateAll([cond, condition(0)], s));
      } catch (err) {
        throw new Error(`seed ${SEED}, case ${i}: ${(err as Error).message}\n${JSON.stringify(cond)}\n${JSON.stringify(subject)}`);
      }
    }
  });

  it("random numbers: at_least ⇔ not under, at_most ⇔ not over, is ⇔ not is_not, one_of ⇔ not none_of", () => {
    const opposite = { at_least: "under", at_most: "over", is: "is_not", one_of: "none_of" } as const;
    for (let i = 0; i < 3000; i++) {
      const x = rnd() < 0.1 ? pick(NUMBERS) : Math.round((rnd() - 0.5) * 200) / 4;
      const y = rnd() < 0.1 ? pick(NUMBERS) : Math.round((rnd() - 0.5) * 200) / 4;
      const subject = rnd() < 0.05 ? { x: String(x) } : { x };
      for (const [op, opp] of Object.entries(opposite) as [keyof typeof opposite, (typeof opposite)[keyof typeof opposite]][]) {
        const operandFor = (o: string): Extract<Condition, { kind: "compare" }>["operand"] => (o === "one_of" || o === "none_of" ? { kind: "list", values: [y, y + 1] } : { kind: "value", value: y });
        const a = evaluate({ kind: "compare", subject: { kind: "field", path: "x" }, op, operand: operandFor(op), source: src }, { subject, from });
        const b = evaluate({ kind: "compare", subject: { kind: "field", path: "x" }, op: opp, operand: operandFor(opp), source: src }, { subject, from });
        if (a.truth === "unknown" || b.truth === "unknown") expect(a.truth).toBe(b.truth);
        else expect(a.truth === "holds").toBe(b.truth === "fails");
      }
    }
  });

  it("random paths over random data never throw", () => {
    const alphabet = ["a", "b", ".", "[", "]", "0", "1", "[]", " ", "_"];
    for (let i = 0; i < 3000; i++) {
      const path = Array.from({ length: Math.floor(rnd() * 8) }, () => pick(alphabet)).join("");
      for (const kind of ["field", "total", "count"] as const) {
        const v = evaluate({ kind: "compare", subject: { kind, path }, op: pick(OPS), operand: { kind: "from", tool: "t", path }, source: src }, { subject: value(0), from });
        ok(v);
      }
    }
  });
});
