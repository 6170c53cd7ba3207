/** The public API of `stalwart-agents` in Node (the whole of it fits on one screen). */
export { Client, type ClientSession, type ClientOptions, type SessionOptions } from "./client.js";
export { REASON_CODES, type SessionApi } from "../../worker/portable/engine/index.js";
export { StalwartError, CatalogueError, LicenceRequired, CheckTimeout, InputError, type CatalogueProblem } from "../../worker/portable/engine/index.js";
export type { CheckResult, CallOptions, ReasonCode, Labels } from "../../worker/portable/engine/index.js";
export type { Entry, TurnEntry, CheckEntry, ReportEntry, ReceiptEntry, Outcome, Decision } from "../../worker/portable/engine/index.js";
export type { Approval, ApprovalStatus, PendingRecord, SignedReceipt } from "../../worker/portable/engine/index.js";
export type { SavedSession } from "../../worker/portable/engine/index.js";
export { canonicalize } from "../../worker/portable/engine/index.js";
export type { LicenceOption, LicencePort, LicenceSource } from "./licence-gate.js";
export type { RunOptions, RunResult, RollbackStep, Impl, DecideOptions } from "../../worker/portable/engine/index.js";
