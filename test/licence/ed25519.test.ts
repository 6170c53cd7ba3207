// Ed25519 on the runtime's Web Crypto (worker/portable/licensing/ed25519.ts): RFC 8032's own
// vectors, the same bytes as an independent JavaScript implementation (@noble/ed25519, a dev
// dependency kept for this) on random keys and messages, and every malformed input a `false`.
import { randomBytes } from "node:crypto";
import * as noble from "@noble/ed25519";
import { describe, expect, test } from "vitest";
import { ed25519PublicKey, ed25519SecretKey, signEd25519, verifyEd25519 } from "../../worker/portable/licensing/ed25519.js";
import { generateKeyPair, publicKeyOf, signDocument, verifyDocument } from "../../worker/portable/licensing/index.js";
import { toBase64Url } from "../../worker/portable/engine/index.js";

const hex = (h: string) => Uint8Array.from(Buffer.from(h, "hex"));
const toHex = (b: Uint8Array) => Buffer.from(b).toString("hex");

// RFC 8032, section 7.1, TEST 1–3
const RFC = [
  {
    secret: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
    public: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
    message: "",
    sig: "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
  },
  {
    secret: "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
    public: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
    message: "72",
    sig: "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
  },
  {
    secret: "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
    public: "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
    message: "af82",
    sig: "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
  },
];

/** The group order L: a signature's S must be below it. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const le = (b: Uint8Array) => b.reduceRight((n, x) => (n << 8n) | BigInt(x), 0n);
const le32 = (n: bigint) => Uint8Array.from({ length: 32 }, (_, i) => Number((n >> BigInt(8 * i)) & 0xffn));

describe("Ed25519 on Web Crypto", () => {
  for (const [i, v] of RFC.entries()) {
    test(`RFC 8032 TEST ${i + 1}: the public key, the signature, and its verification`, async () => {
      expect(toHex(await ed25519PublicKey(hex(v.secret)))).toBe(v.public);
      expect(toHex(await signEd25519(hex(v.message), hex(v.secret)))).toBe(v.sig);
      expect(await verifyEd25519(hex(v.sig), hex(v.message), hex(v.public))).toBe(true);
      expect(await verifyEd25519(hex(v.sig), hex(v.message + "00"), hex(v.public))).toBe(false);
    });
  }

  test("the same bytes as an independent implementation, on random keys and messages; one bit changed anywhere is refused by both", async () => {
    for (let i = 0; i < 150; i++) {
      const secret = i % 2 ? ed25519SecretKey() : Uint8Array.from(randomBytes(32));
      const message = Uint8Array.from(randomBytes(i % 7 === 0 ? 0 : 1 + (i * 37) % 600));
      const pub = await ed25519PublicKey(secret);
      expect(toHex(pub)).toBe(toHex(await noble.getPublicKeyAsync(secret)));
      const sig = await signEd25519(message, secret);
      expect(toHex(sig)).toBe(toHex(await noble.signAsync(message, secret)));
      expect(await verifyEd25519(sig, message, pub)).toBe(true);
      expect(await noble.verifyAsync(sig, message, pub)).toBe(true);
      // one bit flipped in the signature, the message or the key
      const parts = [sig, pub, ...(message.length ? [message] : [])];
      const which = i % parts.length;
      const changed = parts.map((p) => Uint8Array.from(p));
      const bit = (i * 131) % (changed[which]!.length * 8);
      changed[which]![bit >> 3]! ^= 1 << (bit & 7);
      const [s2, p2, m2 = message] = changed;
      expect(await verifyEd25519(s2!, m2, p2!)).toBe(false);
      expect(await noble.verifyAsync(s2!, m2, p2!).catch(() => false)).toBe(false);
    }
  });

  test("a signature whose S is not reduced (S + L: the same equation) is refused", async () => {
    const v = RFC[1]!;
    const sig = hex(v.sig);
    const s = le(sig.subarray(32));
    expect(s < L).toBe(true);
    const malleated = Uint8Array.from([...sig.subarray(0, 32), ...le32(s + L)]);
    expect(await verifyEd25519(malleated, hex(v.message), hex(v.public))).toBe(false);
  });

  test("malformed input is a false, never a throw", async () => {
    const v = RFC[2]!;
    const [sig, msg, pub] = [hex(v.sig), hex(v.message), hex(v.public)];
    expect(await verifyEd25519(sig.subarray(0, 63), msg, pub)).toBe(false);
    expect(await verifyEd25519(new Uint8Array(65), msg, pub)).toBe(false);
    expect(await verifyEd25519(sig, msg, pub.subarray(0, 31))).toBe(false);
    expect(await verifyEd25519(new Uint8Array(64), msg, new Uint8Array(32))).toBe(false);
    // a y with no point on the curve: the runtime refuses the key, the verification says false
    let offCurve: Uint8Array | undefined;
    for (let y = 2; !offCurve; y++) {
      const bytes = le32(BigInt(y));
      try {
        noble.Point.fromBytes(bytes);
      } catch {
        offCurve = bytes;
      }
    }
    expect(await verifyEd25519(sig, msg, offCurve)).toBe(false);
  });

  test("signing keys kept between signatures: each signature is still its own key's, past the number kept", async () => {
    const secrets = Array.from({ length: 40 }, () => ed25519SecretKey());
    const message = Uint8Array.from(randomBytes(100));
    for (const round of [0, 1]) {
      for (let i = 0; i < secrets.length; i++) {
        const secret = secrets[round ? secrets.length - 1 - i : i]!; // the second round in reverse: kept and dropped keys alike
        expect(toHex(await signEd25519(message, secret))).toBe(toHex(await noble.signAsync(message, secret)));
      }
    }
    // the same bytes in another array sign alike (the key is kept by its bytes, not the array)
    const copy = Uint8Array.from(secrets[3]!);
    expect(toHex(await signEd25519(message, copy))).toBe(toHex(await signEd25519(message, secrets[3]!)));
  });

  test("signing refuses a secret key that is not 32 bytes", async () => {
    await expect(signEd25519(new Uint8Array(1), new Uint8Array(31))).rejects.toThrow(/32 bytes/);
    await expect(ed25519PublicKey(new Uint8Array(33))).rejects.toThrow(/32 bytes/);
  });

  test("a document signed and verified through the licensing API; another key's is refused", async () => {
    const a = await generateKeyPair();
    const b = await generateKeyPair();
    expect(toHex(await publicKeyOf(a.secretKey))).toBe(toHex(a.publicKey));
    const doc = await signDocument({ hello: "world" }, { kid: "k1", secret: toBase64Url(a.secretKey) });
    expect(await verifyDocument(doc, { keys: [{ kid: "k1", alg: "Ed25519", public_key: toBase64Url(a.publicKey) }] })).toEqual({ ok: true, payload: { hello: "world" }, kid: "k1" });
    const other = await verifyDocument(doc, { keys: [{ kid: "k1", alg: "Ed25519", public_key: toBase64Url(b.publicKey) }] });
    expect(other).toMatchObject({ ok: false, reason: "bad_signature" });
  });
});
