/**
 * The home's history key (`history.key`) and the state made under it. A fresh home makes its key
 * silently; a home that holds state (the store, its witness, approvals) never makes a new one in
 * silence: a deleted key, or another key in its place, is `KeyChanged` naming the file, until the
 * old key is put back or `stalwart key reset` starts over on purpose. A damaged key file
 * (emptied, zeroed, cut short) is `KeyUnreadable`.
 */
import { existsSync, readFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { Client, StalwartError } from "../../cli/sdk/index.js";
import { closeState } from "../../cli/sdk/state/index.js";
import { installationKey, keyId } from "../../cli/sdk/home.js";
import { homeMac } from "../../cli/approvals/mac.js";
import { addWaiting } from "../helpers/pending-record.js";
import { licensedHome } from "../helpers/licensed-home.js";
import { stalwart } from "../helpers/licence-cli.js";

const catalogue = join(resolve(import.meta.dirname, "../.."), "test/approvals/fixtures/refunds.yaml");
const get = (s: ReturnType<Client["session"]>) => s.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "context" } });

/** A home that checked once and saved its session; the key it made. */
async function used(tag: string) {
  const home = licensedHome(tag);
  const s = new Client({ home }).session("saved", { catalogue });
  expect((await get(s)).decision).toBe("allow");
  const saved = JSON.parse(JSON.stringify(s.toJSON()));
  closeState(home);
  return { home, saved, key: readFileSync(join(home, "history.key"), "utf8"), file: join(home, "history.key") };
}

function thrown(fn: () => unknown): StalwartError {
  try {
    fn();
  } catch (err) {
    return err as StalwartError;
  }
  throw new Error("no error");
}

describe("a home's history key", () => {
  it("a fresh home makes its key silently (a licence alone is no state), and a second client uses it", async () => {
    const home = licensedHome("key-fresh");
    expect(existsSync(join(home, "history.key"))).toBe(false);
    expect((await get(new Client({ home }).session("a", { catalogue }))).decision).toBe("allow");
    const key = readFileSync(join(home, "history.key"), "utf8");
    expect(key).toMatch(/^[0-9a-f]{64}\n$/);
    expect((await get(new Client({ home }).session("b", { catalogue }))).decision).toBe("allow");
    expect(readFileSync(join(home, "history.key"), "utf8")).toBe(key);
  });

  it("deleted in a home with state: KeyChanged naming it, no new key made; the old key put back continues the saved session", async () => {
    const { home, saved, key, file } = await used("key-deleted");
    rmSync(file);
    for (const act of [() => new Client({ home }).session("n", { catalogue }), () => new Client({ home }).resume(saved, { catalogue })]) {
      const err = thrown(act);
      expect(err).toBeInstanceOf(StalwartError);
      expect(err.code).toBe("KeyChanged");
      expect(err.message).toContain(file);
      expect(err.hint).toMatch(/restore/);
      expect(err.hint).toContain("stalwart key reset");
    }
    expect(existsSync(file)).toBe(false);
    writeFileSync(file, key, { mode: 0o600 });
    expect((await get(new Client({ home }).resume(saved, { catalogue }))).decision).toBe("allow");
  });

  it("deleted with the store too, its witness left: still KeyChanged", async () => {
    const { home, file } = await used("key-witness");
    rmSync(file);
    rmSync(join(home, "state.mdb"));
    expect(thrown(() => new Client({ home }).session("n", { catalogue })).code).toBe("KeyChanged");
  });

  it("another valid key in its place (swapped, or one from a backup of another home): KeyChanged, not SessionSealInvalid", async () => {
    const { home, saved, file } = await used("key-swapped");
    writeFileSync(file, "0".repeat(64) + "\n");
    const err = thrown(() => new Client({ home }).resume(saved, { catalogue }));
    expect(err.code).toBe("KeyChanged");
    expect(err.message).toContain(file);
    expect(thrown(() => new Client({ home }).session("n", { catalogue })).code).toBe("KeyChanged");
  });

  it.each([
    ["emptied", (f: string) => truncateSync(f, 0)],
    ["zeroed", (f: string) => writeFileSync(f, Buffer.alloc(65))],
    ["cut short", (f: string) => truncateSync(f, 40)],
  ])("%s: KeyUnreadable naming it, and left as it is", async (_what, damage) => {
    const { home, file } = await used("key-damaged");
    damage(file);
    const before = readFileSync(file);
    const err = thrown(() => new Client({ home }).session("n", { catalogue }));
    expect(err.code).toBe("KeyUnreadable");
    expect(err.message).toContain(file);
    expect(readFileSync(file)).toEqual(before);
  });

  it("`stalwart key reset` starts over on purpose: refused on a good key without --force; the old key kept aside; old sessions refused, new ones run", async () => {
    const { home, saved, key, file } = await used("key-reset");
    const healthy = await stalwart(["key", "reset", "--home", home, "--json"], {});
    expect(healthy.code).toBe(1);
    expect(healthy.json().error.code).toBe("KeyHealthy");
    expect(readFileSync(file, "utf8")).toBe(key);

    rmSync(file);
    const r = await stalwart(["key", "reset", "--home", home], {});
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/saved sessions/);
    const fresh = readFileSync(file, "utf8");
    expect(fresh).toMatch(/^[0-9a-f]{64}\n$/);
    expect(fresh).not.toBe(key);
    expect((await get(new Client({ home }).session("after", { catalogue }))).decision).toBe("allow");
    expect(thrown(() => new Client({ home }).resume(saved, { catalogue })).code).toBe("SessionSealInvalid");

    const forced = await stalwart(["key", "reset", "--home", home, "--force", "--json"], {});
    expect(forced.code, forced.stderr).toBe(0);
    const aside = readdirSync(home).filter((f) => f.startsWith("history.key.reset-"));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(home, aside[0]!), "utf8")).toBe(fresh);
    expect(forced.json()).toMatchObject({ reset: true, file, aside: [join(home, aside[0]!)] });
    expect((await get(new Client({ home }).session("forced", { catalogue }))).decision).toBe("allow");
  });
});

