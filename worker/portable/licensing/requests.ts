/**
 * Installation-signed requests (refresh, release, bundles, usage reports): the installation signs
 * method, path, licence, installation, date, nonce and the body's SHA-256 with its own key (created
 * at activation; the secret never leaves the machine). The service refuses a bad signature, a date
 * outside the skew window and a nonce it has already seen (replay).
 */
import { fromBase64Url, randomBytes, sha256Hex, toBase64Url, utf8 } from "../engine/index.js";
import { signBytes, verifyBytes } from "./signed.js";

export const HEADER = {
  licence: "stalwart-licence",
  installation: "stalwart-installation",
  date: "stalwart-date",
  nonce: "stalwart-nonce",
  signature: "stalwart-signature",
} as const;

/** How far a request's date may be from the service's clock, either way. */
const MAX_SKEW_MS = 5 * 60_000;

export interface RequestParts {
  method: string;
  /** Path and query, e.g. `/v1/bundles/vocabulary`. */
  path: string;
  licenceId: string;
  installationId: string;
  date: string;
  nonce: string;
  bodySha256: string;
}

function requestSigningInput(p: RequestParts): Uint8Array {
  return utf8(["stalwart/installation-request/v1", p.method.toUpperCase(), p.path, p.licenceId, p.installationId, p.date, p.nonce, p.bodySha256].join("\n"));
}

export async function signRequest(opts: {
  method: string;
  path: string;
  body: string;
  licenceId: string;
  installationId: string;
  secretKey: Uint8Array;
  now: Date;
  nonce?: string;
}): Promise<Record<string, string>> {
  const parts: RequestParts = {
    method: opts.method,
    path: opts.path,
    licenceId: opts.licenceId,
    installationId: opts.installationId,
    date: opts.now.toISOString(),
    nonce: opts.nonce ?? toBase64Url(randomBytes(16)),
    bodySha256: sha256Hex(opts.body),
  };
  const sig = await signBytes(requestSigningInput(parts), opts.secretKey);
  return {
    [HEADER.licence]: parts.licenceId,
    [HEADER.installation]: parts.installationId,
    [HEADER.date]: parts.date,
    [HEADER.nonce]: parts.nonce,
    [HEADER.signature]: toBase64Url(sig),
  };
}

export type RequestFailure = "bad_signature" | "stale_date" | "malformed";

/** Signature and date only; the nonce's freshness is the caller's (it needs storage). */
export async function verifyRequest(
  parts: RequestParts,
  signature: string,
  publicKey: string,
  now: Date,
): Promise<{ ok: true } | { ok: false; reason: RequestFailure; detail: string }> {
  const sig = fromBase64Url(signature);
  const pub = fromBase64Url(publicKey);
  if (!sig || sig.length !== 64 || !pub || pub.length !== 32) return { ok: false, reason: "malformed", detail: "signature must be 64 bytes of base64url" };
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(parts.nonce)) return { ok: false, reason: "malformed", detail: "nonce must be 16 to 64 base64url characters" };
  const date = Date.parse(parts.date);
  if (Number.isNaN(date)) return { ok: false, reason: "malformed", detail: "`stalwart-date` must be an ISO date" };
  if (Math.abs(date - now.getTime()) > MAX_SKEW_MS) {
    return { ok: false, reason: "stale_date", detail: `request dated ${parts.date} is more than ${MAX_SKEW_MS / 60_000} minutes from the service's clock` };
  }
  if (!(await verifyBytes(sig, requestSigningInput(parts), pub))) {
    return { ok: false, reason: "bad_signature", detail: "the installation signature does not verify" };
  }
  return { ok: true };
}
