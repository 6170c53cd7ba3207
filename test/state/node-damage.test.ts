/**
 * The Node store under a home fails closed: deleted, zeroed, rolled back to an older copy, NaN or
 * garbage in a row, a missing witness, another store put in its place, or counters of an earlier
 * version — each makes every store operation throw CounterStoreDamaged naming the file and
 * `stalwart counters reset`, never a silent reset; the reset (recorded) is the way back.
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, renameSync, statSync, truncateSync, unlinkSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { open } from "lmdb";
import { closeState, nodeState, resetState, stateStatus, type NodeStateStore } from "../../cli/sdk/state/index.js";
import { builtModule } from "../helpers/built-cli.js";
import type { CounterItem } from "../../worker/portable/engine/index.js";

const NOV = Date.UTC(2026, 10, 15);
const item: CounterItem = { key: "spend|wallet|USD|month|2026-11", amount: 10, limit: 100, until: Date.UTC(2026, 11, 1) };
const head = (n: number) => ({ count: n, link: n.toString(16).padStart(64, "0") });

function homeWith(reservations: number): { home: string; store: NodeStateStore } {
  const home = mkdtempSync(join(tmpdir(), "stalwart-damage-"));
  const store = nodeState(home, { now: () => NOV });
  for (let i = 0; i < reservations; i++) expect(store.reserve(`r${i}`, [i < 5 ? item : { ...item, key: `${item.key}|${i}` }], NOV)).toEqual({ ok: true });
  store.commit("s", { expect: { count: 0, link: "" }, next: head(1), spend: ["token:1"] });
  return { home, store };
}

/** Every operation a counted call can make throws the typed error naming `file`. */
function everyOperationThrows(store: NodeStateStore, file: string, what: RegExp): void {
  const ops: [string, () => unknown][] = [
    ["reserve", () => store.reserve("next", [item], NOV)],
    ["peek", () => store.peek([item], NOV)],
    ["release", () => store.release("r0", NOV)],
    ["load", () => store.load("s")],
    ["commit", () => store.commit("s", { expect: head(1), next: head(2) })],
  ];
  for (const [name, op] of ops) {
    let err: any;
    try {
      op();
    } catch (e) {
      err = e;
    }
    expect(err?.code, `${name}: ${String(err)}`).toBe("CounterStoreDamaged");
    expect(err.where, name).toBe(file);
    expect(err.message, name).toMatch(what);
    expect(err.message, name).toContain(file);
    expect(err.hint, name).toMatch(/stalwart counters reset/);
  }
}

/** As a new process would find it: this process's handle closed first. */
function reopened(home: string): NodeStateStore {
  closeState(home);
  return nodeState(home, { now: () => NOV });
}

