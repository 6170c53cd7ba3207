/**
 * The registry (`DIR/registry.json`, written by `stalwart rules compile`): the compiled rules as
 * JSON, `{v: 1, digest, source, rules}`, digest = SHA-256 hex of the canonical JSON of `{v, rules}`.
 *
 * Loading trusts nothing in it: the version and the digest are checked first (a registry edited
 * by hand is an error naming the file), then every rule is turned back into rulebook words and
 * linted and compiled like a rulebook, and the result must have the digest the file states — so
 * a registry whose digest was recomputed over rules `stalwart rules compile` would never write is
 * refused too.
 */
import { readObject } from "../catalogue/source.js";
import { OPERATORS, SUBJECTS } from "../catalogue/schema.js";
import { CatalogueError, type CatalogueProblem } from "../errors.js";
import { joinPointer } from "../schema/pointer.js";
import { duplicateKey } from "../canonical/json-text.js";
import { assemble, registryRule, rulesDigest } from "./compile.js";
import { analyse, compileRulebook, compileSource, type RulebookOptions } from "./load.js";
import type { CompiledRulebook, Registry } from "./types.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

export const REGISTRY_FILE = "registry.json";
const REGISTRY_VERSION = 1;

/** The registry of a compiled rulebook; `source` defaults to the rulebook's file name. */
export function toRegistry(rulebook: CompiledRulebook, options: { source?: string } = {}): Registry {
  return { v: 1, digest: rulebook.digest, source: options.source ?? rulebook.source, rules: rulebook.rules.map(registryRule) };
}

/** The registry file's text: pretty JSON, one trailing newline. */
export function registryText(rulebook: CompiledRulebook, options: { source?: string } = {}): string {
  return JSON.stringify(toRegistry(rulebook, options), null, 2) + "\n";
}

export interface RegistryOptions extends Omit<RulebookOptions, "format"> {
  /** the registry's file name, for messages; default `registry.json` */
  file?: string;
}

const RECOMPILE = "compile it again from the rulebook: `stalwart rules compile RULEBOOK -o DIR`";

/** Loads a registry (its JSON text or parsed object); throws `CatalogueError` naming the file. */
export function loadRegistry(json: string | object, options: RegistryOptions = {}): CompiledRulebook {
  const file = options.file ?? REGISTRY_FILE;
  const fail = (message: string, hint = RECOMPILE, pointer = ""): never => {
    throw new CatalogueError([{ file, line: 1, column: 1, pointer, message: `\`${file}\`: ${message}`, hint }]);
  };
  let parsed: unknown = json;
  if (typeof json === "string") {
    if (json.length > 16 * 1024 * 1024) fail(`the registry is ${json.length} characters long; at most ${16 * 1024 * 1024} are read`);
    try {
      parsed = JSON.parse(json);
    } catch (e) {
      fail(`is not JSON (${String((e as Error).message).slice(0, 120)})`);
    }
    // JSON.parse keeps a key's last value, a reader its first: as the YAML reader, refuse either
    const twice = duplicateKey(json);
    if (twice) fail(`gives \`${twice.key}\` twice in one object (at \`${twice.pointer}\`): which one holds is not clear`, RECOMPILE, twice.pointer);
  }
  const plain = readObject(parsed);
  if (plain.problems.length > 0) fail(`is not plain JSON data: ${plain.problems[0]!.message}`);
  const reg = plain.data;
  if (!isObj(reg)) return fail("a registry is a JSON object `{v, digest, source, rules}`");
  if (reg.v !== REGISTRY_VERSION) {
    fail(`registry version ${JSON.stringify(reg.v) ?? "(none)"} is not one this runtime reads (it reads version ${REGISTRY_VERSION})`, `${RECOMPILE} with this version of stalwart`);
  }
  for (const k of Object.keys(reg)) if (!["v", "digest", "source", "rules"].includes(k)) fail(`unknown word \`${k}\` in the registry`, RECOMPILE, joinPointer("", k));
  if (typeof reg.digest !== "string" || !/^[0-9a-f]{64}$/.test(reg.digest)) fail("the registry has no valid `digest` (64 hex digits)");
  if (typeof reg.source !== "string") fail("the registry has no `source` (the rulebook's file name)");
  if (!Array.isArray(reg.rules)) fail("the registry's `rules` is not a list");
  const digest = reg.digest as string;
  if (rulesDigest(reg.rules as unknown[], options.sha256) !== digest) {
    fail("the registry was changed after it was compiled: its rules do not match its digest", `do not edit a registry by hand; change the rulebook and ${RECOMPILE.replace("compile it again from the rulebook: ", "run ")}`);
  }

  // the rules back into rulebook words, then the rulebook's own lint and compile
  const problems: CatalogueProblem[] = [];
  const problem = (pointer: string, message: string) => problems.push({ file, line: 1, column: 1, pointer, message: `\`${file}\`: ${message} (at \`${pointer}\`)`, hint: RECOMPILE });
  const rules = (reg.rules as unknown[]).map((r, i) => rawRule(r, `/rules/${i}`, problem));
  if (problems.length > 0) throw new CatalogueError(problems);
  const analysis = analyse({ rules }, { ...options, file });
  if (analysis.problems.length > 0) throw new CatalogueError(analysis.problems.map((p) => ({ ...p, message: `\`${file}\`: ${p.message}`, hint: p.hint ?? RECOMPILE })));
  const compiled = compileSource(analysis.source, { ...options, file });
  if (compiled.digest !== digest) fail("the registry's rules are not in the form `stalwart rules compile` writes");
  return assemble([...compiled.rules], reg.source as string, options.sha256);
}

