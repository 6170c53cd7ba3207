/**
 * Reading `agent.yaml` into plain JSON data while remembering where every node came from, so that
 * each later problem can be told as file:line:column (interfaces.md, CLI: "every error with
 * file:line:column").
 *
 * YAML text: `yaml`'s parseDocument (YAML 1.2 core schema, unique keys, no merge keys) with a
 * LineCounter; the data is then built from the document's nodes by this file (not `toJS`), so that
 * keys cannot reach `__proto__`, aliases are expanded under a budget (no "billion laughs"), alias
 * cycles and absurd nesting are problems rather than stack overflows, and every value gets its
 * pointer → position entry.
 * An object: checked to be plain JSON (no cycles, functions, non-finite numbers, class instances),
 * positions are `<object>:1:1` and messages name the JSON pointer.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node } from "yaml";
import type { CatalogueProblem, SourcePosition } from "../errors.js";
import { joinPointer } from "../schema/pointer.js";

export interface Located {
  /** where the value starts */
  value: SourcePosition;
  /** where its key starts, when it is the value of a map entry */
  key?: SourcePosition;
}

export interface Source {
  file: string;
  /** the parsed document as plain JSON data; undefined when it could not be read */
  data: unknown;
  positions: Map<string, Located>;
  problems: CatalogueProblem[];
  /** true when positions are all `<object>:1:1` and messages must name the pointer */
  fromObject: boolean;
  /**
   * The YAML was read whole and each of its problems is at one value, read as null or left out
   * (`.inf`, a tag, an alias with no anchor): the other passes can still read the rest.
   */
  valuesOnly?: boolean;
}

/** Nesting beyond this is refused: no real catalogue comes near it, and it bounds recursion. */
const MAX_DEPTH = 100;
/** Nodes built from the document, aliases expanded, before it is refused as too large. */
const MAX_NODES = 200_000;
/** The same bound for a program that writes a catalogue (`gateway init`): each map, list and scalar is one value, keys are not. */
export const MAX_CATALOGUE_VALUES = MAX_NODES;
/** Keys given twice reported at most: each is a problem with a position and a snippet. */
const MAX_TWICE = 1000;
/** Characters of YAML text read at most. */
const MAX_TEXT = 16 * 1024 * 1024;

export const OBJECT_FILE = "<object>";

export function positionOf(source: Pick<Source, "positions" | "file">, pointer: string, atKey = false): SourcePosition {
  let p = pointer;
  for (;;) {
    const hit = source.positions.get(p);
    if (hit) return (atKey && p === pointer && hit.key) || hit.value;
    if (p === "") return { file: source.file, line: 1, column: 1 };
    p = p.slice(0, p.lastIndexOf("/"));
  }
}

