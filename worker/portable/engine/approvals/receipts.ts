/**
 * Receipts (issue 12): every decision on a pending confirmation — who, when, approve / deny /
 * edit, the message, the digest of the exact call — signed with an HMAC under the installation
 * (or tenant) key, with its own domain prefix so a receipt can never pass for a token or a history
 * link. Pure: the MAC function is passed in (the engine's `macText`), the time too.
 */
import { canonicalize } from "../canonical/jcs.js";
import { equalBytes, fromHex, toHex } from "../canonical/bytes.js";
import { sha256Hex } from "../canonical/sha256.js";

/** The part of a pending record a receipt binds (record.ts; kept structural, so neither file imports the other). */
export interface DecidedCall {
  id: string;
  session: string;
  step: number;
  tool: string;
  agent: string | null;
  digest: string;
}

const DOMAIN = "stalwart-receipt-v1.";

export type ReceiptDecision = "approve" | "deny" | "edit";

export interface Receipt {
  v: 1;
  /** the pending confirmation decided */
  id: string;
  session: string;
  /** the ask entry's step */
  ask: number;
  tool: string;
  agent: string | null;
  /** hex SHA-256 of the canonical arguments shown */
  args: string;
  /** hex SHA-256 of the exact call: session, ask, tool, agent and argument digest */
  call: string;
  decision: ReceiptDecision;
  /** a name the page or CLI was given, or the API key's tenant/user */
  by: string;
  /** ms since the epoch */
  at: number;
  message: string | null;
  /** an edit: the arguments the person wrote instead (checked again as a new call) */
  edited: Record<string, unknown> | null;
  /** "always for this session": the same tool with the same argument digest in this session */
  always: boolean;
}

export interface SignedReceipt extends Receipt {
  /** hex HMAC-SHA256 of the domain prefix and the receipt's canonical JSON (without `mac`) */
  mac: string;
}

export type Mac = (text: string) => Uint8Array;

export function callDigest(r: Omit<DecidedCall, "id">): string {
  return sha256Hex(canonicalize({ agent: r.agent, args: r.digest, ask: r.step, session: r.session, tool: r.tool }));
}

export interface DecisionInput {
  decision: ReceiptDecision;
  by: string;
  at: number;
  message?: string | undefined;
  edited?: Record<string, unknown> | undefined;
  always?: boolean | undefined;
}

export function makeReceipt(record: DecidedCall, d: DecisionInput): Receipt {
  return {
    v: 1, id: record.id, session: record.session, ask: record.step, tool: record.tool, agent: record.agent,
    args: record.digest, call: callDigest(record), decision: d.decision, by: d.by, at: d.at,
    message: d.message ?? null, edited: d.decision === "edit" ? (d.edited ?? null) : null,
    always: d.decision === "approve" && d.always === true,
  };
}

function unsigned(r: Receipt): Receipt {
  return {
    v: r.v, id: r.id, session: r.session, ask: r.ask, tool: r.tool, agent: r.agent, args: r.args, call: r.call,
    decision: r.decision, by: r.by, at: r.at, message: r.message, edited: r.edited, always: r.always,
  };
}

export function signReceipt(mac: Mac, r: Receipt): SignedReceipt {
  const body = unsigned(r);
  return { ...body, mac: toHex(mac(DOMAIN + canonicalize(body))) };
}

/**
 * Why a receipt does not verify, or null: its shape, its MAC, and that its `call` digest is the
 * one its own fields name (so an edited session, tool or argument digest fails twice over).
 */
export function receiptProblem(mac: Mac, x: unknown): string | null {
  const shape = receiptShapeError(x);
  if (shape) return shape;
  const r = x as SignedReceipt;
  const got = fromHex(r.mac);
  let body: string;
  try {
    body = canonicalize(unsigned(r));
  } catch {
    return "the receipt is not JSON data";
  }
  if (!got || !equalBytes(got, mac(DOMAIN + body))) return "the receipt's MAC does not verify (edited, or signed under another key)";
  if (r.call !== callDigest({ session: r.session, step: r.ask, tool: r.tool, agent: r.agent, digest: r.args })) return "the receipt's call digest is not the call it names";
  return null;
}

export function verifyReceipt(mac: Mac, x: unknown): x is SignedReceipt {
  return receiptProblem(mac, x) === null;
}

/** hex SHA-256 of the signed receipt's canonical JSON: what the session history records. */
export function receiptDigest(r: SignedReceipt): string {
  return sha256Hex(canonicalize(r));
}

const KEYS = ["agent", "always", "args", "ask", "at", "by", "call", "decision", "edited", "id", "mac", "message", "session", "tool", "v"];
const HEX64 = /^[0-9a-f]{64}$/;

/** ms since the epoch that a Date can hold (the page and the CLI print it) */
export function isTime(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v) && Math.abs(v) <= 8.64e15;
}

/** Why `x` is not a signed receipt's shape (its MAC unchecked), or null. */
export function receiptShapeError(x: unknown): string | null {
  if (typeof x !== "object" || x === null || Array.isArray(x)) return "a receipt is not an object";
  const o = x as Record<string, unknown>;
  const own = Object.keys(o).sort();
  if (own.length !== KEYS.length || own.some((k, i) => k !== KEYS[i])) return `a receipt has fields ${own.join(",")}, expected ${KEYS.join(",")}`;
  if (o.v !== 1) return "a receipt is not version 1";
  if (typeof o.id !== "string" || typeof o.session !== "string" || typeof o.tool !== "string" || typeof o.by !== "string") return "a receipt's names are unreadable";
  if (o.agent !== null && typeof o.agent !== "string") return "a receipt's agent is unreadable";
  if (!Number.isSafeInteger(o.ask) || (o.ask as number) < 0 || !isTime(o.at)) return "a receipt's step or time is unreadable";
  if (typeof o.args !== "string" || !HEX64.test(o.args) || typeof o.call !== "string" || !HEX64.test(o.call) || typeof o.mac !== "string" || !HEX64.test(o.mac)) return "a receipt's digests are unreadable";
  if (o.decision !== "approve" && o.decision !== "deny" && o.decision !== "edit") return "a receipt's decision is unreadable";
  if (o.message !== null && typeof o.message !== "string") return "a receipt's message is unreadable";
  if (typeof o.always !== "boolean") return "a receipt's `always` is unreadable";
  if (o.edited !== null && (typeof o.edited !== "object" || Array.isArray(o.edited))) return "a receipt's edited arguments are unreadable";
  if ((o.decision === "edit") !== (o.edited !== null)) return "only an edit carries edited arguments";
  return null;
}
