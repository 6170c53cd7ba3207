/** The condition language's public types (evaluate.ts evaluates; compare.ts and wording.ts read a Scope). */
import type { Condition } from "../catalogue/types.js";

export type Truth = "holds" | "fails" | "unknown";

export interface Scope {
  /** the record `field` / `total` / `count` paths read from: a call's arguments (checks), a row (filter), a result (done_when), {args, facts} (rulebook) */
  subject: unknown;
  /**
   * `{from: tool.path}`: the values that tool last returned in this session at that path (a list
   * for a `[]` path); `undefined` when the tool never returned / the path is absent. With `same`
   * (`{from: tool.path, same: arg}`): what the last call of that tool whose argument `arg` equals
   * this call's returned. `fromResults` builds one.
   */
  from(tool: string, path: string, same?: string): unknown;
  /** the row for `{from_row: path}` (filter); when absent, `subject` is the row */
  row?: unknown;
}

export interface Verdict {
  truth: Truth;
  /** the condition that failed or could not be read, for the detail (inside an `any:`: the unreadable one; a failing `any:` itself) */
  condition?: Condition;
  /** a sentence saying why, using `because` when the condition has one and fails */
  wording?: string;
  /** the path that could not be read: the subject's, or the operand's `tool.path` / row field */
  unknown?: string;
}
