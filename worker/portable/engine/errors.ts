/**
 * One base class for every error the project throws on purpose, with a stable string `code`
 * callers can switch on (the panva/jose habit), and the one registry of those codes: the HTTP
 * status each is answered with and its spelling on the wire. A worker answers an error with
 * `toWire`; a client turns the answer back with `errorFromWire` into the same class with the same
 * `code` as in process. Messages are lowercase; user input in backticks.
 */

/**
 * Every code thrown or answered, with its HTTP status. Codes thrown in process (the engine, the
 * SDK, the CLI) are PascalCase, as the contract names them (`LicenceRequired`, `CatalogueError`),
 * and the wire spells them snake_case (`wire`). Codes only a worker answers are snake_case and
 * the wire spelling is the code: the remote SDK and the licence CLI throw them as they came.
 */
export const ERROR_CODES = {
  // the engine and the SDK, in process and over HTTP
  CatalogueError: { status: 400, wire: "catalogue_invalid" },
  InputError: { status: 400, wire: "invalid_request" },
  InvalidSchema: { status: 400, wire: "schema_invalid" },
  HistoryInvalid: { status: 409, wire: "history_invalid" },
  SessionSealInvalid: { status: 400, wire: "session_invalid" },
  CatalogueMismatch: { status: 409, wire: "catalogue_mismatch" },
  RulebookMismatch: { status: 409, wire: "rulebook_mismatch" },
  ClockUnreadable: { status: 500, wire: "clock_unreadable" },
  // a counter store's clock behind a period it has seen end (state/rules.ts checkClock)
  ClockBehind: { status: 409, wire: "clock_behind" },
  LicenceRequired: { status: 503, wire: "licence_required" },
  LicenceInvalid: { status: 503, wire: "licence_invalid" },
  // a person's turn under a lapse whose `on_licence_lapse` is `refuse` (licensing.md: every operation)
  LicenceLapsed: { status: 403, wire: "licence_lapsed" },
  CheckTimeout: { status: 504, wire: "check_timeout" },
  CheckUnavailable: { status: 503, wire: "check_unavailable" },
  SessionNotReady: { status: 409, wire: "session_not_ready" },
  SessionStateUnreadable: { status: 503, wire: "session_state_unreadable" },
  CounterStoreDamaged: { status: 503, wire: "counter_store_damaged" },
  WasmOutOfMemory: { status: 503, wire: "wasm_out_of_memory" },
  WasmKeySlotsFull: { status: 503, wire: "wasm_key_slots_full" },
  WasmBadSlot: { status: 500, wire: "wasm_bad_slot" },
  WasmBadArgument: { status: 400, wire: "wasm_bad_argument" },
  WasmBadModule: { status: 500, wire: "wasm_bad_module" },
  // the CLI and the Node glue
  UsageError: { status: 400, wire: "usage_error" },
  TraceInvalid: { status: 400, wire: "trace_invalid" },
  FileUnreadable: { status: 400, wire: "file_unreadable" },
  LicenceFileUnreadable: { status: 500, wire: "licence_file_unreadable" },
  // another activation of the home holds licence/activate.lock past the wait (cli/licence/activation-lock.ts)
  ActivationBusy: { status: 409, wire: "activation_busy" },
  // the licence meter's background write failed: the next count refuses (quota_exhausted)
  MeterUnrecorded: { status: 503, wire: "meter_unrecorded" },
  KeyUnreadable: { status: 500, wire: "key_unreadable" },
  // a home's history key missing or replaced while state made under it remains (cli/sdk/home.ts);
  // `stalwart key reset` on a key that is fine, without --force
  KeyChanged: { status: 500, wire: "key_changed" },
  KeyHealthy: { status: 409, wire: "key_healthy" },
  CountersUnreadable: { status: 500, wire: "counters_unreadable" },
  // `stalwart counters reset` (cli/sdk/state/reset.ts): no store to reset; a healthy one without --force
  NothingToReset: { status: 409, wire: "nothing_to_reset" },
  StoreHealthy: { status: 409, wire: "store_healthy" },
  NoPendingRequest: { status: 409, wire: "no_pending_request" },
  ApiKeyRequired: { status: 401, wire: "api_key_not_configured" },
  // approvals (issue 12): a pending confirmation that is not there, or was decided already
  ApprovalNotFound: { status: 404, wire: "approval_not_found" },
  ApprovalDecided: { status: 409, wire: "approval_decided" },
  // a record or receipt under <home>/approvals/ that does not read as one (cli/approvals/store.ts)
  ApprovalUnreadable: { status: 500, wire: "approval_unreadable" },
  // the adapters (cli/adapters/): a refused call as the framework hands it to the model
  ToolCallRefused: { status: 403, wire: "tool_call_refused" },
  // the gateway (cli/gateway/): the MCP tool server it forwards to did not answer
  UpstreamUnavailable: { status: 502, wire: "upstream_unavailable" },
  // ... or answered with JSON nested too deeply to read (cli/gateway/upstream.ts)
  UpstreamUnreadable: { status: 502, wire: "upstream_unreadable" },
  // `stalwart licence dev` (cli/licence/dev-licence.ts): the in-process development licence service
  DevLicenceUnavailable: { status: 503, wire: "dev_licence_unavailable" },
  DevLicenceFailed: { status: 500, wire: "dev_licence_failed" },
  LicenceExists: { status: 409, wire: "licence_exists_here" },
  // either worker (worker/workerd/http/)
  not_found: { status: 404 },
  body_too_large: { status: 413 },
  malformed_json: { status: 400 },
  internal_error: { status: 500 },
  // the check worker (and the approvals page, both local and the worker's)
  unauthorized: { status: 401 },
  forbidden: { status: 403 },
  unsupported_media_type: { status: 415 },
  catalogue_not_found: { status: 404 },
  rulebook_not_found: { status: 404 },
  history_secret_missing: { status: 503 },
  /** a session sent with `since` to an isolate that does not hold its first entries: send it in full */
  session_history_needed: { status: 409 },
  // the licence service (licensing.md, "Service endpoints") and its Durable Objects
  malformed_request: { status: 400 },
  malformed_signature: { status: 400 },
  malformed_usage_report: { status: 400 },
  api_key_required: { status: 401 },
  api_key_invalid: { status: 401 },
  admin_required: { status: 401 },
  signature_required: { status: 401 },
  installation_unknown: { status: 401 },
  stale_date: { status: 401 },
  // 401 for a signed call; a forged offline activation request is answered 400 by the licence object
  bad_signature: { status: 401 },
  admin_disabled: { status: 403 },
  licence_expired: { status: 403 },
  licence_revoked: { status: 403 },
  wrong_installation: { status: 403 },
  offline_activation_not_allowed: { status: 403 },
  licence_unknown: { status: 404 },
  org_unknown: { status: 404 },
  unknown_bundle_kind: { status: 404 },
  licence_exists: { status: 409 },
  installation_exists: { status: 409 },
  seat_limit_reached: { status: 409 },
  replayed_request: { status: 409 },
  installation_released: { status: 410 },
  quota_exhausted: { status: 429 },
  signing_key_invalid: { status: 503 },
  signing_key_missing: { status: 503 },
  storage_unavailable: { status: 503 },
  // the licence CLI's client (cli/licence/service.ts): the service could not be asked or understood
  own_identifier_withheld: { status: 400 },
  service_bad_answer: { status: 502 },
  service_unreachable: { status: 503 },
} as const satisfies Record<string, { status: number; wire?: string }>;

