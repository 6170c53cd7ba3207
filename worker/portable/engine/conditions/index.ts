/**
 * The condition language (checks.md "Conditions, limits, spend, outcomes"): `evaluate` one
 * condition, `evaluateAll` a list (checks, `done_when`, rules), `applyFilter` a read's `filter`.
 * Meaning of every word: compare.ts. Web-standard only: runs in Node and workerd alike.
 */
export { evaluate, evaluateAll, type Scope, type Truth, type Verdict } from "./evaluate.js";
export { applyFilter,   } from "./filter.js";
export { fromResults,   } from "./read.js";
export { parseInstant,  } from "./values.js";
