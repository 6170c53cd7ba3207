/**
 * A state or counter store that cannot be trusted: missing after it existed, zeroed, older than
 * its witness, replaced, or holding a value that is not what was written (NaN, garbage). Never a
 * silent reset: every operation on it throws this until `stalwart counters reset` (recorded) makes
 * a new one, and the check refuses counted calls (`usage_unknown` / `spend_unknown`).
 */
import { StalwartError } from "../errors.js";

export const RESET_HINT = "run `stalwart counters reset` to start a new store (it forgets every count, spent token and session head, and is recorded in the new store with who and when)";

export class StoreDamaged extends StalwartError {
  declare readonly code: "CounterStoreDamaged";
  /** the file (Node) or object (worker) that is damaged */
  readonly where: string;
  constructor(where: string, what: string, hint: string = RESET_HINT) {
    super("CounterStoreDamaged", `the counter and session store \`${where}\` is damaged: ${what}`, { hint });
    this.where = where;
  }
}
