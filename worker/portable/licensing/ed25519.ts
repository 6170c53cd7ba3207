/**
 * Ed25519 (RFC 8032) on the runtime's own Web Crypto: Node (OpenSSL) and workerd (BoringSSL) both
 * implement it natively. A pure-JavaScript verifier first builds its base-point table (40–110 ms
 * of CPU, once per process or isolate: in every process that opens a licence, before an SDK
 * client's first check, in a worker's first request after a cold start) and then takes ~1 ms a
 * verification; the native one takes ~0.2 ms, with no table. Signatures are deterministic, so the bytes are the same as any
 * other RFC 8032 signer's (test/licence-vectors holds them).
 *
 * A verification never throws: bad lengths, a key that is not a point, a signature whose S is not
 * reduced — all are `false`. What it accepts is RFC 8032's rule as those libraries apply it
 * (canonical S; R compared by its encoding), never more than a ZIP-215 verifier accepts.
 */
import { BoundedCache, fromBase64Url, toBase64Url } from "../engine/index.js";

const ALG = { name: "Ed25519" } as const;
/** The fixed DER header of a PKCS #8 Ed25519 private key (RFC 8410); the 32-byte seed follows it. */
const PKCS8_HEAD = Uint8Array.of(0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20);

function subtle(): SubtleCrypto {
  if (typeof crypto === "undefined" || !crypto.subtle) throw new TypeError("this runtime has no Web Crypto (`crypto.subtle`): Ed25519 needs it (Node 20+, workerd)");
  return crypto.subtle;
}

function seedKey(secretKey: Uint8Array, extractable: boolean, usages: ("sign" | "verify")[]): Promise<CryptoKey> {
  if (!(secretKey instanceof Uint8Array) || secretKey.length !== 32) throw new TypeError("an Ed25519 secret key is 32 bytes");
  const der = new Uint8Array(PKCS8_HEAD.length + 32);
  der.set(PKCS8_HEAD);
  der.set(secretKey, PKCS8_HEAD.length);
  return subtle().importKey("pkcs8", der, ALG, extractable, usages);
}

/** Whether `sig` is `publicKey`'s signature of `message`. */
export async function verifyEd25519(sig: Uint8Array, message: Uint8Array, publicKey: Uint8Array): Promise<boolean> {
  if (sig.length !== 64 || publicKey.length !== 32) return false;
  try {
    const key = await subtle().importKey("raw", publicKey as BufferSource, ALG, false, ["verify"]);
    return await subtle().verify(ALG, key, sig as BufferSource, message as BufferSource);
  } catch {
    return false; // a key the runtime will not take as a point verifies nothing
  }
}

/**
 * Signing keys imported, by secret: a PKCS #8 import costs ~450 µs in Node (OpenSSL's decoder),
 * the signature itself ~100 µs, and a service signs with the same few keys all day. Bounded: a
 * process signing under many keys (tests) drops the oldest.
 */
const signing = new BoundedCache<string, Promise<CryptoKey>>(16);

function signingKey(secretKey: Uint8Array): Promise<CryptoKey> {
  const id = toBase64Url(secretKey);
  let key = signing.get(id);
  if (!key) {
    key = seedKey(secretKey, false, ["sign"]);
    key.catch(() => signing.delete(id));
    signing.set(id, key);
  }
  return key;
}

/** The signature of `message` under the 32-byte secret key (the seed of RFC 8032). */
export async function signEd25519(message: Uint8Array, secretKey: Uint8Array): Promise<Uint8Array> {
  if (!(secretKey instanceof Uint8Array) || secretKey.length !== 32) throw new TypeError("an Ed25519 secret key is 32 bytes");
  return new Uint8Array(await subtle().sign(ALG, await signingKey(secretKey), message as BufferSource));
}

/** The 32-byte public key of a secret key. */
export async function ed25519PublicKey(secretKey: Uint8Array): Promise<Uint8Array> {
  const jwk = await subtle().exportKey("jwk", await seedKey(secretKey, true, ["sign"]));
  const x = !(jwk instanceof ArrayBuffer) && typeof jwk.x === "string" ? fromBase64Url(jwk.x) : null;
  if (!x || x.length !== 32) throw new TypeError("the runtime's Web Crypto exported no Ed25519 public key");
  return x;
}

/** A new secret key: 32 random bytes. */
export function ed25519SecretKey(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(32));
}