describe("a damaged Node store throws, never resets", () => {
  it("deleted between runs", () => {
    const { home } = homeWith(5);
    closeState(home);
    unlinkSync(join(home, "state.mdb"));
    everyOperationThrows(reopened(home), join(home, "state.mdb"), /missing/);
  });

  it("deleted while in use", () => {
    const { home, store } = homeWith(5);
    unlinkSync(join(home, "state.mdb"));
    everyOperationThrows(store, join(home, "state.mdb"), /deleted while in use/);
  });

  it("zeroed: truncated to 0 bytes, between runs and while in use", () => {
    const a = homeWith(5);
    closeState(a.home);
    truncateSync(join(a.home, "state.mdb"), 0);
    everyOperationThrows(reopened(a.home), join(a.home, "state.mdb"), /empty \(0 bytes\)/);
    const b = homeWith(5);
    truncateSync(join(b.home, "state.mdb"), 0);
    everyOperationThrows(b.store, join(b.home, "state.mdb"), /shrank|0 bytes/);
  });

  it("zeroed in place (every byte 0, same size): refused before LMDB maps it", () => {
    const { home } = homeWith(5);
    closeState(home);
    const f = join(home, "state.mdb");
    writeFileSync(f, Buffer.alloc(statSync(f).size));
    everyOperationThrows(reopened(home), f, /not an LMDB store's/);
  });

  it("rolled back to an older copy (the witness saw more)", () => {
    const { home, store } = homeWith(3);
    closeState(home);
    copyFileSync(join(home, "state.mdb"), join(home, "older.mdb"));
    const again = nodeState(home, { now: () => NOV });
    for (let i = 3; i < 6; i++) again.reserve(`r${i}`, [item], NOV);
    closeState(home);
    copyFileSync(join(home, "older.mdb"), join(home, "state.mdb"));
    everyOperationThrows(reopened(home), join(home, "state.mdb"), /older than its witness/);
    void store;
  });

  it("a NaN, or a string, where a count belongs", () => {
    for (const garbage of [Number.NaN, "12", null]) {
      const { home } = homeWith(5);
      closeState(home);
      const env = open({ path: join(home, "state.mdb"), maxDbs: 8 });
      const counters = env.openDB({ name: "counters" });
      const [cell] = [...counters.getKeys({})];
      const row = counters.get(cell!) as number[];
      counters.putSync(cell!, [garbage, ...row.slice(1)]);
      void env.close();
      everyOperationThrows(reopened(home), join(home, "state.mdb"), /is not \[used, until, touched, expiry\]/);
    }
  });

  it("a NaN written under a running process stops every process at its first touch, then every operation", () => {
    const { home, store } = homeWith(5);
    const env = open({ path: join(home, "state.mdb"), maxDbs: 8 });
    const counters = env.openDB({ name: "counters" });
    const [cell] = [...counters.getKeys({})];
    counters.putSync(cell!, [Number.NaN, item.until, NOV, NOV]);
    void env.close();
    expect(() => store.peek([item], NOV)).toThrow(/NaN/);
    // Another key, another session: damaged all the same (the mark is in the store).
    everyOperationThrows(store, join(home, "state.mdb"), /NaN/);
    everyOperationThrows(reopened(home), join(home, "state.mdb"), /found damaged/);
  });

  it("its witness deleted, or another store put in its place", () => {
    const a = homeWith(5);
    closeState(a.home);
    unlinkSync(join(a.home, "state.witness"));
    everyOperationThrows(reopened(a.home), join(a.home, "state.witness"), /witness .* is missing/);
    const b = homeWith(2);
    const c = homeWith(2);
    closeState(b.home);
    closeState(c.home);
    copyFileSync(join(c.home, "state.mdb"), join(b.home, "state.mdb"));
    everyOperationThrows(reopened(b.home), join(b.home, "state.mdb"), /not the store its witness/);
  });

  it("counters of an earlier version are not silently dropped", () => {
    const home = mkdtempSync(join(tmpdir(), "stalwart-legacy-"));
    writeFileSync(join(home, "counters.table"), Buffer.alloc(16));
    everyOperationThrows(nodeState(home), join(home, "counters.table"), /earlier version/);
  });
});

/**
 * A home whose folder has not changed for a while: the store then looks at its files through the
 * folder's stat and a read of the header (file.ts, `checkFiles`), not a stat of each file. The
 * clock is moved on so that the folder made just now counts as still; damage done after that
 * must be seen all the same, at the next operation.
 */
describe("a damaged Node store throws, never resets, in a home that has been still", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A home with a store in use, the clock moved past RACY_MS, one operation made at that time. */
  function stillHome(): { home: string; store: NodeStateStore } {
    const h = homeWith(3);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 60_000);
    expect(h.store.peek([item], NOV)).toEqual({ ok: true });
    expect(h.store.load("s").head).toEqual(head(1));
    return h;
  }

  it("deleted while in use", () => {
    const { home, store } = stillHome();
    unlinkSync(join(home, "state.mdb"));
    everyOperationThrows(store, join(home, "state.mdb"), /deleted while in use/);
  });

  it("truncated to 0 bytes while in use, and zeroed in place while in use", () => {
    const a = stillHome();
    truncateSync(join(a.home, "state.mdb"), 0);
    everyOperationThrows(a.store, join(a.home, "state.mdb"), /0 bytes/);
    const b = stillHome();
    const f = join(b.home, "state.mdb");
    writeFileSync(f, Buffer.alloc(statSync(f).size));
    everyOperationThrows(b.store, f, /not an LMDB store's/);
  });

  it("its witness deleted while in use", () => {
    const { home, store } = stillHome();
    unlinkSync(join(home, "state.witness"));
    everyOperationThrows(store, join(home, "state.witness"), /deleted while in use/);
  });

  it("an older copy renamed into place while in use", () => {
    const { home, store } = stillHome();
    copyFileSync(join(home, "state.mdb"), join(home, "older.mdb"));
    for (let i = 3; i < 6; i++) expect(store.reserve(`r${i}`, [item], NOV)).toEqual({ ok: true });
    renameSync(join(home, "older.mdb"), join(home, "state.mdb"));
    everyOperationThrows(store, join(home, "state.mdb"), /older than its witness/);
  });

  it("a reset made by another handle is seen, and the new store is used", () => {
    const { home, store } = stillHome();
    expect(store.peek([{ ...item, amount: 80 }], NOV)).toEqual({ ok: false, key: item.key, used: 30, limit: 100 });
    // Another process's reset: files moved aside and a new store made, while this handle is open.
    const code = `import { resetState } from ${JSON.stringify(builtModule("cli/sdk/state/index.js"))}; resetState(${JSON.stringify(home)}, { by: "other", force: true });`;
    execFileSync(process.execPath, ["--input-type=module", "-e", code], { cwd: join(import.meta.dirname, "../..") });
    expect(store.peek([{ ...item, amount: 80 }], NOV)).toEqual({ ok: true });
    expect(store.load("s").head).toBeNull();
  });
});

