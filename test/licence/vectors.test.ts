// The published vectors (test/licence-vectors/vectors.json) verify, and the file is current.
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { licenceView, signingInput, verifyLease, verifyLicence, type LeasePayload, type LicencePayload } from "../../worker/portable/licensing/index.js";
import { buildVectors } from "../licence-vectors/build.js";

const vectors = JSON.parse(readFileSync(new URL("../licence-vectors/vectors.json", import.meta.url), "utf8"));

describe("published licence vectors", () => {
  test("the file is what the generator writes (Ed25519 is deterministic)", async () => {
    expect(JSON.parse(JSON.stringify(await buildVectors()))).toEqual(vectors);
  });

  test("the signing input is the published string", () => {
    const lease = vectors.cases[0].lease;
    expect(new TextDecoder().decode(signingInput(lease))).toBe(vectors.signing_input.lease);
  });

  for (const c of vectors.cases) {
    test(`vector: ${c.name}`, async () => {
      const lic = await verifyLicence(c.licence, vectors.key_set);
      expect(lic.ok).toBe(true);
      const r = await verifyLease(c.lease, vectors.key_set, c.expectation ?? vectors.expectation);
      if (!c.expected.valid) {
        expect(r.ok).toBe(false);
        expect(!r.ok && r.reason).toBe(c.expected.reason);
        return;
      }
      expect(r.ok).toBe(true);
      const view = licenceView({ licence: (lic as { payload: LicencePayload }).payload, lease: (r as { payload: LeasePayload }).payload }, new Date(c.now));
      expect(view).toEqual(c.expected.view);
    });
  }
});
