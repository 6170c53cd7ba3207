/**
 * The engine's one public surface: the SDK glue (cli/), the check worker and the licence service
 * (worker/workerd/) import only this file, and the package's `stalwart-agents/engine` export is
 * this file too. Everything here runs in Node and in workerd alike (Web-standard APIs only).
 */
export { Engine } from "./engine.js";
export { defineOwn, own, ownRecord, owns } from "./canonical/own.js";
export { BoundedCache } from "./bounded-cache.js";
export { Session, type ReadAnswer, type SavedSession, type SealedHeader, type KnownPrefix } from "./session.js";
export { SerialSession, type SessionApi, type SessionCore } from "./serial-session.js";
export { assertSealedHere, savedShapeProblem } from "./saved-session.js";
export { GuardedSteps, type DecideOptions, type Impl, type RollbackStep, type RunOptions, type RunResult } from "./guarded.js";
export type { FollowPlan, Judged, UndoPlan } from "./plans.js";
export { REASON_CODES, type CallOptions, type CheckResult, type Labels, type LicenceGate, type ReasonCode } from "./check/types.js";
export type { FollowedView } from "./origins/follow.js";
export { CallInputs } from "./origins/call-inputs.js";
export { bindsOf, inferenceOf, inferOrigins, labelsOf, originsOf, prepareView, ResultIndex, resultToolOf, viewOfHistory, type InferenceView, type InferOptions, type InferredOrigin, type PreparedView, type RecordedResult } from "./origins/infer.js";
export { WatchedEntries } from "./history/watched.js";
export { CallerHistory } from "./history/caller-history.js";
export { knownThen } from "./history/signed.js";
export { OUTCOMES, type CheckEntry, type Decision, type Entry, type Outcome, type ReceiptEntry, type ReportEntry, type TurnEntry } from "./history/entry.js";

// Approvals (issue 12): pending confirmations, signed receipts, the store interface both runtimes share.
export { APPROVAL_ID, approvedFor, decideProblem, recordShapeError, newestFirst, sameHolds, standingFor, standingIn, standingOf, standingKey, standingKeyOf, surveyOf, approvalStatus, type Approval, type ApprovalSurvey, type UnreadableRecord, type ApprovalStatus, type ApprovalStore, type ArgumentOrigin, type CounterEffect, type DecideAnswer, type PendingRecord } from "./approvals/record.js";
export { callDigest, makeReceipt, receiptDigest, receiptProblem, receiptShapeError, signReceipt, verifyReceipt, type DecisionInput, type Receipt, type Mac, type ReceiptDecision, type SignedReceipt } from "./approvals/receipts.js";
export { approvalIdOf, counterEffects, pendingFrom, tokenClaims, toolAt, type PendingInput } from "./approvals/build.js";
export { lastRun, withCounts } from "./approvals/counts.js";
export { MemoryApprovalStore } from "./approvals/memory.js";
export { recordMacProblem, signRecord } from "./approvals/record-mac.js";
export { decide, waitForDecision, type WaitOptions } from "./approvals/decide.js";
export { receiptEntry } from "./approvals/history.js";
export { editedOrigins, type ApprovalPort } from "./approvals/port.js";

export { CatalogueError, CheckTimeout, InputError, LicenceInvalid, ReservationTaken, LicenceRequired, StalwartError, formatProblem, formatWarning, type CatalogueProblem } from "./errors.js";
// The error-code registry: every code → its HTTP status and wire spelling; workers answer with
// `toWire`, clients read answers back with `errorFromWire`.
export { ERROR_CODES, codeOfWire, errorFromWire, isErrorCode, statusOf, toWire, wireOf, type ErrorCode, type WireError } from "./errors.js";

export { lintCatalogue, lintCatalogueWarnings, loadCatalogue, MAX_CATALOGUE_VALUES, MAX_LINT_PROBLEMS } from "./catalogue/index.js";
export type { CompiledCatalogue, Condition, Language, SchemaCheck, SchemaCompiler } from "./catalogue/types.js";
export { REGISTRY_FILE, compileRulebook, formatOf as rulebookFormatOf, lintRulebook, loadRegistry, registryText, rulebookFromText, type CompiledRulebook } from "./rulebook/index.js";

export type { CounterItem, CounterStore, ReserveAnswer } from "./counters/store.js";
export type { CommitAnswer, Head, SessionState, SessionStateStore, StateChange } from "./state/store.js";
export { MemoryStateStore, type MemoryStateOptions } from "./state/memory.js";
export { refusedName } from "./state/changes.js";
export { checkedClock } from "./clock.js";
export { RESET_HINT, StoreDamaged } from "./state/damaged.js";
export * as stateRules from "./state/rules.js";

export { createCore, type Core, type CounterCore } from "./wasm/core.js";
export { createPreferredCore, pickBuild, type CoreBuild } from "./wasm/choose.js";
export { canonicalize, canonicalizeAt, checkJsonAt } from "./canonical/jcs.js";
export { duplicateKey, inexactInteger } from "./canonical/json-text.js";
export { cutText } from "./canonical/cut.js";
export { equalBytes, fromBase64Url, fromHex, fromUtf8, randomBytes, randomId, toBase64Url, toHex, utf8 } from "./canonical/bytes.js";
export { sha256, sha256Hex } from "./canonical/sha256.js";
export { jsonData } from "./canonical/json-data.js";
export { recordable, recordedResult } from "./canonical/recordable.js";
export { RecordedResults } from "./origins/recorded-results.js";

// Schema adapters: the eval-free one for workerd, and the pieces a Node adapter (cli/sdk/ajv-compiler.ts) shares with it.
export { cfworkerCompiler } from "./schema/cfworker.js";
export { isMultipleOf } from "./schema/multiple-of.js";
export { joinPointer } from "./schema/pointer.js";
export { prepareSchema } from "./schema/prepare.js";
export { linearRegExp, patternProblem, type LinearRegExp } from "./schema/linear-regex.js";
export { closest, didYouMean, nearest } from "./schema/suggest.js";
export { checkOptionKeys } from "./options.js";
export { failure, jsonLeaf, pickLeaf, pickLeaves, type Leaf } from "./schema/verdict.js";
