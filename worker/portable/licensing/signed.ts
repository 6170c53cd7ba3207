/**
 * Signed documents: `{v, alg, kid, payload, sig}` where `sig` is Ed25519 over a domain-separated
 * canonical JSON of everything but `sig` (so the key id is covered too). One verifier, plain data
 * in, a tagged result out; no clock here.
 */
import { canonicalize, fromBase64Url, toBase64Url, utf8 } from "../engine/index.js";
import { signEd25519, verifyEd25519 } from "./ed25519.js";
import { findKey, type KeySet, type SigningKey } from "./keys.js";

export interface SignedDocument<P = unknown> {
  v: 1;
  alg: "Ed25519";
  kid: string;
  payload: P;
  /** 64-byte Ed25519 signature, base64url. */
  sig: string;
}

export type SignatureFailure = "malformed" | "unknown_key" | "bad_signature";
export type Verified<P> = { ok: true; payload: P; kid: string } | { ok: false; reason: SignatureFailure; detail: string };

const DOMAIN = "stalwart/signed-document/v1\n";

/** The exact bytes a signature covers: published in test/licence-vectors so others can check ours. */
export function signingInput(doc: { v: 1; alg: "Ed25519"; kid: string; payload: unknown }): Uint8Array {
  return utf8(DOMAIN + canonicalize({ v: doc.v, alg: doc.alg, kid: doc.kid, payload: doc.payload }));
}

export async function signDocument<P>(payload: P, key: SigningKey): Promise<SignedDocument<P>> {
  const secret = fromBase64Url(key.secret);
  if (!secret || secret.length !== 32) throw new TypeError(`signing key \`${key.kid}\` is not 32 bytes of base64url`);
  const unsigned = { v: 1 as const, alg: "Ed25519" as const, kid: key.kid, payload };
  const sig = await signEd25519(signingInput(unsigned), secret);
  return { ...unsigned, sig: toBase64Url(sig) };
}

/** Verify against a key set: any key of the set may have signed (rotation with overlap). */
export async function verifyDocument<P = unknown>(doc: unknown, keys: KeySet): Promise<Verified<P>> {
  if (!doc || typeof doc !== "object") return { ok: false, reason: "malformed", detail: "not an object" };
  const d = doc as Record<string, unknown>;
  if (d.v !== 1 || d.alg !== "Ed25519" || typeof d.kid !== "string" || typeof d.sig !== "string" || !("payload" in d)) {
    return { ok: false, reason: "malformed", detail: "expected {v: 1, alg: \"Ed25519\", kid, payload, sig}" };
  }
  const entry = findKey(keys, d.kid);
  if (!entry) return { ok: false, reason: "unknown_key", detail: `key \`${d.kid}\` is not in the trusted key set` };
  const sig = fromBase64Url(d.sig);
  const pub = fromBase64Url(entry.public_key);
  if (!sig || sig.length !== 64 || !pub || pub.length !== 32) return { ok: false, reason: "malformed", detail: "signature or key has the wrong length" };
  let input: Uint8Array;
  try {
    input = signingInput({ v: 1, alg: "Ed25519", kid: d.kid, payload: d.payload });
  } catch (err) {
    return { ok: false, reason: "malformed", detail: (err as Error).message };
  }
  if (!(await verifyEd25519(sig, input, pub))) return { ok: false, reason: "bad_signature", detail: `signature does not verify under key \`${d.kid}\`` };
  return { ok: true, payload: d.payload as P, kid: d.kid };
}

/** Verify raw bytes with one raw public key (installation-signed requests). */
export function verifyBytes(sig: Uint8Array, message: Uint8Array, publicKey: Uint8Array): Promise<boolean> {
  return verifyEd25519(sig, message, publicKey);
}

export function signBytes(message: Uint8Array, secretKey: Uint8Array): Promise<Uint8Array> {
  return signEd25519(message, secretKey);
}
