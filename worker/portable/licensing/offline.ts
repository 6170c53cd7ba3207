/**
 * Offline activation files (licensing.md, "Offline activation"): the offline machine writes an
 * activation request signed with its new installation key (proving it holds the key the lease will
 * be bound to); a connected machine posts it to `POST /v1/licences/offline` and writes the answer
 * (licence + a lease for the whole licence term + bundle key); the first machine installs it.
 */
import { canonicalize, fromBase64Url, toBase64Url, utf8 } from "../engine/index.js";
import { isIsoDate } from "./documents.js";
import type { SignedDocument } from "./signed.js";
import { signBytes, verifyBytes } from "./signed.js";
import type { LeasePayload, LicencePayload } from "./documents.js";

export interface OfflineRequest {
  v: 1;
  type: "activation_request";
  installation_id: string;
  public_key: string;
  created_at: string;
  /** Ed25519 by the installation key over the canonical JSON of the other fields. */
  signature: string;
}

export interface OfflineAnswer {
  v: 1;
  type: "activation_answer";
  installation_id: string;
  licence: SignedDocument<LicencePayload>;
  lease: SignedDocument<LeasePayload>;
  bundle_key: string;
  bundle_digests: Record<string, string>;
}

function input(r: Omit<OfflineRequest, "signature">): Uint8Array {
  return utf8("stalwart/activation-request/v1\n" + canonicalize({ v: r.v, type: r.type, installation_id: r.installation_id, public_key: r.public_key, created_at: r.created_at }));
}

export async function signOfflineRequest(r: Omit<OfflineRequest, "signature" | "v" | "type">, secretKey: Uint8Array): Promise<OfflineRequest> {
  const unsigned = { v: 1 as const, type: "activation_request" as const, ...r };
  return { ...unsigned, signature: toBase64Url(await signBytes(input(unsigned), secretKey)) };
}

export async function verifyOfflineRequest(x: unknown): Promise<{ ok: true; request: OfflineRequest } | { ok: false; code: "malformed_request" | "bad_signature"; message: string; pointer: string }> {
  const bad = (pointer: string, message: string) => ({ ok: false as const, code: "malformed_request" as const, message, pointer });
  if (!x || typeof x !== "object" || Array.isArray(x)) return bad("/request", "expected the contents of activation-request.json");
  const r = x as Record<string, unknown>;
  if (r.v !== 1 || r.type !== "activation_request") return bad("/request/type", "expected `type: \"activation_request\"`, `v: 1`");
  if (typeof r.installation_id !== "string" || !/^inst_[A-Za-z0-9_-]{16,64}$/.test(r.installation_id)) return bad("/request/installation_id", "`installation_id` must be `inst_…`");
  const pub = typeof r.public_key === "string" ? fromBase64Url(r.public_key) : null;
  if (typeof r.public_key !== "string" || !pub || pub.length !== 32) return bad("/request/public_key", "`public_key` must be 32 bytes of base64url");
  if (!isIsoDate(r.created_at)) return bad("/request/created_at", "`created_at` must be an ISO date");
  const sig = typeof r.signature === "string" ? fromBase64Url(r.signature) : null;
  if (typeof r.signature !== "string" || !sig || sig.length !== 64) return bad("/request/signature", "`signature` must be 64 bytes of base64url");
  // The request as read, field by field (anything else it carries is not signed, so not kept).
  const req: OfflineRequest = { v: 1, type: "activation_request", installation_id: r.installation_id, public_key: r.public_key, created_at: r.created_at, signature: r.signature };
  if (!(await verifyBytes(sig, input(req), pub))) return { ok: false, code: "bad_signature", message: "the activation request is not signed by its installation key", pointer: "/request/signature" };
  return { ok: true, request: req };
}
