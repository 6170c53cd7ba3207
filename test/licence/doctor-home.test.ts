/**
 * `stalwart doctor` and what a home holds for its sessions: the history key every session signs
 * under, and the store of counters and session heads every check reads. A key missing while state
 * made under it remains, damaged, or replaced by another, and a store damaged, are something
 * missing (exit 1), named with the fix — not "missing nothing" while every session refuses. A home
 * that has made neither yet is fine, and doctor makes neither.
 */
import { describe, expect, test } from "vitest";
import { existsSync, readdirSync, truncateSync, writeFileSync, unlinkSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { Client } from "../../cli/sdk/index.js";
import { keyId } from "../../cli/sdk/home.js";
import { stalwart } from "../helpers/licence-cli.js";
import { licensedHome } from "../helpers/licensed-home.js";

const CATALOGUE = join(import.meta.dirname, "../../examples/store/agent.yaml");

/** A licensed home where a session has checked a call: its key made, recorded and bound to the store. */
async function usedHome(tag: string): Promise<string> {
  const home = licensedHome(tag);
  const s = new Client({ home }).session("s", { catalogue: CATALOGUE });
  await s.checkToolCall("get_order", { order_id: "4411" });
  return home;
}

const doctor = async (home: string) => {
  const r = await stalwart(["doctor", "--json"], { STALWART_HOME: home, STALWART_LICENCE_URL: "http://127.0.0.1:9" });
  const text = await stalwart(["doctor"], { STALWART_HOME: home, STALWART_LICENCE_URL: "http://127.0.0.1:9" });
  return { code: r.code, report: r.json() as { history_key: Record<string, unknown>; store: Record<string, unknown>; missing: string[] }, text: text.stdout };
};

describe("stalwart doctor: the history key", () => {
  test("none yet: fine, and doctor does not make one; in use: its fingerprint", async () => {
    const fresh = licensedHome("doctor-key-fresh");
    const before = await doctor(fresh);
    expect(before.code).toBe(0);
    expect(before.report.history_key).toMatchObject({ ok: true, id: null });
    expect(before.text).toMatch(/history key\s+ok\s+none yet/);
    expect(existsSync(join(fresh, "history.key"))).toBe(false);
    expect(before.report.store).toMatchObject({ ok: true, exists: false });
    expect(readdirSync(fresh).sort()).toEqual(["licence"]);

    const used = await usedHome("doctor-key-used");
    const after = await doctor(used);
    expect(after.code).toBe(0);
    expect(after.report.missing).toEqual([]);
    expect(after.report.history_key).toMatchObject({ ok: true, id: expect.stringMatching(/^[0-9a-f]{32}$/) });
  });

  const broken: [string, (home: string) => void, string, RegExp][] = [
    ["emptied", (h) => writeFileSync(join(h, "history.key"), ""), "KeyUnreadable", /not 32\+ bytes of hex/],
    ["deleted, with state made under it", (h) => unlinkSync(join(h, "history.key")), "KeyChanged", /missing, and the home holds state made under it/],
    ["replaced by another valid key", (h) => writeFileSync(join(h, "history.key"), randomBytes(32).toString("hex") + "\n"), "KeyChanged", /holds another key than the one this home recorded/],
  ];
  for (const [what, damage, code, message] of broken) {
    test(`${what}: missing, exit 1, as the SDK then refuses`, async () => {
      const home = await usedHome(`doctor-key-${code}`);
      damage(home);
      // what a session says now
      expect(() => new Client({ home }).session("s", { catalogue: CATALOGUE })).toThrow(expect.objectContaining({ code }));
      const r = await doctor(home);
      expect(r.code).toBe(1);
      expect(r.report.history_key).toMatchObject({ ok: false, code, message: expect.stringMatching(message) });
      expect(r.report.missing).toEqual([expect.stringMatching(/^a history key sessions can sign with: /)]);
      expect(r.text).toMatch(new RegExp(`history key\\s+no\\s+${code}`));
    });
  }

  test("a home that is a file: said so, not a key missing beside state", async () => {
    const file = join(licensedHome("doctor-home-file"), "not-a-folder");
    writeFileSync(file, "x");
    const r = await doctor(file);
    expect(r.code).toBe(1);
    expect(r.report.history_key).toMatchObject({ ok: false, code: "InputError", message: `the home \`${file}\` is not a folder` });
  });

  test("the key's fingerprint is the one the home recorded", async () => {
    const home = await usedHome("doctor-key-id");
    const { report } = await doctor(home);
    const { readFileSync } = await import("node:fs");
    expect(report.history_key.id).toBe(keyId(new Uint8Array(Buffer.from(readFileSync(join(home, "history.key"), "utf8").trim(), "hex"))));
  });

  const stores: [string, (file: string) => void][] = [
    ["zeroed", (f) => truncateSync(f, 0)],
    ["overwritten", (f) => writeFileSync(f, Buffer.alloc(16384, 0x5a))],
  ];
  for (const [what, damage] of stores) {
    test(`the store ${what}: missing, exit 1, as every check then refuses`, async () => {
      const home = await usedHome(`doctor-store-${what}`);
      damage(join(home, "state.mdb"));
      const check = await new Client({ home }).session("t", { catalogue: CATALOGUE }).checkToolCall("get_order", { order_id: "4411" });
      expect(check.decision).toBe("refuse");
      const r = await doctor(home);
      expect(r.code).toBe(1);
      expect(r.report.store).toMatchObject({ ok: false, code: "CounterStoreDamaged", hint: expect.stringContaining("stalwart counters reset") });
      expect(r.report.missing).toEqual([expect.stringMatching(/^a store the checks can use: /)]);
      expect(r.text).toMatch(/store\s+no\s+CounterStoreDamaged/);
    });
  }
});