/**
 * A registered code, or `http_<status>` for an error answer whose code this build does not know
 * (a newer server): the status is all that is sure of it.
 */
export type ErrorCode = keyof typeof ERROR_CODES | `http_${number}`;

type Entry = { status: number; wire?: string };
const entryOf = (code: string): Entry | undefined => (Object.hasOwn(ERROR_CODES, code) ? (ERROR_CODES as Record<string, Entry>)[code] : undefined);

const BY_WIRE = new Map<string, ErrorCode>(Object.entries(ERROR_CODES).map(([code, e]: [string, Entry]) => [e.wire ?? code, code as ErrorCode]));

export function isErrorCode(code: string): code is ErrorCode {
  return entryOf(code) !== undefined || /^http_[1-5][0-9]{2}$/.test(code);
}

/** The HTTP status a code is answered with. */
export function statusOf(code: ErrorCode): number {
  const http = /^http_([1-5][0-9]{2})$/.exec(code);
  return entryOf(code)?.status ?? (http ? Number(http[1]) : 500);
}

/** The code's spelling on the wire. */
export function wireOf(code: ErrorCode): string {
  return entryOf(code)?.wire ?? code;
}

/** The code a wire spelling stands for; undefined when this build does not know it. */
export function codeOfWire(wire: string): ErrorCode | undefined {
  return BY_WIRE.get(wire);
}

