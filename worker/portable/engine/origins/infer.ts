/**
 * Origin inference (issue 13, item 1; the gateway of issue 11 uses it too): a host that cannot say
 * where each argument came from gets the most trusted origin that is honest — one the check will
 * verify and accept if it is declared (checks.md, "Argument origins"):
 *
 *   1. `typed`   — the value occurs in one of the person's turns, by the contract's matching rules
 *                  (the same `TurnIndex` step 11 verifies with: language chosen, whole tokens);
 *   2. `result:<step>.<path>` of a call that ran and carries no untrusted label, whose tool's
 *                  `returns` schema declares the path and whose recorded value equals the argument;
 *   3. `context` — the value equals one of the session's context values;
 *   4. `result:<step>.<path>` of a labelled call (a `reads_outside` tool, or one that carried an
 *                  untrusted label): honest, and the session propagates its labels (`untrusted:…`),
 *                  so a value copied out of what a page or an inbox said is held on a write;
 *   5. `model`   — anything else (asked about on a write).
 *
 * A value that equals a trusted source is as good as that source whatever else also holds it, so a
 * trusted match wins over a labelled one. An argument an `after` rule binds to a result field
 * (`bind`) takes that field of that tool's latest run when the value equals it, since step 5
 * refuses any other origin. Declared origins win and are returned as given (the check still
 * verifies them). Pure: plain data in, plain data out; no clock, no I/O.
 */
import type { CompiledCatalogue, Language } from "../catalogue/types.js";
import { declares } from "../catalogue/paths.js";
import type { Entry } from "../history/entry.js";
import { TurnIndex } from "./typed.js";
import { declaredKeys } from "./declared-keys.js";
import { sameJson, stepOf } from "./origins.js";
import type { CallInputs } from "./call-inputs.js";

/** A call that ran in this session, with what its caller reported (kept to declared fields). */
export interface RecordedResult {
  step: number;
  tool: string;
  /** the labels the call carried (its check entry's `labels`) */
  labels: readonly string[];
  /** the reported result, kept to the fields the tool's `returns` declares */
  result: unknown;
  /** the tool's `returns` schema: the paths a `result:` origin may name */
  returns?: object;
  /** a `reads_outside` tool: its values carry `untrusted:<tool>` */
  readsOutside: boolean;
}

/** The session as inference reads it. */
export interface InferenceView {
  language: Language;
  /** the person's turns, as they typed them */
  turns: readonly string[];
  results: readonly RecordedResult[];
  context: Readonly<Record<string, unknown>>;
}

export interface InferredOrigin {
  origin: string;
  /** the labels this origin brings (what the session will propagate), for showing to a person */
  labels: string[];
  /** true when the caller declared it */
  declared?: true;
  /** a `model` value that a trusted result holds too, but only as what the model sent it (call-inputs.ts): that result, for the person */
  sentBefore?: string;
  /** the tool whose result `origin` (or `sentBefore`) names, for the person: "read_file's result", not only a step number */
  tool?: string;
}

export interface InferOptions {
  /** origins the host declared: they win (and are verified by the check) */
  declared?: Readonly<Record<string, string>>;
  /**
   * What the calls the inferring host made were sent (the gateway, an adapter): a value a result
   * only hands back from what it or an earlier call was sent (a lookup answering with the id it was
   * given) came from whoever wrote it, so it is no `result:` origin (the model cannot launder its
   * own value through a read).
   */
  inputs?: CallInputs;
  /** argument → the `{tool, field}` an `after` rule binds it to */
  binds?: Readonly<Record<string, { tool: string; field: string }>>;
  /** the tool's `args` schema: the object keys it declares are not the writer's words (typed.ts) */
  argsSchema?: object;
}

/** A compiled view: turns folded once, so inferring many calls reads them once. */
export interface PreparedView {
  readonly turns: TurnIndex;
  readonly results: readonly RecordedResult[];
  readonly context: Readonly<Record<string, unknown>>;
  /**
   * Where scalar values occur in `results` (kept by whoever keeps the view, e.g. the adapters'
   * incremental view): a scalar argument is then looked up instead of searched for in every
   * result. It must index exactly the results in `results`; the answer is the same either way.
   */
  readonly index?: ResultIndex;
}

type Scalar = string | number | boolean | null;
interface Holder {
  result: RecordedResult;
  /** the shallowest declared path of the result that holds the value (as `pathOf` finds it) */
  path: string;
}

