/**
 * Bundles (licensing.md, "Service endpoints"): content encrypted to the licence's bundle key with
 * AES-256-GCM (Web Crypto), the envelope signed like a lease, and named by the SHA-256 digest of
 * the plaintext — the digest every decision made with the bundle records. The additional data
 * binds kind, licence and digest, so a ciphertext cannot be passed off as another bundle.
 */
import { canonicalize, fromBase64Url, randomBytes, sha256Hex, toBase64Url, utf8 } from "../engine/index.js";
import { checkBundle, type BundleEnvelope } from "./documents.js";
import type { KeySet, SigningKey } from "./keys.js";
import { signDocument, verifyDocument, type SignedDocument, type SignatureFailure } from "./signed.js";

export async function bundleDigest(content: Uint8Array): Promise<string> {
  return `sha256:${sha256Hex(content)}`;
}

function aad(kind: string, licenceId: string, digest: string): Uint8Array {
  return utf8(canonicalize({ kind, licence_id: licenceId, digest }));
}

async function importKey(raw: Uint8Array, usage: "encrypt" | "decrypt"): Promise<CryptoKey> {
  if (raw.length !== 32) throw new TypeError("a bundle key is 32 bytes");
  return crypto.subtle.importKey("raw", raw as BufferSource, { name: "AES-GCM" }, false, [usage]);
}

export function newBundleKey(): Uint8Array {
  return randomBytes(32);
}

export async function sealBundle(opts: {
  kind: string;
  content: Uint8Array | string;
  licenceId: string;
  bundleKey: Uint8Array;
  signer: SigningKey;
  now: Date;
}): Promise<SignedDocument<BundleEnvelope>> {
  const content = typeof opts.content === "string" ? utf8(opts.content) : opts.content;
  const digest = await bundleDigest(content);
  const iv = randomBytes(12);
  const key = await importKey(opts.bundleKey, "encrypt");
  const ct = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-GCM", iv: iv as BufferSource, additionalData: aad(opts.kind, opts.licenceId, digest) as BufferSource }, key, content as BufferSource),
  );
  const envelope: BundleEnvelope = {
    v: 1,
    type: "bundle",
    kind: opts.kind,
    licence_id: opts.licenceId,
    digest,
    iv: toBase64Url(iv),
    ciphertext: toBase64Url(ct),
    created_at: opts.now.toISOString(),
  };
  return signDocument(envelope, opts.signer);
}

export type BundleFailure = SignatureFailure | "wrong_type" | "wrong_licence" | "wrong_kind" | "undecryptable" | "digest_mismatch" | "unexpected_digest";

export async function openBundle(
  doc: unknown,
  opts: { keys: KeySet; bundleKey: Uint8Array; licenceId: string; kind?: string; expectedDigest?: string },
): Promise<{ ok: true; kind: string; digest: string; content: Uint8Array } | { ok: false; reason: BundleFailure; detail: string }> {
  const v = await verifyDocument<BundleEnvelope>(doc, opts.keys);
  if (!v.ok) return v;
  const env = v.payload;
  const shape = checkBundle(env);
  if (!shape.ok) return { ok: false, reason: "wrong_type", detail: `bundle${shape.pointer}: ${shape.message}` };
  if (env.licence_id !== opts.licenceId) return { ok: false, reason: "wrong_licence", detail: `bundle is for licence \`${env.licence_id}\`` };
  if (opts.kind !== undefined && env.kind !== opts.kind) return { ok: false, reason: "wrong_kind", detail: `bundle is \`${env.kind}\`, not \`${opts.kind}\`` };
  if (opts.expectedDigest !== undefined && env.digest !== opts.expectedDigest) {
    return { ok: false, reason: "unexpected_digest", detail: `bundle is \`${env.digest}\`, the lease names \`${opts.expectedDigest}\`` };
  }
  const iv = fromBase64Url(env.iv);
  const ct = fromBase64Url(env.ciphertext);
  if (!iv || iv.length !== 12 || !ct) return { ok: false, reason: "wrong_type", detail: "bundle iv or ciphertext is not base64url" };
  let content: Uint8Array;
  try {
    const key = await importKey(opts.bundleKey, "decrypt");
    content = new Uint8Array(
      await crypto.subtle.decrypt({ name: "AES-GCM", iv: iv as BufferSource, additionalData: aad(env.kind, env.licence_id, env.digest) as BufferSource }, key, ct as BufferSource),
    );
  } catch {
    return { ok: false, reason: "undecryptable", detail: "the bundle does not decrypt under this licence's bundle key" };
  }
  if ((await bundleDigest(content)) !== env.digest) return { ok: false, reason: "digest_mismatch", detail: "the content does not match its digest" };
  return { ok: true, kind: env.kind, digest: env.digest, content };
}

/**
 * `own_identifiers` in use: true when `text` contains one of the organisation's own identifiers, so
 * the caller sends nothing to the service (licensing.md, bundles; case-insensitive, whole text).
 */
export function containsOwnIdentifier(text: string, identifiers: readonly string[]): string | undefined {
  const hay = text.toLowerCase();
  return identifiers.find((id) => id.length > 0 && hay.includes(id.toLowerCase()));
}
