/**
 * The payloads of the signed documents (all `v: 1`, tagged by `type`) and their shape checks.
 * A shape check takes plain data and answers which field is wrong, as a JSON pointer.
 */
import type { PlanLimits, PlanName } from "./plans.js";

export type OnLapse = "reads_only" | "refuse";

/** The organisation's licence: who, which plan, until when, and what a lapse does. */
export interface LicencePayload {
  v: 1;
  type: "licence";
  licence_id: string;
  org_id: string;
  plan: PlanName;
  limits: PlanLimits;
  meters: Record<string, number>;
  on_licence_lapse: OnLapse;
  issued_at: string;
  starts_at: string;
  expires_at: string;
}

/** Permission to run on one installation until `expires_at`, then within the grace. */
export interface LeasePayload {
  v: 1;
  type: "lease";
  licence_id: string;
  installation_id: string;
  /** The installation's Ed25519 public key (base64url): the lease is bound to it. */
  installation_key: string;
  /** One activation of the installation; a lease from an earlier activation is refused. */
  activation_id: string;
  /** Increases with every lease issued to the installation: an older lease is a replay. */
  seq: number;
  issued_at: string;
  expires_at: string;
  grace_ends: string;
  offline: boolean;
  /** The bundle digests adopted with this lease, by kind. */
  bundles: Record<string, string>;
}

export interface BundleEnvelope {
  v: 1;
  type: "bundle";
  kind: string;
  licence_id: string;
  /** `sha256:<hex>` of the plaintext content: the name every decision made with it records. */
  digest: string;
  iv: string;
  ciphertext: string;
  created_at: string;
}

export type ShapeResult = { ok: true } | { ok: false; pointer: string; message: string };

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

export function isIsoDate(x: unknown): x is string {
  return typeof x === "string" && ISO.test(x) && !Number.isNaN(Date.parse(x));
}

type Check = [field: string, test: (x: unknown) => boolean, what: string];
const str = (x: unknown) => typeof x === "string" && x.length > 0 && x.length <= 200;
const int = (x: unknown) => Number.isSafeInteger(x) && (x as number) >= 0;
const numMap = (x: unknown) =>
  !!x && typeof x === "object" && !Array.isArray(x) && Object.values(x).every((v) => typeof v === "number" && Number.isFinite(v) && v >= 0);
const strMap = (x: unknown) => !!x && typeof x === "object" && !Array.isArray(x) && Object.values(x).every((v) => typeof v === "string");

function checkShape(x: unknown, checks: Check[]): ShapeResult {
  if (!x || typeof x !== "object" || Array.isArray(x)) return { ok: false, pointer: "", message: "expected an object" };
  const o = x as Record<string, unknown>;
  for (const [field, test, what] of checks) {
    if (!test(o[field])) return { ok: false, pointer: `/${field}`, message: `\`${field}\` must be ${what}` };
  }
  return { ok: true };
}

export function checkLicence(x: unknown): ShapeResult {
  return checkShape(x, [
    ["v", (v) => v === 1, "1"],
    ["type", (v) => v === "licence", "\"licence\""],
    ["licence_id", str, "a string"],
    ["org_id", str, "a string"],
    ["plan", (v) => v === "free" || v === "paid" || v === "enterprise", "free, paid or enterprise"],
    ["limits", (v) => !!v && typeof v === "object" && int((v as PlanLimits).installations) && int((v as PlanLimits).lease_days) && int((v as PlanLimits).offline_grace_days) && typeof (v as PlanLimits).offline_activation === "boolean", "the plan limits"],
    ["meters", numMap, "a map of meter limits"],
    ["on_licence_lapse", (v) => v === "reads_only" || v === "refuse", "reads_only or refuse"],
    ["issued_at", isIsoDate, "an ISO date"],
    ["starts_at", isIsoDate, "an ISO date"],
    ["expires_at", isIsoDate, "an ISO date"],
  ]);
}

export function checkLease(x: unknown): ShapeResult {
  return checkShape(x, [
    ["v", (v) => v === 1, "1"],
    ["type", (v) => v === "lease", "\"lease\""],
    ["licence_id", str, "a string"],
    ["installation_id", str, "a string"],
    ["installation_key", str, "a base64url public key"],
    ["activation_id", str, "a string"],
    ["seq", int, "a non-negative integer"],
    ["issued_at", isIsoDate, "an ISO date"],
    ["expires_at", isIsoDate, "an ISO date"],
    ["grace_ends", isIsoDate, "an ISO date"],
    ["offline", (v) => typeof v === "boolean", "a boolean"],
    ["bundles", strMap, "a map of bundle digests"],
  ]);
}

export function checkBundle(x: unknown): ShapeResult {
  return checkShape(x, [
    ["v", (v) => v === 1, "1"],
    ["type", (v) => v === "bundle", "\"bundle\""],
    ["kind", str, "a string"],
    ["licence_id", str, "a string"],
    ["digest", (v) => typeof v === "string" && /^sha256:[0-9a-f]{64}$/.test(v), "sha256:<64 hex>"],
    ["iv", str, "base64url"],
    ["ciphertext", (v) => typeof v === "string", "base64url"],
    ["created_at", isIsoDate, "an ISO date"],
  ]);
}
