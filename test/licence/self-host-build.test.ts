/**
 * The self-hoster's build input (docs/licences.md, "Build a runtime that trusts your keys"), done
 * as the page says on a copy of the sources: `cli/licence/keygen.ts --kid … --write` rewrites
 * `worker/portable/licensing/trusted-keys.ts`, `tsc` builds it, and the built runtime verifies a
 * licence signed by the new key and refuses one signed by the development keys (`unknown_key`),
 * and no longer calls its key set a dev one. The repository's own files are not touched.
 */
import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO } from "../docs/markdown.js";

type Licensing = typeof import("../../worker/portable/licensing/index.js");

describe("a runtime built to trust the self-hoster's keys", () => {
  it("keygen --write, build: its licence verifies, a dev-key licence does not", async () => {
    const before = readFileSync(join(REPO, "worker/portable/licensing/trusted-keys.ts"), "utf8");
    const copy = mkdtempSync(join(tmpdir(), "stalwart-self-host-"));
    for (const p of ["worker/portable", "cli/licence/keygen.ts", "types", "tsconfig.json", "package.json"]) cpSync(join(REPO, p), join(copy, p), { recursive: true });
    symlinkSync(join(REPO, "node_modules"), join(copy, "node_modules"), "dir");

    // 1. the keys (docs/licences.md step 1), written into the copy's build input
    const printed = JSON.parse(execFileSync(process.execPath, ["--import", "tsx", "cli/licence/keygen.ts", "--kid", "selfhost-2026-a", "--write"], { cwd: copy, encoding: "utf8" })) as { public_key: { kid: string }; LICENCE_SIGNING_KEYS: string };
    expect(printed.public_key.kid).toBe("selfhost-2026-a");
    const input = readFileSync(join(copy, "worker/portable/licensing/trusted-keys.ts"), "utf8");
    expect(input).toContain('kid: "selfhost-2026-a"');
    expect(input).not.toContain("dev-2026-a");

    // 2. the build (step 3): the licensing module and what it imports, compiled as `npm run build` does
    writeFileSync(join(copy, "tsconfig.selfhost.json"), JSON.stringify({ extends: "./tsconfig.json", include: [], files: ["worker/portable/licensing/index.ts", "types/wasm.d.ts"], compilerOptions: { declaration: false, outDir: "dist" } }));
    execFileSync(process.execPath, [join(REPO, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.selfhost.json"], { cwd: copy, encoding: "utf8" });
    const built = (await import(pathToFileURL(join(copy, "dist/worker/portable/licensing/index.js")).href)) as Licensing;

    // 3. what the built runtime trusts
    expect(built.TRUSTED_KEYS.keys.map((k) => k.kid)).toEqual(["selfhost-2026-a"]);
    expect(built.isDevKeySet(built.TRUSTED_KEYS)).toBe(false);
    const [secret] = JSON.parse(printed.LICENCE_SIGNING_KEYS) as [{ kid: string; secret: string }];
    const payload = { type: "licence", licence_id: "lic_selfhost", plan: "paid" };
    const ours = await built.verifyDocument(await built.signDocument(payload, secret), built.TRUSTED_KEYS);
    expect(ours).toMatchObject({ ok: true, kid: "selfhost-2026-a" });
    const dev = await built.verifyDocument(await built.signDocument(payload, await built.devSigningKey("dev-2026-a")), built.TRUSTED_KEYS);
    expect(dev).toMatchObject({ ok: false, reason: "unknown_key" });
    // …and a licence of the other key that claims the self-hoster's key id does not verify either
    const forged = await built.signDocument(payload, { kid: "selfhost-2026-a", secret: (await built.devSigningKey("dev-2026-a")).secret });
    expect(await built.verifyDocument(forged, built.TRUSTED_KEYS)).toMatchObject({ ok: false, reason: "bad_signature" });

    expect(readFileSync(join(REPO, "worker/portable/licensing/trusted-keys.ts"), "utf8")).toBe(before);
  }, 180_000);
});
