/**
 * Step three of loading: what the catalogue means, beyond its shape (checks.md "Order rules",
 * "Conditions, limits, spend, outcomes"; interfaces.md "Catalogue"). Runs on any data, shape
 * errors or not (every access is guarded), so one run reports everything:
 *   - tool names unique across `tools:`, `http:` and `code:`; no tool called `untrusted`;
 *   - `undo`, `after`, `not_after`, `{from: tool.field}`, `outcome.follow`, agent and task tool
 *     lists name tools that exist; `bind` and `from` fields are declared by that tool's `returns`;
 *   - `filter` only on reads, `outcome` only on writes (and it follows a read), `spend` needs
 *     `currency`, `irreversible` only on writes and never with an `undo`; `confirm: when_held`
 *     never on an `irreversible` or `money` tool; a spend pool is shared only by tools of one
 *     `currency`;
 *   - `sends_out` (and a code sandbox's `network`) entries parse as destinations;
 *   - `args` / `returns` are valid draft-07 schemas, and compile with the injected compiler;
 *   - tasks `all_at_once`: every write has an `undo` or an `outcome`, and one marked `money` a
 *     `spend`.
 * Warnings (the catalogue loads): a tool with no `args` at all (every argument is refused); a
 * `{from: tool.field}` in `checks` with no `same` when both tools take an argument of one name.
 */
import type { SchemaCheck, SchemaCompiler } from "./types.js";
import { checkSchema } from "../schema/check-schema.js";
import { joinPointer } from "../schema/pointer.js";
import { closest } from "../schema/suggest.js";
import { checkPath, lintCondition, type ConditionScope } from "./conditions.js";
import { parsePattern } from "../destinations/patterns.js";
import { declares } from "./paths.js";
import { closeArgs, declaredArguments } from "./arguments.js";
import type { SourcePosition } from "../errors.js";

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

type EntryKind = "tools" | "http" | "code";

/** One tool entry, whatever list it came from. */
export interface Entry {
  kind: EntryKind;
  index: number;
  pointer: string;
  raw: Obj;
  name: string;
  writes: boolean;
}

/** The tool entries of a catalogue (entries without a string name are skipped). */
export function entriesOf(data: unknown): Entry[] {
  const out: Entry[] = [];
  if (!isObj(data)) return out;
  for (const kind of ["tools", "http", "code"] as const) {
    const list = data[kind];
    if (!Array.isArray(list)) continue;
    list.forEach((raw, index) => {
      if (!isObj(raw) || typeof raw.name !== "string") return;
      const writes = kind === "http" ? typeof raw.method === "string" && raw.method !== "GET" : kind === "code" ? raw.writes !== false : raw.writes === true;
      out.push({ kind, index, pointer: `/${kind}/${index}`, raw, name: raw.name, writes });
    });
  }
  return out;
}

const KIND_WORD: Record<EntryKind, string> = { tools: "tool", http: "http entry", code: "code entry" };

export interface MeaningContext {
  report: (pointer: string, message: string, hint?: string, atKey?: boolean) => void;
  /** something that loads but likely does not do what the author means */
  warn: (pointer: string, message: string, hint?: string, atKey?: boolean) => void;
  position: (pointer: string, atKey?: boolean) => SourcePosition;
  schemaCompiler: SchemaCompiler;
  /** compiled `args` validators by entry pointer, for compile.ts */
  validators: Map<string, SchemaCheck>;
}