type Problem = (pointer: string, message: string) => void;

const RULE_KEYS = ["name", "flow", "tools", "when", "then", "question", "because"];

/** A registry rule → rulebook words (the linter checks the values); unknown keys are problems. */
function rawRule(r: unknown, pointer: string, problem: Problem): unknown {
  if (!isObj(r)) {
    problem(pointer, "a rule is a JSON object");
    return r;
  }
  for (const k of Object.keys(r)) if (!RULE_KEYS.includes(k)) problem(joinPointer(pointer, k), `unknown word \`${k}\` in a rule`);
  const out: Obj = { ...r };
  if (!Array.isArray(r.when)) problem(joinPointer(pointer, "when"), "a rule's `when` is a list (empty when it always applies)");
  else out.when = r.when.map((c, j) => rawCondition(c, joinPointer(pointer, "when", j), problem, 0));
  return out;
}

function rawCondition(c: unknown, pointer: string, problem: Problem, depth: number): unknown {
  if (!isObj(c) || depth > 20) {
    problem(pointer, depth > 20 ? "conditions are nested too deeply" : "a condition is a JSON object");
    return c;
  }
  const because = typeof c.because === "string" ? { because: c.because } : {};
  const keys = (allowed: string[]) => {
    for (const k of Object.keys(c)) if (!allowed.includes(k)) problem(joinPointer(pointer, k), `unknown word \`${k}\` in a \`${String(c.kind)}\` condition`);
  };
  if (c.kind === "any") {
    keys(["kind", "conditions", "because"]);
    if (!Array.isArray(c.conditions)) {
      problem(joinPointer(pointer, "conditions"), "`conditions` is a list");
      return {};
    }
    return { any: c.conditions.map((x, k) => rawCondition(x, joinPointer(pointer, "conditions", k), problem, depth + 1)), ...because };
  }
  if (c.kind !== "compare") {
    problem(joinPointer(pointer, "kind"), "a condition's `kind` is `compare` or `any`");
    return {};
  }
  keys(["kind", "subject", "op", "operand", "because"]);
  const s = c.subject;
  const o = c.operand;
  if (!isObj(s) || !(SUBJECTS as readonly unknown[]).includes(s.kind) || typeof s.path !== "string" || Object.keys(s).some((k) => k !== "kind" && k !== "path")) {
    problem(joinPointer(pointer, "subject"), "`subject` is `{kind: field | total | count, path}`");
    return {};
  }
  if (typeof c.op !== "string" || !(OPERATORS as readonly string[]).includes(c.op)) {
    problem(joinPointer(pointer, "op"), `\`op\` is one of ${OPERATORS.join(", ")}`);
    return {};
  }
  let operand: unknown;
  const only = (allowed: string[]) => isObj(o) && Object.keys(o).every((k) => allowed.includes(k));
  if (isObj(o) && o.kind === "value" && only(["kind", "value"]) && "value" in o && !isObj(o.value) && !Array.isArray(o.value)) operand = o.value;
  else if (isObj(o) && o.kind === "list" && only(["kind", "values"]) && Array.isArray(o.values)) operand = o.values;
  else if (isObj(o) && o.kind === "from" && only(["kind", "tool", "path"]) && typeof o.tool === "string" && typeof o.path === "string") operand = { from: `${o.tool}.${o.path}` };
  else {
    problem(joinPointer(pointer, "operand"), "`operand` is `{kind: value, value}`, `{kind: list, values}` or `{kind: from, tool, path}`");
    return {};
  }
  const out: Obj = {};
  Object.defineProperty(out, s.kind as string, { value: s.path, enumerable: true, writable: true, configurable: true });
  Object.defineProperty(out, c.op, { value: operand, enumerable: true, writable: true, configurable: true });
  return { ...out, ...because };
}

/**
 * A rulebook given as text of any kind — registry JSON (an object with a `digest`), YAML or CSV —
 * for callers that store or receive text without its file name (the check worker, the SDK).
 */
export function rulebookFromText(text: string, options: RulebookOptions = {}): CompiledRulebook {
  if (/^\ufeff?\s*\{/.test(text)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text.replace(/^\ufeff/, ""));
    } catch {
      parsed = undefined; // a YAML flow map, or broken JSON: the YAML reader says where
    }
    if (isObj(parsed) && "digest" in parsed) {
      const { format: _format, ...rest } = options;
      // the text, not what it parsed to: what JSON.parse does not say (a key twice) is read there
      return loadRegistry(text.replace(/^\ufeff/, ""), { ...rest, file: options.file ?? REGISTRY_FILE });
    }
  }
  return compileRulebook(text, options);
}