export interface ErrorOptions {
  hint?: string | undefined;
  /** JSON pointer to where the input is wrong */
  pointer?: string | undefined;
  cause?: unknown;
}

export class StalwartError extends Error {
  readonly code: ErrorCode;
  readonly hint?: string;
  /** JSON pointer to where the input is wrong, when it is input */
  readonly pointer?: string;
  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    if (options?.hint) this.hint = options.hint;
    if (options?.pointer !== undefined) this.pointer = options.pointer;
  }
}

/** Where in a source file something is wrong (1-based line and column). */
export interface SourcePosition {
  file: string;
  line: number;
  column: number;
}

/** One problem in a catalogue or rulebook, compiler-style. */
export interface CatalogueProblem extends SourcePosition {
  message: string;
  hint?: string;
  /** JSON pointer into the parsed document, e.g. `/tools/2/writes`. */
  pointer: string;
}

/** A catalogue (or rulebook) that does not load: every problem found, not just the first. */
export class CatalogueError extends StalwartError {
  readonly problems: readonly CatalogueProblem[];
  /** warnings found beside the problems (lint-meaning.ts), for a linter to show too */
  warnings: readonly CatalogueProblem[] = [];
  readonly file: string;
  readonly line: number;
  readonly column: number;
  constructor(problems: readonly CatalogueProblem[]) {
    const first = problems[0] ?? { file: "<catalogue>", line: 1, column: 1, message: "invalid catalogue", pointer: "" };
    super("CatalogueError", problems.map(formatProblem).join("\n"), { hint: first.hint });
    this.problems = problems;
    this.file = first.file;
    this.line = first.line;
    this.column = first.column;
  }
}

export function formatProblem(p: CatalogueProblem): string {
  return `${p.file}:${p.line}:${p.column}: error: ${p.message}${p.hint ? `\n  hint: ${p.hint}` : ""}`;
}

/** A warning: the catalogue loads, but something in it likely does not do what its author means. */
export function formatWarning(p: CatalogueProblem): string {
  return `${p.file}:${p.line}:${p.column}: warning: ${p.message}${p.hint ? `\n  hint: ${p.hint}` : ""}`;
}

/** No licence (or no activated installation) where one is needed. `hint: null`: none. */
export class LicenceRequired extends StalwartError {
  constructor(message = "no activated licence on this machine", hint: string | null = "run `stalwart licence activate` with QLS_API_KEY set") {
    super("LicenceRequired", message, { hint: hint ?? undefined });
  }
}

/** The licence or lease in use does not verify (tampered, foreign, replayed); `reason` says how. */
export class LicenceInvalid extends StalwartError {
  readonly reason: string;
  constructor(reason: string, detail: string, wire?: { message: string; hint?: string | undefined }) {
    super("LicenceInvalid", wire?.message ?? `the stored licence does not verify: ${detail} (${reason})`, {
      hint: wire ? wire.hint : "run `stalwart licence activate` again to fetch a fresh licence and lease",
    });
    this.reason = reason;
  }
}

/** The check worker did not answer within the client's deadline. */
export class CheckTimeout extends StalwartError {
  constructor(ms: number) {
    super("CheckTimeout", `the check did not answer within ${ms} ms`);
  }
}

/** Bad input handed to the SDK (not JSON-serialisable args, a history of the wrong shape, …). */
export class InputError extends StalwartError {
  constructor(message: string, pointer?: string, hint?: string) {
    super("InputError", message, { hint, pointer });
  }
}

/**
 * A reservation id that is taken: it names one history entry, so another copy of the same history
 * is answering (or answered) that very entry. A counter store throws it; the check answers this
 * copy `history_invalid` (Session.decide). Its code stays `InputError` on the wire.
 */