/**
 * Scalar value → the results holding it, by step. Results are indexed when first looked up
 * (a session whose arguments are all typed never pays for it), each once; a result taken out of
 * the view (`remove`: its call was later reported failed or compensated) is skipped.
 */
export class ResultIndex {
  private readonly live = new Set<RecordedResult>();
  private pending: RecordedResult[] = [];
  private readonly holders = new Map<Scalar, Holder[]>();

  add(r: RecordedResult): void {
    this.live.add(r);
    this.pending.push(r);
  }

  remove(r: RecordedResult): void {
    this.live.delete(r);
  }

  /** Live results holding `value` at a declared path, latest step first. */
  *find(value: Scalar): Generator<Holder> {
    if (this.pending.length) this.drain();
    const hs = this.holders.get(value);
    if (!hs) return;
    for (let i = hs.length - 1; i >= 0; i--) if (this.live.has(hs[i]!.result)) yield hs[i]!;
  }

  private drain(): void {
    const todo = this.pending;
    this.pending = [];
    for (const r of todo) {
      if (!this.live.has(r) || !r.returns) continue;
      for (const [value, path] of scalarPaths(r)) {
        let hs = this.holders.get(value);
        if (!hs) this.holders.set(value, (hs = []));
        // kept in step order; reports mostly come for the latest steps, so this is an append
        let at = hs.length;
        while (at > 0 && hs[at - 1]!.result.step > r.step) at--;
        hs.splice(at, 0, { result: r, path });
      }
    }
  }
}

export function prepareView(view: InferenceView): PreparedView {
  const turns = new TurnIndex(view.language);
  for (const t of view.turns) turns.add(t);
  return { turns, results: view.results, context: view.context };
}

