/**
 * Pending confirmations (issue 12): plain data records behind one store interface, shared by the
 * SDK, the gateway, the CLI, the local page and the check worker. A `confirm` creates a record;
 * a person's decision is a signed receipt (receipts.ts) stored beside it exactly once; the call
 * the approval covers spends the record's token once (`used`). Status is derived, never stored,
 * so an expired record is closed by the clock alone.
 */
import { isTime, type SignedReceipt } from "./receipts.js";
import { canonicalize } from "../canonical/jcs.js";

export type ApprovalStatus = "pending" | "approved" | "denied" | "edited" | "used" | "withdrawn" | "expired";

/** One argument as a person needs to see it: the value, where it came from, what it carries. */
export interface ArgumentOrigin {
  origin: string;
  labels: string[];
  /**
   * The host said this trusted origin, and the check named the argument in `argument_origin`
   * anyway (a `typed` value no turn of the person holds): the page must not show the claim as fact.
   */
  doubted?: true;
  /** for a `result:` origin, the tool whose result it is (the page says "read_file's result") */
  tool?: string;
}

/** What the call does to one counter it touches (before and after are null when unknown). */
export interface CounterEffect {
  counter: string;
  adds: number;
  ceiling: number;
  per: string;
  before: number | null;
  after: number | null;
}

export interface PendingRecord {
  v: 1;
  /** `p_` and 16 hex digits */
  id: string;
  /** the stalwart session id the token is bound to */
  session: string;
  /** the ask entry: the history step at which the check answered `confirm` */
  step: number;
  tool: string;
  agent: string | null;
  /** the exact arguments that were checked */
  args: Record<string, unknown>;
  /** hex SHA-256 of the canonical arguments (the token's digest) */
  digest: string;
  origins: Record<string, ArgumentOrigin>;
  reasons: string[];
  wording: string;
  counters: CounterEffect[];
  /** the check's bound token; an approval lets the identical call spend it once */
  token: string;
  /** ms since the epoch */
  created: number;
  /** the token's expiry, ms since the epoch */
  expires: number;
  /** a home's file store: the HMAC of the rest under the installation key (record-mac.ts) */
  mac?: string;
}

/**
 * Why `x` is not a pending record as a store writes one, or null. For records read back from
 * files a person or a host can edit: every field the page, the CLI and the SDK read, of its type.
 */