export class ReservationTaken extends InputError {
  constructor(id: string) {
    super(`reservation \`${id}\` was taken already; an id names one history entry and is never reused`, "/reservation");
  }
}

/** An error as a worker answers it: `{error: {code, message, pointer?, hint?, problems?}}`. */
export interface WireError {
  code: string;
  message: string;
  pointer?: string;
  hint?: string;
  problems?: readonly CatalogueProblem[];
  /** how many problems past the first `MAX_WIRE_PROBLEMS` the answer leaves out */
  more_problems?: number;
}

/** Problems an answer lists at most: a text of many thousand repeated mistakes stays a small answer. */
export const MAX_WIRE_PROBLEMS = 100;

/** The status and body a worker answers `err` with. */
export function toWire(err: StalwartError, status = statusOf(err.code)): { status: number; body: { error: WireError } } {
  if (err instanceof CatalogueError) {
    // the problems say what and where; the message names the first (a rulebook's too: same code)
    const first = err.problems[0];
    const more = err.problems.length > 1 ? ` (and ${err.problems.length - 1} more)` : "";
    const message = first ? `${first.file}:${first.line}:${first.column}: ${first.message}${more}` : err.message;
    const error: WireError = { code: wireOf(err.code), message, pointer: first?.pointer ?? "", problems: err.problems.slice(0, MAX_WIRE_PROBLEMS) };
    if (err.problems.length > MAX_WIRE_PROBLEMS) error.more_problems = err.problems.length - MAX_WIRE_PROBLEMS;
    return { status, body: { error } };
  }
  const error: WireError = { code: wireOf(err.code), message: err.message };
  if (err.pointer !== undefined) error.pointer = err.pointer;
  if (err.hint !== undefined) error.hint = err.hint;
  return { status, body: { error } };
}

/**
 * The error a worker's answer stands for: the same class with the same `code` as in process
 * (`history_invalid` → a `StalwartError` with code `HistoryInvalid`, `catalogue_invalid` → a
 * `CatalogueError` with its problems). `error` is the answer's `error` member, unchecked; an
 * unknown code becomes `http_<status>` with the server's code kept in the message.
 */
export function errorFromWire(error: unknown, status = 500): StalwartError {
  const e: Record<string, unknown> = typeof error === "object" && error !== null && !Array.isArray(error) ? { ...error } : {};
  const wire = typeof e.code === "string" ? e.code : "";
  const known = codeOfWire(wire);
  const code: ErrorCode = known ?? `http_${Number.isInteger(status) && status >= 100 && status <= 599 ? status : 500}`;
  const said = typeof e.message === "string" ? e.message : `the server answered ${status}${wire ? ` \`${wire}\`` : ""}`;
  const message = known || !wire ? said : `${wire}: ${said}`;
  const hint = typeof e.hint === "string" ? e.hint : undefined;
  const pointer = typeof e.pointer === "string" ? e.pointer : undefined;
  switch (code) {
    case "CatalogueError": {
      const problems = Array.isArray(e.problems) ? e.problems.filter(isProblem) : [];
      if (problems.length > 0) return new CatalogueError(problems);
      break;
    }
    case "InputError":
      return new InputError(message, pointer, hint);
    case "LicenceRequired":
      return new LicenceRequired(message, hint ?? null);
    case "LicenceInvalid":
      return new LicenceInvalid(typeof e.reason === "string" ? e.reason : "remote", message, { message, hint });
  }
  return new StalwartError(code, message, { hint, pointer });
}

function isProblem(p: unknown): p is CatalogueProblem {
  if (typeof p !== "object" || p === null) return false;
  const q = p as Record<string, unknown>;
  return typeof q.file === "string" && typeof q.line === "number" && typeof q.column === "number" && typeof q.message === "string" && typeof q.pointer === "string" && (q.hint === undefined || typeof q.hint === "string");
}

/** Problems in source order, each reported once (the same message at the same place collapses). */
export function sortProblems(problems: CatalogueProblem[]): CatalogueProblem[] {
  const seen = new Set<string>();
  return problems
    .map((p, i) => ({ p, i }))
    .filter(({ p }) => {
      const key = `${p.line}:${p.column}:${p.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => a.p.line - b.p.line || a.p.column - b.p.column || a.i - b.i)
    .map(({ p }) => p);
}