export function readYaml(text: string, file: string): Source {
  const source: Source = { file, data: undefined, positions: new Map(), problems: [], fromObject: false };
  const problem = (pos: SourcePosition, pointer: string, message: string, hint?: string) =>
    source.problems.push({ ...pos, pointer, message, ...(hint ? { hint } : {}) });
  if (text.length > MAX_TEXT) {
    problem({ file, line: 1, column: 1 }, "", `the catalogue is ${text.length} characters long; at most ${MAX_TEXT} are read`, "split large schemas out, or shorten descriptions");
    return source;
  }
  const deep = flowDepthProblem(text);
  if (deep !== undefined) {
    let line = 1;
    let col = 1;
    for (let i = 0; i < deep; i++) {
      if (text.charCodeAt(i) === 10) {
        line++;
        col = 1;
      } else col++;
    }
    problem({ file, line, column: col }, "", `brackets are nested deeper than ${MAX_FLOW_DEPTH} levels here`, "flatten it: no catalogue word needs this depth");
    return source;
  }
  const lc = new LineCounter();
  const at = (offset: number | undefined): SourcePosition => {
    const lp = lc.linePos(offset ?? 0);
    return { file, line: lp.line, column: lp.col };
  };
  let doc: Document.Parsed;
  try {
    // prettyErrors: false — the pretty form builds context lines that are costly on hostile input.
    // uniqueKeys: false — yaml compares each key of a map with every earlier one (a 250 KB map
    // took 38 s: outside audit 14, F1); `twiceKeyed` finds the same keys with one lookup each
    doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: false, schema: "core", merge: false, strict: true, keepSourceTokens: false });
  } catch (e) {
    problem({ file, line: 1, column: 1 }, "", `the YAML could not be read: ${errorText(e)}`);
    return source;
  }
  for (const offset of twiceKeyed(doc)) {
    const snippet = (/^\s*("[^"]*"|'[^']*'|[^:#,{}[\]]+?)\s*:(\s|$)/.exec(text.slice(offset, offset + 200).split("\n")[0]!)?.[1] ?? "").slice(0, 60);
    problem(at(offset), "", yamlMessage("DUPLICATE_KEY", "", snippet), yamlHint("DUPLICATE_KEY", ""));
  }
  for (const e of doc.errors) {
    const pos = at(e.pos?.[0]);
    const line = e.pos ? text.slice(e.pos[0], e.pos[0] + 200).split("\n")[0]! : "";
    const snippet = (/^\s*("[^"]*"|'[^']*'|[^:#,{}[\]]+?)\s*:(\s|$)/.exec(line)?.[1] ?? "").slice(0, 60);
    problem(pos, "", yamlMessage(e.code, e.message, snippet), yamlHint(e.code, e.message));
  }
  for (const w of doc.warnings) {
    // an unresolved tag or the like: a catalogue is plain data, so a warning is an error here
    problem(at(w.pos?.[0]), "", yamlMessage(w.code, w.message), "a catalogue is plain YAML data: maps, lists, strings, numbers, booleans");
  }
  if (source.problems.length > 0) return source;

  let nodes = 0;
  // the document was not read whole: a bound was hit, so the later passes would read a stump
  let cut = false;
  const expanding = new Set<Node>();
  const resolved = new Map<unknown, Node | undefined>(); // an alias expanded many times is looked up once
  const build = (node: unknown, pointer: string, depth: number, keyPos: SourcePosition | undefined): unknown => {
    if (source.problems.length > 50) {
      cut = true;
      return null;
    }
    const start = (node as { range?: [number, number, number] } | null)?.range?.[0];
    const here = at(start);
    if (!source.positions.has(pointer)) source.positions.set(pointer, keyPos ? { value: here, key: keyPos } : { value: here });
    if (++nodes > MAX_NODES) {
      cut = true;
      if (nodes === MAX_NODES + 1) problem(here, pointer, `the catalogue has more than ${MAX_NODES} values (aliases expanded)`, "a catalogue this large is almost certainly a mistake; check for aliases (`*name`) that repeat large parts");
      return null;
    }
    if (depth > MAX_DEPTH) {
      cut = true;
      problem(here, pointer, `the catalogue is nested deeper than ${MAX_DEPTH} levels here`, "flatten it: no catalogue word needs this depth");
      return null;
    }
    if (node === null || node === undefined) return null;
    // `!!bool "true"`, `!!str 5`: a tag makes a value other than it reads, and catalogue.md says no tags
    const tag = (node as { tag?: unknown }).tag;
    if (typeof tag === "string") {
      problem(here, pointer, `a YAML tag (\`${tag.replace(/^tag:yaml\.org,2002:/, "!!")}\`) is not part of a catalogue`, "write the value itself: `true`, `5`, \"text\" — a catalogue is plain YAML data");
      return null;
    }
    if (isAlias(node)) {
      if (!resolved.has(node)) resolved.set(node, node.resolve(doc) as Node | undefined);
      const target = resolved.get(node);
      if (!target) {
        problem(here, pointer, `alias \`*${node.source}\` names no anchor`, "define `&name` before using `*name`");
        return null;
      }
      if (expanding.has(target)) {
        problem(here, pointer, `alias \`*${node.source}\` refers to a value that contains it`, "a catalogue cannot be recursive");
        return null;
      }
      expanding.add(target);
      source.positions.delete(pointer);
      const v = build(target, pointer, depth, keyPos);
      source.positions.set(pointer, keyPos ? { value: here, key: keyPos } : { value: here });
      expanding.delete(target);
      return v;
    }
    if (isScalar(node)) {
      const v = node.value;
      if (v === null || typeof v === "string" || typeof v === "boolean") return v;
      if (typeof v === "number") {
        if (!Number.isFinite(v)) {
          problem(here, pointer, `\`${String(node.source ?? v)}\` is not a finite number`, "a catalogue holds JSON numbers; quote it if it is text");
          return null;
        }
        return v;
      }
      if (typeof v === "bigint") {
        problem(here, pointer, `\`${String(v)}\` is too large a number`);
        return null;
      }
      problem(here, pointer, "this value is not plain data", "a catalogue holds maps, lists, strings, numbers and booleans");
      return null;
    }
    if (isSeq(node)) {
      const out: unknown[] = [];
      node.items.forEach((item, i) => out.push(build(item, joinPointer(pointer, i), depth + 1, undefined)));
      return out;
    }
    if (isMap(node)) {
      const out: Record<string, unknown> = {};
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const k = pair.key as unknown;
        const kStart = (k as { range?: [number, number, number] } | null)?.range?.[0];
        const kPos = at(kStart ?? start);
        let key: string;
        if (isScalar(k) && (typeof k.value === "string" || typeof k.value === "number" || typeof k.value === "boolean")) {
          key = String(k.value);
        } else if (k === null || (isScalar(k) && k.value === null)) {
          problem(kPos, pointer, "a map entry has no key", "write `word: value`");
          continue;
        } else {
          problem(kPos, pointer, "a key must be a plain word, not a map or a list", "write `word: value`");
          continue;
        }
        if (Object.prototype.hasOwnProperty.call(out, key)) {
          // e.g. `1:` and `"1":` — the YAML is fine, the data would collapse them
          problem(kPos, joinPointer(pointer, key), `key \`${key}\` appears twice in this map`, "remove one of them");
          continue;
        }
        const v = build(pair.value, joinPointer(pointer, key), depth + 1, kPos);
        Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    problem(here, pointer, "this value is not plain data");
    return null;
  };
  try {
    source.data = build(doc.contents, "", 0, undefined);
    if (source.problems.length > 0 && !cut) source.valuesOnly = true;
  } catch (e) {
    problem({ file, line: 1, column: 1 }, "", `the YAML could not be read: ${errorText(e)}`);
  }
  if (source.problems.length === 0 && (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null))) {
    problem({ file, line: 1, column: 1 }, "", "the catalogue is empty", "start with `tools:` and a list of tools");
  }
  return source;
}

/**
 * Where a key is given again in its map (yaml's `uniqueKeys`: a scalar key of the same value), in
 * one lookup per key; the first `MAX_TWICE`. `1:` and `"1":` differ here; `build` refuses those as one key.
 */
function twiceKeyed(doc: Document.Parsed): number[] {
  const out: number[] = [];
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        if (!seen.has(pair.key.value)) seen.add(pair.key.value);
        else if (out.push(pair.key.range?.[0] ?? 0) >= MAX_TWICE) return visit.BREAK;
      }
      return undefined;
    },
  });
  return out;
}