export function recordShapeError(x: unknown): string | null {
  if (!isObject(x)) return "it is not an object";
  const o = x;
  const str = (v: unknown) => typeof v === "string";
  const num = (v: unknown) => typeof v === "number" && Number.isFinite(v);
  if (o.v !== 1) return "it is not a version 1 record";
  if (![o.id, o.session, o.tool, o.digest, o.wording, o.token].every(str) || (o.agent !== null && !str(o.agent))) return "its names are unreadable";
  if (!Number.isSafeInteger(o.step) || (o.step as number) < 0) return "its step is unreadable";
  if (!isObject(o.args)) return "its arguments are unreadable";
  if (!isObject(o.origins) || !Object.values(o.origins).every((v) => isObject(v) && str(v.origin) && Array.isArray(v.labels) && v.labels.every(str) && (v.tool === undefined || str(v.tool)))) return "its origins are unreadable";
  if (!Array.isArray(o.reasons) || !o.reasons.every(str)) return "its reasons are unreadable";
  const counter = (c: unknown) => isObject(c) && str(c.counter) && str(c.per) && num(c.adds) && num(c.ceiling) && (c.before === null || num(c.before)) && (c.after === null || num(c.after));
  if (!Array.isArray(o.counters) || !o.counters.every(counter)) return "its counters are unreadable";
  if (!isTime(o.created) || !isTime(o.expires)) return "its times are unreadable";
  return null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A record with what became of it. */
export interface Approval {
  record: PendingRecord;
  /** the person's decision, once made */
  receipt: SignedReceipt | null;
  /** the approved call spent the token */
  used: boolean;
  /**
   * The session that asked ended with its process before the call ran (a gateway that stopped:
   * its session lives in its memory only), so nothing can spend the token any more. Set by
   * stores that keep it (the home's); absent otherwise.
   */
  withdrawn?: true;
}

export type DecideAnswer = { ok: true; approval: Approval } | { ok: false; why: "unknown" | "decided" | "withdrawn" | "expired" | "mismatch"; approval?: Approval };

/** One interface, three homes: memory (memory.ts), files under the home (cli/approvals/), a Durable Object per tenant. */
export interface ApprovalStore {
  add(record: PendingRecord): Promise<void> | void;
  get(id: string): Promise<Approval | undefined> | Approval | undefined;
  /** newest first */
  list(): Promise<Approval[]> | Approval[];
  /** store the receipt if (and only if) nothing was decided yet and the record is unexpired at `now` */
  decide(id: string, receipt: SignedReceipt, now: number): Promise<DecideAnswer> | DecideAnswer;
  /**
   * The token was spent: by the approved call, or presented by the host itself before anyone
   * decided (its own person said yes), so the page never asks about a call that ran. True the
   * first time only; false for a denied, edited or withdrawn record.
   */
  markUsed(id: string): Promise<boolean> | boolean;
  /**
   * The asking session ended for good (its process stopped, and it cannot be resumed): an
   * undecided or approved, unused record is closed as `withdrawn`, so no person is asked to
   * decide a call that can no longer run. True the first time only; false for a record already
   * used, denied or edited.
   */
  withdraw?(id: string): Promise<boolean> | boolean;
  /**
   * The newest standing approval ("always for this session") of exactly this call — what
   * `standingFor` finds in `list()` — read from an index, so a confirm costs the same whatever
   * the store holds. A store without it is searched through `list()` (`standingIn`).
   */
  standing?(session: string, tool: string, agent: string | null, digest: string): Promise<Approval | undefined> | Approval | undefined;
  /**
   * Every record that reads, and each that does not with why (the page, `stalwart approvals
   * list`): one damaged file must not hide what else waits. Only a store whose records can be
   * damaged one by one (files) has it; `surveyOf` falls back on `list()`.
   */
  survey?(): Promise<ApprovalSurvey> | ApprovalSurvey;
  /**
   * `get` for a person to look at: also unreadable when what the files say is not the decision
   * (a denial kept in the home's store whose receipt is gone reads as undecided on disk).
   */
  shown?(id: string): Promise<Approval | undefined> | Approval | undefined;
  /**
   * A word that stays the same while nothing in the store changes, and undefined when the store
   * cannot tell: a reader that has `list()`'s answer for a version need not read it again (the
   * approvals page, twice a second). Only a store whose list costs a read per record has it.
   */
  version?(): string | undefined;
}

/** A record the store holds but cannot read: its id, and why (the error's message and hint). */
export interface UnreadableRecord {
  id: string;
  why: string;
  hint?: string;
}

export interface ApprovalSurvey {
  /** newest first */
  approvals: Approval[];
  unreadable: UnreadableRecord[];
}

/** `store.survey()`, or `list()` with nothing unreadable for a store without it (its list reads or fails whole). */
export async function surveyOf(store: ApprovalStore): Promise<ApprovalSurvey> {
  return store.survey ? await store.survey() : { approvals: await store.list(), unreadable: [] };
}

export const APPROVAL_ID = /^p_[0-9a-f]{16}$/;

export function approvalStatus(a: Approval, now: number): ApprovalStatus {
  if (a.used) return "used";
  const r = a.receipt;
  if (r?.decision === "deny") return "denied";
  if (r?.decision === "edit") return "edited";
  if (a.withdrawn) return "withdrawn";
  if (now >= a.record.expires) return "expired";
  return r?.decision === "approve" ? "approved" : "pending";
}

/** Why this receipt may not decide this approval now, or null (the check every store runs). */
export function decideProblem(a: Approval | undefined, receipt: SignedReceipt, now: number): Exclude<DecideAnswer, { ok: true }>["why"] | null {
  if (!a) return "unknown";
  if (a.receipt || a.used) return "decided";
  if (a.withdrawn) return "withdrawn";
  if (now >= a.record.expires) return "expired";
  const r = a.record;
  if (receipt.id !== r.id || receipt.session !== r.session || receipt.ask !== r.step || receipt.tool !== r.tool || receipt.agent !== r.agent || receipt.args !== r.digest) return "mismatch";
  return null;
}

/**
 * Whether `later` is asked for the same reasons as `approved` was, each argument from the same
 * place with the same labels. A person's approval, given or standing, covers a later ask of the
 * call only then: the same arguments copied since out of an untrusted read are held
 * `tainted_call`, and an approval of them as the model's own must not let them through unasked
 * (outside audit 10, F5).
 */
export function sameHolds(approved: Pick<PendingRecord, "reasons" | "origins">, later: Pick<PendingRecord, "reasons" | "origins">): boolean {
  try {
    return canonicalize(approved.reasons) === canonicalize(later.reasons) && canonicalize(approved.origins) === canonicalize(later.origins);
  } catch {
    return false;
  }
}

/**
 * The approved, unexpired, unspent approval of exactly this call in this session, if any; with
 * `ask`, only one whose holds were the same (`sameHolds`).
 */
export function approvedFor(all: readonly Approval[], session: string, tool: string, digest: string, now: number, ask?: Pick<PendingRecord, "reasons" | "origins">): Approval | undefined {
  return all.find((a) => a.record.session === session && a.record.tool === tool && a.record.digest === digest && approvalStatus(a, now) === "approved" && (!ask || sameHolds(a.record, ask)));
}

/**
 * "Always for this session": a standing approval covers later asks of the same tool with the
 * same argument digest in the same session — never the whole tool, never another session.
 */
export function standingFor(all: readonly Approval[], session: string, tool: string, agent: string | null, digest: string): Approval | undefined {
  return all.find((a) => a.receipt?.decision === "approve" && a.receipt.always && !a.withdrawn && a.record.session === session && a.record.tool === tool && a.record.agent === agent && a.record.digest === digest);
}

/** The standing approval that covers `record`: of its call (`standingIn`), and asked for the same holds (`sameHolds`). */
export async function standingOf(store: ApprovalStore, record: PendingRecord): Promise<Approval | undefined> {
  const s = await standingIn(store, record.session, record.tool, record.agent, record.digest);
  return s && sameHolds(s.record, record) ? s : undefined;
}

/** What a standing approval is indexed under: the session, tool, agent and argument digest it covers. */
export function standingKey(session: string, tool: string, agent: string | null, digest: string): string {
  return JSON.stringify([session, tool, agent, digest]);
}

/** The key `a` stands under, or null when it is not a standing approval. */
export function standingKeyOf(a: Approval): string | null {
  return a.receipt?.decision === "approve" && a.receipt.always ? standingKey(a.record.session, a.record.tool, a.record.agent, a.record.digest) : null;
}

/** The standing approval of this call in `store`: its index when it has one, else `list()` searched. */
export async function standingIn(store: ApprovalStore, session: string, tool: string, agent: string | null, digest: string): Promise<Approval | undefined> {
  if (store.standing) return await store.standing(session, tool, agent, digest);
  return standingFor(await store.list(), session, tool, agent, digest);
}

export function newestFirst(a: Approval, b: Approval): number {
  return b.record.created - a.record.created || (a.record.id < b.record.id ? 1 : a.record.id > b.record.id ? -1 : 0);
}