describe("the person's side signs under the same key", () => {
  it("`stalwart approvals approve` in a home whose key was swapped or deleted: KeyChanged, no receipt signed", async () => {
    for (const change of ["swapped", "deleted"] as const) {
      const home = licensedHome(`key-approve-${change}`);
      const s = new Client({ home }).session("refunds", { catalogue });
      const waiting = await s.run("refund_card", { order_id: "4411", amount: 40 }, { origins: { order_id: "context", amount: "model" } }, () => undefined);
      expect(waiting.status).toBe("waiting");
      const list = await stalwart(["approvals", "list", "--home", home, "--json"], {});
      const id = (list.json() as unknown as { record: { id: string } }[])[0]!.record.id;
      const file = join(home, "history.key");
      if (change === "swapped") writeFileSync(file, "0".repeat(64) + "\n");
      else rmSync(file);
      const r = await stalwart(["approvals", "approve", id, "--home", home, "--json"], {});
      expect(r.code, change).toBe(1);
      expect(r.json().error.code, change).toBe("KeyChanged");
      expect(existsSync(join(home, "approvals", "receipts", `${id}.json`)), change).toBe(false);
    }
  }, 60_000);
});

/** A pending record in the home's approvals folder, as a gateway checking on a worker (`--check-url`) leaves one: no store in the home. */
function waiting(home: string, id: string): void {
  addWaiting(home, id);
}

describe("a home with approvals and no store", () => {
  it("the key's fingerprint is recorded beside it when it is made (history.key.id)", () => {
    const home = licensedHome("key-record");
    const key = installationKey(home);
    expect(readFileSync(join(home, "history.key.id"), "utf8")).toBe(keyId(key) + "\n");
    expect(existsSync(join(home, "state.mdb"))).toBe(false);
  });

  it("another valid key in history.key's place: KeyChanged at `stalwart approvals approve` and on the page, no receipt signed; `stalwart key reset` is the way through (for records made after it)", async () => {
    const home = licensedHome("key-approvals-only");
    installationKey(home);
    waiting(home, "p_00000000000000a1");
    const file = join(home, "history.key");
    writeFileSync(file, "0".repeat(64) + "\n");
    const r = await stalwart(["approvals", "approve", "p_00000000000000a1", "--home", home, "--json"], {});
    expect(r.code).toBe(1);
    expect(r.json().error.code).toBe("KeyChanged");
    expect(r.json().error.message).toContain(file);
    expect(existsSync(join(home, "approvals", "receipts", "p_00000000000000a1.json"))).toBe(false);
    expect(thrown(() => homeMac(home)).code).toBe("KeyChanged");
    expect(existsSync(join(home, "state.mdb"))).toBe(false);

    const reset = await stalwart(["key", "reset", "--home", home, "--json"], {});
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.json().was).toMatch(/another key/);
    // a record written under the key that was replaced cannot be told from one edited by hand
    const old = await stalwart(["approvals", "approve", "p_00000000000000a1", "--home", home, "--json"], {});
    expect(old.code).toBe(1);
    expect(old.json().error.code).toBe("ApprovalUnreadable");
    expect(old.json().error.message).toContain("written under another key");
    waiting(home, "p_00000000000000a2");
    const ok = await stalwart(["approvals", "approve", "p_00000000000000a2", "--home", home, "--json"], {});
    expect(ok.code, ok.stderr).toBe(0);
    expect(readFileSync(join(home, "history.key.id"), "utf8")).toBe(keyId(installationKey(home)) + "\n");
  }, 60_000);

  it("a home whose key was made before the record was kept: the key in use is recorded at its next use, and a swap after that is caught", () => {
    const home = licensedHome("key-record-late");
    installationKey(home);
    waiting(home, "p_00000000000000b1");
    rmSync(join(home, "history.key.id"));
    const key = installationKey(home);
    expect(readFileSync(join(home, "history.key.id"), "utf8")).toBe(keyId(key) + "\n");
    writeFileSync(join(home, "history.key"), "ab".repeat(32) + "\n");
    expect(thrown(() => installationKey(home)).code).toBe("KeyChanged");
  });

  it("the key deleted where only its record is left: KeyChanged, not a new key in silence", () => {
    const home = licensedHome("key-record-only");
    installationKey(home);
    rmSync(join(home, "history.key"));
    const err = thrown(() => installationKey(home));
    expect(err.code).toBe("KeyChanged");
    expect(existsSync(join(home, "history.key"))).toBe(false);
  });
});
