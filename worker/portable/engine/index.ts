/**
 * The engine's one public surface: the SDK glue (cli/), the check worker and the licence service
 * (worker/workerd/) import only this file, and the package's `stalwart-agents/engine` export is
 * this file too. Everything here runs in Node and in workerd alike (Web-standard APIs only).
 */
export { Engine } from "./engine.js";
export { Session, type SavedSession } from "./session.js";
export { GuardedSteps, type Impl, type RollbackStep, type RunOptions, type RunResult } from "./guarded.js";
export type { FollowPlan, Judged, UndoPlan } from "./plans.js";
export type { CallOptions, CheckResult, Labels, LicenceGate, ReasonCode } from "./check/types.js";
export { OUTCOMES, type CheckEntry, type Decision, type Entry, type Outcome, type ReportEntry, type TurnEntry } from "./history/entry.js";

export { CatalogueError, CheckTimeout, InputError, LicenceRequired, StalwartError, formatProblem, type CatalogueProblem } from "./errors.js";

export { lintCatalogue, loadCatalogue } from "./catalogue/index.js";
export type { CompiledCatalogue, Language, SchemaCheck, SchemaCompiler } from "./catalogue/types.js";
export { REGISTRY_FILE, compileRulebook, lintRulebook, loadRegistry, registryText, rulebookFromText, type CompiledRulebook } from "./rulebook/index.js";

export type { CounterItem, CounterStore, ReserveAnswer } from "./counters/store.js";
export type { CommitAnswer, Head, SessionState, SessionStateStore, StateChange } from "./state/store.js";
export { MemoryStateStore, type MemoryStateOptions } from "./state/memory.js";
export { RESET_HINT, StoreDamaged } from "./state/damaged.js";
export * as stateRules from "./state/rules.js";

export { createCore, type Core, type CounterCore } from "./wasm/core.js";
export { canonicalize } from "./canonical/jcs.js";
export { equalBytes, toHex, utf8 } from "./canonical/bytes.js";

// Schema adapters: the eval-free one for workerd, and the pieces a Node adapter (cli/sdk/ajv-compiler.ts) shares with it.
export { cfworkerCompiler } from "./schema/cfworker.js";
export { isMultipleOf } from "./schema/multiple-of.js";
export { joinPointer } from "./schema/pointer.js";
export { prepareSchema } from "./schema/prepare.js";
export { closest } from "./schema/suggest.js";
export { failure, jsonLeaf, pickLeaf, type Leaf } from "./schema/verdict.js";