/** The origin of every argument, in argument order. */
export function inferOrigins(args: Readonly<Record<string, unknown>>, view: InferenceView | PreparedView, options: InferOptions = {}): Record<string, InferredOrigin> {
  const v = "language" in view ? prepareView(view) : view;
  const out: Record<string, InferredOrigin> = {};
  for (const name of Object.keys(args)) {
    const declared = options.declared && Object.prototype.hasOwnProperty.call(options.declared, name) ? options.declared[name] : undefined;
    const value = args[name];
    let found: InferredOrigin;
    if (typeof declared === "string") found = { origin: declared, labels: [], declared: true };
    else found = inferOne(value, v, options.binds && Object.prototype.hasOwnProperty.call(options.binds, name) ? options.binds[name] : undefined, options.inputs, typeof value === "object" && value !== null ? declaredKeys(options.argsSchema, name) : undefined);
    Object.defineProperty(out, name, { value: found, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The tool whose result a step is, as far as `inferred`'s `result:` origins say (pendingFrom's `resultTool`). */
export function resultToolOf(inferred: Readonly<Record<string, InferredOrigin>>): (step: number) => string | undefined {
  return (step) => {
    for (const k of Object.keys(inferred)) {
      const o = inferred[k]!;
      if (o.tool !== undefined && stepOf(o.origin.startsWith("result:") ? o.origin : o.sentBefore ?? "") === step) return o.tool;
    }
    return undefined;
  };
}

/** Just the origin strings, as `checkToolCall`'s `origins` option takes them. */
export function originsOf(inferred: Readonly<Record<string, InferredOrigin>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(inferred)) Object.defineProperty(out, k, { value: inferred[k]!.origin, enumerable: true, writable: true, configurable: true });
  return out;
}

function inferOne(value: unknown, v: PreparedView, bind: { tool: string; field: string } | undefined, inputs?: CallInputs, keys?: ReadonlySet<string>): InferredOrigin {
  if (bind) {
    // step 5 binds to the field of a run of that tool; take the latest whose field holds the value.
    // A scalar is looked up in the index (only the results holding it, latest first), not searched
    // for in every result: a bound field is a declared path, so each result holding the value
    // there is among them.
    const candidates = v.index && isScalar(value) ? resultsOf(v.index.find(value)) : latestFirst(v.results);
    for (const r of candidates) {
      if (r.tool !== bind.tool) continue;
      const at = fieldAt(r, bind.field);
      // a run that only hands back what it was sent is no source for the binding either (outside audit 24, F2)
      if (at.ok && sameJson(at.value, value) && !inputs?.echoes(r.step, value)) return fromResult(r, bind.field);
    }
  }
  if (v.turns.has(value, keys)) return { origin: "typed", labels: [] };
  let labelled: InferredOrigin | undefined;
  let echoed: InferredOrigin | undefined;
  if (v.index && isScalar(value)) {
    // the same search as below, answered by the index: latest first, a trusted match wins
    for (const h of v.index.find(value)) {
      const found = fromResult(h.result, h.path);
      if (found.labels.length === 0) {
        if (!inputs?.echoes(h.result.step, value)) return found;
        echoed ??= found;
        continue;
      }
      // an echo through a labelled call stays labelled: that is the stricter reading
      labelled ??= found;
    }
  } else {
    // latest first: the freshest copy of a value is the likeliest source
    for (let i = v.results.length - 1; i >= 0; i--) {
      const r = v.results[i]!;
      const path = pathOf(r, value);
      if (path === null) continue;
      const found = fromResult(r, path);
      if (found.labels.length === 0) {
        if (!inputs?.echoes(r.step, value)) return found;
        echoed ??= found;
        continue;
      }
      labelled ??= found;
    }
  }
  for (const k of Object.keys(v.context)) {
    if (sameJson(v.context[k], value)) return { origin: "context", labels: [] };
  }
  if (labelled) return labelled;
  if (echoed) return { origin: "model", labels: [], sentBefore: echoed.origin, tool: echoed.tool! };
  // An object or a list no result holds whole is the model's, but a value inside it copied out of a
  // labelled result keeps that result's labels (outside audit 27, F4: `edits: [{newText: <an
  // injected line>}]` passed as the model's own, and no tainted_call held it).
  return { origin: "model", labels: typeof value === "object" && value !== null ? leafLabels(value, v, inputs) : [] };
}

/** Leaves an argument is searched for labelled copies, at most (fail toward fewer labels only past it: a huge argument is asked about anyway). */
const MAX_LEAVES = 2_000;

/** The labels of every scalar inside `value` that inference, asked about it alone, finds in a labelled result; sorted, unique. */
function leafLabels(value: object, v: PreparedView, inputs: CallInputs | undefined): string[] {
  const out = new Set<string>();
  const stack: unknown[] = [value];
  let seen = 0;
  while (stack.length > 0 && seen < MAX_LEAVES) {
    const x = stack.pop();
    seen++;
    if (Array.isArray(x)) for (const y of x) stack.push(y);
    else if (typeof x === "object" && x !== null) for (const k of Object.keys(x)) stack.push((x as Record<string, unknown>)[k]);
    else if (typeof x === "string" || typeof x === "number" || typeof x === "boolean") for (const l of inferOne(x, v, undefined, inputs).labels) out.add(l);
  }
  return [...out].sort();
}

/** Per argument, the labels its origin brings where the check would not find them itself (not a `result:` origin): `checkToolCall`'s `labels` option. */
export function labelsOf(inferred: Readonly<Record<string, InferredOrigin>>): { labels?: Record<string, string[]> } {
  let out: Record<string, string[]> | undefined;
  for (const k of Object.keys(inferred)) {
    const o = inferred[k]!;
    if (o.labels.length === 0 || o.origin.startsWith("result:")) continue;
    Object.defineProperty((out ??= {}), k, { value: [...o.labels], enumerable: true, writable: true, configurable: true });
  }
  return out ? { labels: out } : {};
}

function* latestFirst(results: readonly RecordedResult[]): Generator<RecordedResult> {
  for (let i = results.length - 1; i >= 0; i--) yield results[i]!;
}

function* resultsOf(holders: Iterable<Holder>): Generator<RecordedResult> {
  for (const h of holders) yield h.result;
}

function fromResult(r: RecordedResult, path: string): InferredOrigin {
  const labels: string[] = [];
  if (r.readsOutside) labels.push(`untrusted:${r.tool}`);
  for (const l of r.labels) if (!(l === "trusted" || l.startsWith("trusted:")) && !labels.includes(l)) labels.push(l);
  return { origin: path === "" ? `result:${r.step}` : `result:${r.step}.${path}`, labels, tool: r.tool };
}

const NAME = /^[^.[\]\s]+$/;
/** Nodes visited per result at most: a huge result is searched only this far (fail toward `model`). */
const MAX_NODES = 10_000;

/** The declared path in `r`'s result that holds `value` (shallowest first), or null. */
function pathOf(r: RecordedResult, value: unknown): string | null {
  if (!r.returns) return null;
  // breadth first, so `result:4.order_id` is preferred over a deeper copy of the same value
  const queue: { node: unknown; path: string }[] = [{ node: r.result, path: "" }];
  for (let n = 0; n < queue.length && n < MAX_NODES; n++) {
    const { node, path } = queue[n]!;
    if (sameJson(node, value) && (path === "" ? value !== null : declares(r.returns, path))) return path;
    if (Array.isArray(node)) {
      node.forEach((x, i) => queue.push({ node: x, path: `${path}[${i}]` }));
    } else if (node !== null && typeof node === "object") {
      for (const k of Object.keys(node)) {
        // a key the path grammar cannot name cannot be an origin
        if (NAME.test(k)) queue.push({ node: (node as Record<string, unknown>)[k], path: path === "" ? k : `${path}.${k}` });
      }
    }
  }
  return null;
}

function isScalar(x: unknown): x is Scalar {
  return x === null || typeof x === "string" || typeof x === "number" || typeof x === "boolean";
}

/** Each scalar of `r`'s result with the first path `pathOf` would name for it (same walk, same cap). */
function scalarPaths(r: RecordedResult): Map<Scalar, string> {
  const out = new Map<Scalar, string>();
  if (!r.returns) return out;
  const queue: { node: unknown; path: string }[] = [{ node: r.result, path: "" }];
  for (let n = 0; n < queue.length && n < MAX_NODES; n++) {
    const { node, path } = queue[n]!;
    if (isScalar(node)) {
      if (!out.has(node) && (path === "" ? node !== null : declares(r.returns, path))) out.set(node, path);
    } else if (Array.isArray(node)) {
      node.forEach((x, i) => queue.push({ node: x, path: `${path}[${i}]` }));
    } else if (node !== null && typeof node === "object") {
      for (const k of Object.keys(node)) {
        if (NAME.test(k)) queue.push({ node: (node as Record<string, unknown>)[k], path: path === "" ? k : `${path}.${k}` });
      }
    }
  }
  return out;
}

function fieldAt(r: RecordedResult, field: string): { ok: true; value: unknown } | { ok: false } {
  if (!r.returns || !declares(r.returns, field)) return { ok: false };
  let cur: unknown = r.result;
  for (const part of field.split(".")) {
    if (cur === null || typeof cur !== "object" || Array.isArray(cur) || !Object.prototype.hasOwnProperty.call(cur, part)) return { ok: false };
    cur = (cur as Record<string, unknown>)[part];
  }
  return { ok: true, value: cur };
}

/**
 * The view of a session's history: its turns, and the calls that were allowed and last reported
 * `ran` (what a `result:` origin may name), with the catalogue's `returns` and `reads_outside`.
 * The history is the session's own (the check verifies it before it accepts anything inferred).
 */
export function viewOfHistory(entries: readonly Entry[], catalogue: CompiledCatalogue, language: Language, context: Readonly<Record<string, unknown>> = {}): InferenceView {
  const turns: string[] = [];
  const lastOutcome = new Map<number, { outcome: string; result: unknown }>();
  for (const e of entries) {
    if (e.kind === "turn") turns.push(e.text);
    else if (e.kind === "report") lastOutcome.set(e.of, { outcome: e.outcome, result: e.result });
  }
  const results: RecordedResult[] = [];
  for (const e of entries) {
    if (e.kind !== "check" || e.decision !== "allow") continue;
    const report = lastOutcome.get(e.step);
    if (!report || report.outcome !== "ran") continue;
    const tool = catalogue.tools.get(e.tool);
    if (!tool) continue;
    results.push({
      step: e.step, tool: e.tool, labels: e.labels, result: report.result, readsOutside: tool.readsOutside,
      ...(tool.returnsSchema ? { returns: tool.returnsSchema } : {}),
    });
  }
  return { language, turns, results, context };
}

/** What `inferOrigins` needs of a tool: its `after` bindings and its `args` schema. */
export function inferenceOf(catalogue: CompiledCatalogue, toolName: string): Pick<InferOptions, "binds" | "argsSchema"> {
  const schema = catalogue.tools.get(toolName)?.argsSchema;
  return { binds: bindsOf(catalogue, toolName), ...(schema ? { argsSchema: schema } : {}) };
}

/** `after` bindings of a tool, by argument (for `InferOptions.binds`). */
export function bindsOf(catalogue: CompiledCatalogue, toolName: string): Record<string, { tool: string; field: string }> {
  const out: Record<string, { tool: string; field: string }> = {};
  const tool = catalogue.tools.get(toolName);
  for (const rule of tool?.after ?? []) {
    for (const [arg, field] of Object.entries(rule.bind ?? {})) {
      if (!Object.prototype.hasOwnProperty.call(out, arg)) Object.defineProperty(out, arg, { value: { tool: rule.tool, field }, enumerable: true, writable: true, configurable: true });
    }
  }
  return out;
}