describe("stalwart counters reset is the only way back, and it is recorded", () => {
  it("refuses a healthy store without --force; a reset starts anew and records who, when and what", () => {
    const { home, store } = homeWith(5);
    expect(() => resetState(home, { by: "ops" })).toThrow(expect.objectContaining({ code: "StoreHealthy" }));
    expect(store.peek([{ ...item, amount: 60 }], NOV)).toEqual({ ok: false, key: item.key, used: 50, limit: 100 });
    closeState(home);
    copyFileSync(join(home, "state.mdb"), join(home, "older.mdb"));
    nodeState(home, { now: () => NOV }).reserve("later", [item], NOV);
    closeState(home);
    copyFileSync(join(home, "older.mdb"), join(home, "state.mdb"));
    const before = stateStatus(home);
    expect(before.healthy).toBe(false);
    expect(before.problem?.message).toMatch(/older than its witness/);

    const r = resetState(home, { by: "ops@example" });
    expect(r.record).toMatchObject({ by: "ops@example", what: expect.stringMatching(/older than its witness/) });
    expect(Date.parse(r.record.at)).toBeGreaterThan(0);
    expect(r.record.aside.some((f) => f.includes("state.mdb.reset-"))).toBe(true);
    expect(r.record.aside.every((f) => existsSync(f))).toBe(true);
    const fresh = nodeState(home, { now: () => NOV });
    expect(fresh.peek([{ ...item, amount: 100 }], NOV)).toEqual({ ok: true });
    expect(fresh.load("s").head).toBeNull(); // saved sessions do not continue across a reset
    const after = stateStatus(home);
    expect(after).toMatchObject({ healthy: true, resets: [expect.objectContaining({ by: "ops@example" })] });

    // A second reset (forced) carries the first record over.
    resetState(home, { by: "second", force: true });
    expect(stateStatus(home).resets.map((x) => x.by)).toEqual(["ops@example", "second"]);
    expect(readdirSync(home).filter((f) => f.includes(".reset-")).length).toBeGreaterThanOrEqual(4);
  });
});
