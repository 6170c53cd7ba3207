/**
 * The rulebook (checks.md "Rulebook gate", step 8): parse → lint → compile, once; the check only
 * looks rules up by tool and evaluates them. README.md beside this file describes the format.
 *
 *   1. YAML (catalogue/source.ts) or CSV (csv.ts, from-csv.ts) → JSON data + a position per value
 *   2. lint.ts      the words and what they mean; conditions by the catalogue's own linter
 *   3. compile.ts   the deep-frozen CompiledRulebook, rules indexed by tool
 *   4. registry.ts  the registry folder's `registry.json` and loading it back (digest checked)
 *
 * Runtime-neutral (no I/O, no code generation): runs in Node and in workerd alike.
 */
export type * from "./types.js";
export { compileRulebook, lintRulebook, formatOf,  } from "./load.js";
export { loadRegistry, rulebookFromText, toRegistry, registryText, REGISTRY_FILE,  } from "./registry.js";
export { rulesFor } from "./compile.js";
export { parseCsv, columnLetter,    } from "./csv.js";
;