/** `[`/`{` nesting beyond this is refused before the YAML parser recurses into it. */
const MAX_FLOW_DEPTH = 1000;

/**
 * A cheap scan for absurd flow nesting (`[[[[…`), which the YAML parser would only give up on
 * after deep recursion. Counts brackets naively (quotes and comments included): a catalogue that
 * has a thousand open brackets in a row is refused either way. Returns the offset, or undefined.
 */
function flowDepthProblem(text: string): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 91 || c === 123) {
      if (++depth > MAX_FLOW_DEPTH) return i;
    } else if ((c === 93 || c === 125) && depth > 0) depth--;
  }
  return undefined;
}

function errorText(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.length > 200 ? m.slice(0, 200) + "…" : m;
}

function yamlMessage(code: string, message: string, snippet = ""): string {
  const first = message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
  if (code === "DUPLICATE_KEY") return snippet ? `key \`${snippet.replace(/:$/, "")}\` appears twice in this map` : "a key appears twice in this map";
  if (code === "MULTIPLE_DOCS") return "the file holds more than one YAML document";
  if (/Maximum call stack/i.test(first)) return "the YAML is nested too deeply to read";
  const text = first.length > 200 ? first.slice(0, 200) + "…" : first;
  return `malformed YAML: ${text.charAt(0).toLowerCase()}${text.slice(1)}`;
}