export function lintMeaning(data: unknown, ctx: MeaningContext): void {
  if (!isObj(data)) return;
  const { report } = ctx;
  const entries = entriesOf(data);
  const byName = new Map<string, Entry>();
  for (const e of entries) {
    const first = byName.get(e.name);
    if (first) {
      const line = ctx.position(first.pointer + "/name").line;
      report(
        e.pointer + "/name",
        first.kind === e.kind ? `\`${e.name}\` is declared twice` : `the name \`${e.name}\` is already taken by ${KIND_WORD[first.kind]} \`${e.name}\``,
        `the first is at line ${line}; rename one of them (a tool that is sometimes a read and sometimes a write is two tools)`,
      );
      continue;
    }
    byName.set(e.name, e);
    if (e.name === "untrusted") report(e.pointer + "/name", "a tool cannot be called `untrusted`", "`not_after: [untrusted]` means anything read from outside; pick another name");
  }
  const toolNames = [...byName.keys()];
  const known = (name: unknown, pointer: string, word: string) => {
    if (typeof name !== "string" || byName.has(name)) return;
    const near = closest(name, toolNames);
    report(pointer, `\`${word}\` names \`${name}\`, which is not a tool in this catalogue`, near ? `did you mean \`${near}\`?` : "declare it under `tools:`, `http:` or `code:`");
  };
  const returnsOf = (tool: string) => {
    const e = byName.get(tool);
    return { exists: !!e, ...(e && isObj(e.raw.returns) ? { returns: e.raw.returns } : {}) };
  };
  const argsOf = (tool: string) => {
    const e = byName.get(tool);
    return e && isObj(e.raw.args) ? [...declaredArguments(e.raw.args).names] : undefined;
  };
  const scope = (inFilter: boolean, checksOf?: Entry): ConditionScope => ({
    returnsOf, inFilter, position: ctx.position, report,
    ...(checksOf ? { join: { tool: checksOf.name, own: argsOf(checksOf.name), argsOf, warn: ctx.warn } } : {}),
  });

  const onlyKnownWords = Object.keys(data).every((k) => ["settings", "agents", "tools", "http", "code", "tasks"].includes(k));
  if (onlyKnownWords && entries.length === 0 && !["tools", "http", "code"].some((k) => Array.isArray(data[k]) && (data[k] as unknown[]).length > 0)) {
    report("", "the catalogue declares no tools", "add `tools:` with at least one `{name: …}`");
  }

  for (const e of entries) {
    if (byName.get(e.name) !== e) continue;
    const t = e.raw;
    const at = (...segs: (string | number)[]) => joinPointer(e.pointer, ...segs);
    const argNames = isObj(t.args) && isObj(t.args.properties) ? Object.keys(t.args.properties) : undefined;

    if (t.args === undefined) {
      ctx.warn(e.pointer + "/name", "declares no `args`, so every call that passes an argument is refused (`argument_schema`)", `declare its arguments: \`args: {type: object, properties: {…}}\`; a tool that takes none says \`args: {type: object}\``);
    }

    // schemas
    for (const word of ["args", "returns"] as const) {
      const schema = t[word];
      if (!isObj(schema)) continue;
      const problems = checkSchema(schema);
      for (const p of problems) report(at(word) + p.pointer, `\`${word}\`: ${p.message}`, p.hint, p.atKey);
      if (word === "args" && schema.type !== undefined && schema.type !== "object") {
        report(at("args", "type"), "`args` describes the arguments object, so its `type` must be `object`", "write `args: {type: object, properties: {…}}`");
        continue;
      }
      if (problems.length === 0) {
        try {
          const check = ctx.schemaCompiler(word === "args" ? closeArgs(schema) : schema);
          if (word === "args") ctx.validators.set(e.pointer, check);
        } catch (err) {
          report(at(word), `\`${word}\` does not compile: ${String((err as Error)?.message ?? err).split("\n")[0]}`, "check the schema against JSON Schema draft-07");
        }
      }
    }

    if (t.undo !== undefined) known(t.undo, at("undo"), "undo");
    if (Array.isArray(t.after)) {
      t.after.forEach((a, i) => {
        if (typeof a === "string") return known(a, at("after", i), "after");
        if (!isObj(a) || typeof a.tool !== "string") return;
        known(a.tool, at("after", i, "tool"), "after");
        if (!isObj(a.bind)) return;
        const bound = byName.get(a.tool);
        for (const [arg, field] of Object.entries(a.bind)) {
          const p = at("after", i, "bind", arg);
          if (argNames && !argNames.includes(arg)) {
            report(p, `\`bind\` names argument \`${arg}\`, which \`${e.name}\`'s \`args\` does not declare`, argNames.length ? `declared arguments: ${argNames.map((n) => `\`${n}\``).join(", ")}` : "declare it under `args.properties`", true);
          }
          if (typeof field !== "string" || !bound) continue;
          if (!isObj(bound.raw.returns)) {
            report(p, `\`bind\` reads \`${field}\` from \`${a.tool}\`, which declares no \`returns\``, `declare \`${field}\` in \`${a.tool}\`'s \`returns\` schema`);
          } else if (!declares(bound.raw.returns, field)) {
            report(p, `\`bind\` reads \`${field}\` from \`${a.tool}\`, whose \`returns\` does not declare it`, `add \`${field}\` to the \`properties\` of \`${a.tool}\`'s \`returns\``);
          }
        }
      });
    }
    if (Array.isArray(t.not_after)) t.not_after.forEach((n, i) => n !== "untrusted" && known(n, at("not_after", i), "not_after"));
    if (Array.isArray(t.checks)) t.checks.forEach((c, i) => lintCondition(c, at("checks", i), scope(false, e)));

    if (t.filter !== undefined) {
      if (e.writes) report(at("filter"), "`filter` is for reads: it chooses which records a read passes on", e.kind === "http" ? "an http entry with a method other than GET writes" : "remove `filter`, or declare the tool as a read", true);
      if (isObj(t.filter)) {
        checkPath(t.filter.each, at("filter", "each"), scope(true), "each");
        if (Array.isArray(t.filter.keep)) t.filter.keep.forEach((c, i) => lintCondition(c, at("filter", "keep", i), scope(true)));
      }
    }
    if (t.outcome !== undefined) {
      if (!e.writes) report(at("outcome"), "`outcome` is for writes: it follows a write to its end", "remove `outcome`, or add `writes: true`", true);
      if (isObj(t.outcome)) {
        const o = t.outcome;
        known(o.follow, at("outcome", "follow"), "follow");
        const followed = typeof o.follow === "string" ? byName.get(o.follow) : undefined;
        if (followed?.writes) report(at("outcome", "follow"), `\`follow\` names \`${o.follow}\`, a write; an outcome is followed by a read`, "name the read that reports the write's state, e.g. `get_order`");
        checkPath(o.same, at("outcome", "same"), scope(false), "same");
        for (const w of ["done_when", "failed_when"]) if (Array.isArray(o[w])) (o[w] as unknown[]).forEach((c, i) => lintCondition(c, at("outcome", w, i), scope(false)));
        const n = (Array.isArray(o.done_when) ? o.done_when.length : 0) + (Array.isArray(o.failed_when) ? o.failed_when.length : 0);
        if (n === 0) report(at("outcome"), "`outcome` says neither `done_when` nor `failed_when`", "add `done_when: [{field: status, is: done}]`, or the write always ends `outcome_unknown`");
      }
    }
    if (typeof t.currency === "string" && /^[A-Z]{3}$/.test(t.currency) && !knownCurrency(t.currency)) {
      ctx.warn(at("currency"), `\`${t.currency}\` is not an ISO 4217 currency this runtime knows`, "check the code (`USD`, `EUR`, `BRL`, …): amounts are counted per currency, so a misspelt one is a pool of its own");
    }
    if (Array.isArray(t.spend)) {
      if (t.currency === undefined) report(at("spend"), "`spend` needs the tool's `currency`", "add `currency: USD` (an ISO 4217 code)", true);
      t.spend.forEach((s, i) => isObj(s) && checkPath(s.field, at("spend", i, "field"), scope(false), "field"));
    }
    if (t.confirm === "when_held" && (t.irreversible === true || t.money === true)) {
      const what = t.irreversible === true ? "an `irreversible`" : "a `money`";
      report(at("confirm"), `\`confirm: when_held\` cannot be used on ${what} tool: it keeps the person's confirmation`, "remove `confirm: when_held` (checks.md: irreversible actions and money keep the synchronous human gate)", true);
    }
    if (t.irreversible === true && !e.writes) report(at("irreversible"), "`irreversible` is for writes", e.kind === "tools" ? "add `writes: true`, or remove `irreversible`" : "remove `irreversible`", true);
    if (t.irreversible === true && t.undo !== undefined) report(at("undo"), "an `irreversible` tool cannot declare an `undo`", "remove one: `irreversible` says nothing undoes this step", true);
    if (Array.isArray(t.sends_out)) {
      t.sends_out.forEach((d, i) => {
        if (typeof d !== "string") return;
        const r = parsePattern(d);
        if (!r.ok) report(at("sends_out", i), r.message, r.hint);
      });
    }
    if (isObj(t.sandbox) && Array.isArray(t.sandbox.network)) {
      t.sandbox.network.forEach((d, i) => {
        if (typeof d !== "string") return;
        const r = parsePattern(d);
        if (!r.ok) report(at("sandbox", "network", i), r.message, r.hint);
      });
    }
    if (Array.isArray(t.lookup_args) && argNames) {
      t.lookup_args.forEach((a, i) => {
        if (typeof a === "string" && !argNames.includes(a)) report(at("lookup_args", i), `\`lookup_args\` names \`${a}\`, which \`args\` does not declare`, closest(a, argNames) ? `did you mean \`${closest(a, argNames)}\`?` : `declared arguments: ${argNames.map((n) => `\`${n}\``).join(", ")}`);
      });
    }
  }

  // spend pools: one pool counts one currency (400 USD + 400 EUR against 500 counts neither)
  const pools = new Map<string, { tool: string; currency: string }>();
  for (const e of entries) {
    if (byName.get(e.name) !== e || !Array.isArray(e.raw.spend) || typeof e.raw.currency !== "string") continue;
    const currency = e.raw.currency;
    e.raw.spend.forEach((s, i) => {
      if (!isObj(s)) return;
      const explicit = typeof s.pool === "string";
      const pool = explicit ? (s.pool as string) : e.name;
      const first = pools.get(pool);
      if (!first) pools.set(pool, { tool: e.name, currency });
      else if (first.currency !== currency) {
        report(joinPointer(e.pointer, "spend", i, ...(explicit ? ["pool"] : [])), `spend pool \`${pool}\` is shared by \`${first.tool}\` (${first.currency}) and \`${e.name}\` (${currency}): a pool counts one currency`, `give \`${e.name}\`'s spend its own pool, e.g. \`pool: ${pool}_${currency.toLowerCase()}\``);
      }
    });
  }

  // agents
  if (Array.isArray(data.agents)) {
    const seen = new Set<string>();
    data.agents.forEach((a, i) => {
      if (!isObj(a)) return;
      if (typeof a.name === "string") {
        if (seen.has(a.name)) report(`/agents/${i}/name`, `\`${a.name}\` is declared twice`, "rename or merge them");
        seen.add(a.name);
      }
      if (Array.isArray(a.tools)) a.tools.forEach((n, j) => known(n, `/agents/${i}/tools/${j}`, "tools"));
    });
  }

  // tasks
  if (Array.isArray(data.tasks)) {
    const seen = new Set<string>();
    data.tasks.forEach((task, i) => {
      if (!isObj(task)) return;
      if (typeof task.name === "string") {
        if (seen.has(task.name)) report(`/tasks/${i}/name`, `\`${task.name}\` is declared twice`, "rename or merge them");
        seen.add(task.name);
      }
      if (!Array.isArray(task.tools)) return;
      task.tools.forEach((n, j) => {
        known(n, `/tasks/${i}/tools/${j}`, "tools");
        if (task.steps !== "all_at_once" || typeof n !== "string") return;
        const e = byName.get(n);
        if (!e || !e.writes) return;
        if (e.raw.undo === undefined && e.raw.outcome === undefined) {
          report(`/tasks/${i}/tools/${j}`, `the task runs all at once, but write \`${n}\` has no \`undo\` or \`outcome\``, `declare \`undo:\` or \`outcome:\` on \`${n}\`, or use \`steps: in_order\``);
        }
        if (e.raw.money === true && e.raw.spend === undefined) {
          report(`/tasks/${i}/tools/${j}`, `the task runs all at once, but \`${n}\` moves money and declares no \`spend\``, `add \`spend: [{field: amount, at_most: …, per: call}]\` and \`currency\` to \`${n}\``);
        }
      });
    });
  }
}

/**
 * ISO 4217 codes as the runtime's ICU knows them: a warning only, never an error, since ICU
 * versions (Node's, workerd's) differ by a code or two and a new currency must not be refused.
 */
let currencies: ReadonlySet<string> | null | undefined;
function knownCurrency(code: string): boolean {
  if (currencies === undefined) {
    const list = (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.("currency");
    currencies = list && list.length > 0 ? new Set(list) : null;
  }
  return currencies === null || currencies.has(code);
}
