/**
 * The Node store's cheaper paths keep its guarantees (cli/sdk/state/STORAGE.md, "What each
 * operation checks"): a load or peek reads a snapshot taken when it runs, so it sees what another
 * process committed a moment before, even within one turn of the event loop; a session this
 * process keeps in memory is used only while the store is at the generation it was read at; and
 * the store rolled back, or its witness, is caught by a load as by a commit, whatever is kept.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { open } from "lmdb";
import { closeState, nodeState, stateStatus } from "../../cli/sdk/state/index.js";
import type { CounterItem } from "../../worker/portable/engine/index.js";
import { builtModule } from "../helpers/built-cli.js";

const repo = resolve(import.meta.dirname, "../..");
const NOV = Date.UTC(2026, 10, 15);
const link = (n: number) => n.toString(16).padStart(64, "0");
const head = (n: number) => ({ count: n, link: link(n) });
const item: CounterItem = { key: "spend|wallet|USD|month|2026-11", amount: 10, limit: 100, until: Date.UTC(2026, 11, 1) };

/** Another process commits to `home` (synchronously: this process's event loop does not turn meanwhile). */
function elsewhere(home: string, script: string): void {
  const code = `import { nodeState } from ${JSON.stringify(builtModule("cli/sdk/state/index.js"))};\nconst store = nodeState(${JSON.stringify(home)}, { now: () => ${NOV} });\n${script}`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", code], { cwd: repo, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`the other process failed: ${r.stderr}`);
}

describe("reads of the Node store", () => {
  it("a load sees what another process committed, in the same turn of the event loop, past what this one keeps", () => {
    const home = mkdtempSync(join(tmpdir(), "stalwart-reads-"));
    const store = nodeState(home, { now: () => NOV });
    expect(store.commit("s", { expect: { count: 0, link: "" }, next: head(1), spend: ["token:a"] })).toEqual({ ok: true });
    expect(store.load("s").head).toEqual(head(1)); // kept by this process now
    elsewhere(home, `const r = store.commit("s", { expect: ${JSON.stringify(head(1))}, next: ${JSON.stringify(head(2))}, spend: ["token:b"], tally: { "count:pay": 1 } }); if (!r.ok) throw new Error(JSON.stringify(r));`);
    const seen = store.load("s");
    expect(seen.head).toEqual(head(2));
    expect([...seen.spent].sort()).toEqual(["token:a", "token:b"]);
    expect(seen.tallies["count:pay"]).toBe(1);
    // Its commit is refused against the head it no longer holds, and a name the other spent stays spent.
    expect(store.commit("s", { expect: head(1), next: head(2) })).toMatchObject({ ok: false, why: "head" });
    expect(store.commit("s", { expect: head(2), next: head(3), spend: ["token:b"] })).toEqual({ ok: false, why: "spent", name: "token:b" });
    expect(store.commit("s", { expect: head(2), next: head(3), spend: ["token:c"] })).toEqual({ ok: true });
    expect(store.load("s")).toMatchObject({ head: head(3), spent: new Set(["token:a", "token:b", "token:c"]) });
    closeState(home);
  }, 60_000);

  it("a peek sees another process's reservation, in the same turn", () => {
    const home = mkdtempSync(join(tmpdir(), "stalwart-reads-"));
    const store = nodeState(home, { now: () => NOV });
    expect(store.reserve("r0", [item], NOV)).toEqual({ ok: true });
    expect(store.peek([{ ...item, amount: 0 }], NOV)).toEqual({ ok: true });
    elsewhere(home, `for (let i = 1; i < 9; i++) store.reserve("r" + i, [${JSON.stringify(item)}], ${NOV});`);
    expect(store.peek([{ ...item, amount: 30 }], NOV)).toEqual({ ok: false, key: item.key, used: 90, limit: 100 });
    // A session kept across this process's own counter writes is still what the store holds.
    expect(store.commit("k", { expect: { count: 0, link: "" }, next: head(1), spend: ["token:k"] })).toEqual({ ok: true });
    store.load("k");
    store.release("r0", NOV);
    expect(store.load("k")).toMatchObject({ head: head(1), spent: new Set(["token:k"]) });
    expect(store.commit("k", { expect: head(1), next: head(2), spend: ["token:k"] })).toEqual({ ok: false, why: "spent", name: "token:k" });
    closeState(home);
  }, 60_000);

  it("the store put back to an older copy in place, while in use, is caught by a load of a session this process keeps", () => {
    const home = mkdtempSync(join(tmpdir(), "stalwart-reads-"));
    const store = nodeState(home, { now: () => NOV });
    store.commit("s", { expect: { count: 0, link: "" }, next: head(1), spend: ["token:1"] });
    closeState(home);
    copyFileSync(join(home, "state.mdb"), join(home, "older.mdb"));
    const again = nodeState(home, { now: () => NOV });
    expect(again.commit("s", { expect: head(1), next: head(2) })).toEqual({ ok: true });
    expect(again.load("s").head).toEqual(head(2)); // kept
    // The same file (same inode), its bytes now the older store's: only the generation says so.
    copyFileSync(join(home, "older.mdb"), join(home, "state.mdb"));
    expect(() => again.load("s")).toThrow(expect.objectContaining({ code: "CounterStoreDamaged", message: expect.stringMatching(/older than its witness/) }));
    expect(() => again.peek([item], NOV)).toThrow(expect.objectContaining({ code: "CounterStoreDamaged" }));
    expect(stateStatus(home).healthy).toBe(false);
    closeState(home);
  });

  it("a store whose meta row does not say when its next expiry fires (written before it did) reclaims all the same", () => {
    const home = mkdtempSync(join(tmpdir(), "stalwart-reads-"));
    const DAY = 86_400_000;
    let clock = NOV;
    const store = nodeState(home, { now: () => clock });
    store.reserve("old", [item], clock);
    closeState(home);
    const env = open({ path: join(home, "state.mdb"), maxDbs: 8 });
    const meta = env.openDB({ name: "meta" });
    const row = meta.get("meta") as Record<string, unknown>;
    expect(typeof row.due).toBe("number");
    const { due: _due, ...without } = row;
    meta.putSync("meta", without);
    void env.close();
    const later = nodeState(home, { now: () => clock });
    clock = Date.UTC(2026, 11, 1) + 2 * DAY; // the period ended, and its grace
    later.commit("t", { expect: { count: 0, link: "" }, next: head(1) });
    expect(stateStatus(home).rows).toMatchObject({ reservations: 0, counters: 0 });
    closeState(home);
  });
});