function yamlHint(code: string, message: string): string | undefined {
  if (code === "DUPLICATE_KEY") return "each word may appear once per map; remove or merge the repeated one";
  if (code === "TAB_AS_INDENT") return "indent with spaces, not tabs";
  if (code === "MULTIPLE_DOCS") return "a catalogue is one YAML document; remove the `---` separators";
  if (code === "BAD_INDENT" || code === "MISSING_CHAR") return "check the indentation and the brackets on this line and the one above";
  if (/Maximum call stack/i.test(message)) return "flatten it: no catalogue word needs this depth";
  return undefined;
}

/**
 * An already-parsed catalogue: must be plain JSON data. Walks iteratively (a 10k-deep object
 * cannot overflow the stack) and copies into fresh plain objects.
 */
export function readObject(input: unknown, file: string = OBJECT_FILE): Source {
  const source: Source = { file, data: undefined, positions: new Map(), problems: [], fromObject: true };
  const pos: SourcePosition = { file, line: 1, column: 1 };
  const problem = (pointer: string, message: string, hint?: string) =>
    source.problems.push({ ...pos, pointer, message: `${message} (at \`${pointer || "/"}\`)`, ...(hint ? { hint } : {}) });
  type Frame = { v: unknown; p: string; d: number; put: (x: unknown) => void } | { exit: object };
  let root: unknown;
  const stack: Frame[] = [{ v: input, p: "", d: 0, put: (x) => (root = x) }];
  const onPath = new Set<object>();
  let nodes = 0;
  while (stack.length > 0 && source.problems.length <= 50) {
    const f = stack.pop()!;
    if ("exit" in f) {
      onPath.delete(f.exit);
      continue;
    }
    const { v, p, d, put } = f;
    source.positions.set(p, { value: pos });
    if (++nodes > MAX_NODES) {
      problem(p, `the catalogue has more than ${MAX_NODES} values`);
      break;
    }
    if (v === null || typeof v === "string" || typeof v === "boolean") {
      put(v);
      continue;
    }
    if (typeof v === "number") {
      if (!Number.isFinite(v)) problem(p, `\`${String(v)}\` is not a finite number`);
      put(Number.isFinite(v) ? v : null);
      continue;
    }
    if (typeof v !== "object") {
      problem(p, `${typeof v === "undefined" ? "`undefined`" : `a ${typeof v}`} is not plain data`, "a catalogue object holds only JSON values");
      put(null);
      continue;
    }
    if (d > MAX_DEPTH) {
      problem(p, `the catalogue is nested deeper than ${MAX_DEPTH} levels here`);
      put(null);
      continue;
    }
    if (onPath.has(v)) {
      problem(p, "the catalogue object contains itself", "a catalogue cannot be recursive");
      put(null);
      continue;
    }
    onPath.add(v);
    stack.push({ exit: v });
    if (Array.isArray(v)) {
      const out: unknown[] = new Array(v.length).fill(null);
      put(out);
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], p: joinPointer(p, i), d: d + 1, put: (x) => (out[i] = x) });
      continue;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) {
      problem(p, `an instance of \`${String((v as object).constructor?.name ?? "a class")}\` is not plain data`, "pass plain objects, lists, strings, numbers and booleans");
      put(null);
      continue;
    }
    const out: Record<string, unknown> = {};
    put(out);
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!;
      stack.push({
        v: (v as Record<string, unknown>)[k],
        p: joinPointer(p, k),
        d: d + 1,
        put: (x) => Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true }),
      });
    }
  }
  source.data = root;
  return source;
}
