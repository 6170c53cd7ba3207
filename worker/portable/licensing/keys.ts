/**
 * Ed25519 keys and key sets. A runtime build trusts only the public keys compiled into it
 * (trusted-keys.ts) and accepts any key of that set, so the service can rotate keys with overlap.
 */
import { fromBase64Url, sha256, toBase64Url, utf8 } from "../engine/index.js";
import { ed25519PublicKey, ed25519SecretKey } from "./ed25519.js";

/** One public key a runtime trusts (or the service publishes at `GET /v1/licences/keys`). */
export interface PublicKeyEntry {
  kid: string;
  alg: "Ed25519";
  /** 32-byte Ed25519 public key, base64url. */
  public_key: string;
  /** A key anyone can sign with (derived from a published seed): for local use and tests only. */
  dev?: boolean;
}

export interface KeySet {
  keys: readonly PublicKeyEntry[];
}

/** A signing key as the service holds it (Workers secret `LICENCE_SIGNING_KEYS`). */
export interface SigningKey {
  kid: string;
  /** 32-byte Ed25519 secret key, base64url. */
  secret: string;
}

export interface KeyPair {
  secretKey: Uint8Array;
  publicKey: Uint8Array;
}

export async function generateKeyPair(): Promise<KeyPair> {
  const secretKey = ed25519SecretKey();
  return { secretKey, publicKey: await ed25519PublicKey(secretKey) };
}

export function publicKeyOf(secretKey: Uint8Array): Promise<Uint8Array> {
  return ed25519PublicKey(secretKey);
}

/**
 * The dev/test signing key for `kid`: SHA-256 of a published phrase. Anyone can recompute it, which
 * is the point (a fresh checkout signs leases its own build trusts, with no account); a production
 * build never trusts a `dev` key (see README.md: replacing trusted-keys.ts).
 */
async function devSecretKey(kid: string): Promise<Uint8Array> {
  return sha256(utf8(`stalwart-agents dev licence signing key ${kid}`));
}

export async function devSigningKey(kid: string): Promise<SigningKey> {
  return { kid, secret: toBase64Url(await devSecretKey(kid)) };
}

export async function publicEntry(key: SigningKey, dev = false): Promise<PublicKeyEntry> {
  const secret = fromBase64Url(key.secret);
  if (!secret || secret.length !== 32) throw new TypeError(`signing key \`${key.kid}\` is not 32 bytes of base64url`);
  const entry: PublicKeyEntry = { kid: key.kid, alg: "Ed25519", public_key: toBase64Url(await publicKeyOf(secret)) };
  if (dev) entry.dev = true;
  return entry;
}

/** Parse the `LICENCE_SIGNING_KEYS` secret: a JSON array of `{kid, secret}`, the first signs. */
export function parseSigningKeys(text: string | undefined): SigningKey[] {
  if (!text) return [];
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) throw new TypeError("LICENCE_SIGNING_KEYS must be a JSON array of {kid, secret}");
  return parsed.map((k, i) => {
    if (!k || typeof k.kid !== "string" || typeof k.secret !== "string") {
      throw new TypeError(`LICENCE_SIGNING_KEYS[${i}] must be {kid, secret}`);
    }
    return { kid: k.kid, secret: k.secret };
  });
}

export function findKey(set: KeySet, kid: string): PublicKeyEntry | undefined {
  return set.keys.find((k) => k.kid === kid);
}

export function isDevKeySet(set: KeySet): boolean {
  return set.keys.some((k) => k.dev === true);
}
