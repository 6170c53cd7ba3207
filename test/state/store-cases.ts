/**
 * One set of cases for every SessionStateStore + CounterStore (the hono habit: one case file run
 * against each implementation): in memory, the Node store under a home, and the Durable Objects
 * through the real worker (test/worker/state-objects.test.ts).
 */
import { describe, expect, it } from "vitest";
import type { CounterItem, CounterStore, Head, SessionStateStore } from "../../worker/portable/engine/index.js";

export type Stores = SessionStateStore & CounterStore;

const NOV = Date.UTC(2026, 10, 15, 12);
const DEC1 = Date.UTC(2026, 11, 1);
const link = (n: number) => n.toString(16).padStart(64, "0");
const head = (n: number): Head => (n === 0 ? { count: 0, link: "" } : { count: n, link: link(n) });
let seq = 0;
/** A name no other case (or run against a shared worker) uses. */
const fresh = (tag: string) => `${tag}-${Date.now().toString(36)}-${(seq++).toString(36)}`;
const wallet = (amount: number, limit = 10, key = fresh("spend|wallet")): CounterItem => ({ key, amount, limit, until: DEC1 });

async function rejectsWith(p: () => unknown, code: string): Promise<void> {
  let err: unknown;
  try {
    await p();
  } catch (e) {
    err = e;
  }
  expect((err as { code?: string } | undefined)?.code, String(err)).toBe(code);
}

export function storeCases(name: string, make: () => Stores | Promise<Stores>): void {
  describe(`${name}: session state`, () => {
    it("an unknown session has no head, nothing spent, no tallies", async () => {
      const s = await make();
      const st = await s.load(fresh("s"));
      expect(st.head).toBeNull();
      expect([...st.spent]).toEqual([]);
      expect({ ...st.tallies }).toEqual({});
    });

    it("a first commit expects the empty head; it stores head, spent names and tallies together", async () => {
      const s = await make();
      const id = fresh("s");
      expect(await s.commit(id, { expect: head(0), next: head(1), spend: ["token:a"], tally: { "at_most:pay": 1, untrusted: 1 } })).toEqual({ ok: true });
      const st = await s.load(id);
      expect(st.head).toEqual(head(1));
      expect([...st.spent]).toEqual(["token:a"]);
      expect({ ...st.tallies }).toEqual({ "at_most:pay": 1, untrusted: 1 });
    });

    it("a stale or forked head is refused with the stored head, and changes nothing", async () => {
      const s = await make();
      const id = fresh("s");
      await s.commit(id, { expect: head(0), next: head(2) });
      expect(await s.commit(id, { expect: head(1), next: head(3), spend: ["token:x"], tally: { n: 5 } })).toEqual({ ok: false, why: "head", head: head(2) });
      expect(await s.commit(id, { expect: { count: 2, link: link(99) }, next: head(3) })).toEqual({ ok: false, why: "head", head: head(2) });
      const st = await s.load(id);
      expect(st.head).toEqual(head(2));
      expect([...st.spent]).toEqual([]);
      expect({ ...st.tallies }).toEqual({});
    });

    it("a session never seen matches only an empty head", async () => {
      const s = await make();
      expect(await s.commit(fresh("s"), { expect: head(6), next: head(7) })).toEqual({ ok: false, why: "head", head: null });
    });

    it("restart replaces the head and keeps spent names and tallies", async () => {
      const s = await make();
      const id = fresh("s");
      await s.commit(id, { expect: head(0), next: head(4), spend: ["undo:" + link(3)], tally: { "at_most:pay": 1 } });
      expect(await s.commit(id, { expect: "restart", next: head(1), tally: { untrusted: 1 } })).toEqual({ ok: true });
      const st = await s.load(id);
      expect(st.head).toEqual(head(1));
      expect([...st.spent]).toEqual(["undo:" + link(3)]);
      expect({ ...st.tallies }).toEqual({ "at_most:pay": 1, untrusted: 1 });
    });

    it("a name is refused on its second use, whatever head is presented; the whole change is refused", async () => {
      const s = await make();
      const id = fresh("s");
      expect(await s.commit(id, { expect: head(0), next: head(1), spend: ["token:t1"] })).toEqual({ ok: true });
      expect(await s.commit(id, { expect: head(1), next: head(2), spend: ["token:t2", "token:t1"], tally: { n: 1 } })).toEqual({ ok: false, why: "spent", name: "token:t1" });
      expect(await s.commit(id, { expect: "restart", next: head(1), spend: ["token:t1"] })).toEqual({ ok: false, why: "spent", name: "token:t1" });
      expect(await s.commit(id, { expect: head(1), next: head(2), spend: ["token:t3", "token:t3"] })).toEqual({ ok: false, why: "spent", name: "token:t3" });
      const st = await s.load(id);
      expect(st.head).toEqual(head(1));
      expect([...st.spent]).toEqual(["token:t1"]);
      expect({ ...st.tallies }).toEqual({});
      // Another session spends its own names.
      expect(await s.commit(fresh("s"), { expect: head(0), next: head(1), spend: ["token:t1"] })).toEqual({ ok: true });
    });

    it("a tally never goes below 0, and names that look like object keys are data", async () => {
      const s = await make();
      const id = fresh("s");
      await s.commit(id, { expect: head(0), next: head(1), tally: { a: 2, constructor: 3, ["__proto__"]: 1 } });
      await s.commit(id, { expect: head(1), next: head(2), tally: { a: -5, constructor: -1 } });
      const t = (await s.load(id)).tallies;
      expect([t.a, t.constructor, Object.hasOwn(t, "__proto__") && t["__proto__"]]).toEqual([0, 2, 1]);
      expect(Object.keys(t).sort()).toEqual(["__proto__", "a", "constructor"]);
    });

    it("bad input is an input error naming where", async () => {
      const s = await make();
      await rejectsWith(() => s.commit(fresh("s"), { expect: head(0), next: { count: -1, link: "" } }), "InputError");
      await rejectsWith(() => s.commit(fresh("s"), { expect: head(0), next: { count: 1, link: "" } }), "InputError");
      await rejectsWith(() => s.load(""), "InputError");
    });

    it("of 50 concurrent commits expecting one head, exactly one succeeds", async () => {
      const s = await make();
      const id = fresh("s");
      await s.commit(id, { expect: head(0), next: head(5) });
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => s.commit(id, { expect: head(5), next: { count: 6, link: link(1000 + i) } })));
      expect(answers.filter((a) => a.ok)).toHaveLength(1);
      const winner = answers.findIndex((a) => a.ok);
      expect((await s.load(id)).head).toEqual({ count: 6, link: link(1000 + winner) });
      for (const a of answers) if (!a.ok) expect(a).toEqual({ ok: false, why: "head", head: { count: 6, link: link(1000 + winner) } });
    });
  });

  describe(`${name}: counters`, () => {
    it("reserves all or nothing up to the ceiling, peeks without taking, releases exactly its own", async () => {
      const s = await make();
      const item = wallet(3);
      const rid = () => fresh("r");
      const [a, b, c] = [rid(), rid(), rid()];
      expect(await s.reserve(a, [item], NOV)).toEqual({ ok: true });
      expect(await s.reserve(b, [item], NOV)).toEqual({ ok: true });
      expect(await s.reserve(c, [item], NOV)).toEqual({ ok: true });
      expect(await s.reserve(rid(), [item], NOV)).toEqual({ ok: false, key: item.key, used: 9, limit: 10 });
      expect(await s.peek([{ ...item, amount: 1 }], NOV)).toEqual({ ok: true });
      await s.release(b, NOV);
      await s.release(b, NOV); // twice: gives back once
      await s.release(fresh("never-taken"), NOV);
      expect(await s.peek([{ ...item, amount: 5 }], NOV)).toEqual({ ok: false, key: item.key, used: 6, limit: 10 });
      // A refused reservation takes nothing from the items that fit.
      const other = wallet(1, 100);
      expect(await s.reserve(rid(), [other, { ...item, amount: 5 }], NOV)).toEqual({ ok: false, key: item.key, used: 6, limit: 10 });
      expect(await s.peek([{ ...other, amount: 100 }], NOV)).toEqual({ ok: true });
    });

    it("reserving an id already present is an input error, and counts nothing", async () => {
      const s = await make();
      const item = wallet(2);
      const id = fresh("r");
      await s.reserve(id, [item], NOV);
      await rejectsWith(() => s.reserve(id, [item], NOV), "InputError");
      await rejectsWith(() => s.reserve(id, [wallet(1)], NOV), "InputError");
      expect(await s.peek([{ ...item, amount: 8 }], NOV)).toEqual({ ok: true });
      expect(await s.peek([{ ...item, amount: 9 }], NOV)).toEqual({ ok: false, key: item.key, used: 2, limit: 10 });
    });

    it("two items of one counter in one reservation add up", async () => {
      const s = await make();
      const item = wallet(6);
      expect(await s.reserve(fresh("r"), [item, item], NOV)).toEqual({ ok: false, key: item.key, used: 6, limit: 10 });
      expect(await s.reserve(fresh("r"), [{ ...item, amount: 4 }, { ...item, amount: 5 }], NOV)).toEqual({ ok: true });
      expect(await s.peek([{ ...item, amount: 2 }], NOV)).toEqual({ ok: false, key: item.key, used: 9, limit: 10 });
    });

    it("a period that ended counts from zero", async () => {
      const s = await make();
      const item = wallet(10);
      expect(await s.reserve(fresh("r"), [item], NOV)).toEqual({ ok: true });
      expect(await s.peek([item], NOV)).toEqual({ ok: false, key: item.key, used: 10, limit: 10 });
      expect(await s.peek([item], DEC1)).toEqual({ ok: true });
    });

    it("amounts add up as the decimals they are written as: 100 × 19.99 fits 1999, 0.1 + 0.2 fits 0.3", async () => {
      const s = await make();
      const price = wallet(19.99, 1999);
      for (let i = 0; i < 100; i++) expect(await s.reserve(fresh("r"), [price], NOV), `payment ${i + 1}`).toEqual({ ok: true });
      expect(await s.peek([{ ...price, amount: 0.01 }], NOV)).toEqual({ ok: false, key: price.key, used: 1999, limit: 1999 });
      const dime = wallet(0.1, 0.3);
      expect(await s.reserve(fresh("r"), [dime], NOV)).toEqual({ ok: true });
      const second = fresh("r");
      expect(await s.reserve(second, [{ ...dime, amount: 0.2 }], NOV)).toEqual({ ok: true });
      expect(await s.peek([{ ...dime, amount: 1e-9 }], NOV)).toEqual({ ok: false, key: dime.key, used: 0.3, limit: 0.3 });
      // Given back and counted again exactly: 0.3 − 0.2 is 0.1, not 0.09999999999999998.
      await s.release(second, NOV);
      expect(await s.peek([{ ...dime, amount: 0.2 }], NOV)).toEqual({ ok: true });
      expect(await s.peek([{ ...dime, amount: 0.21 }], NOV)).toEqual({ ok: false, key: dime.key, used: 0.1, limit: 0.3 });
    });

    it("an amount too small for the running total's double still counts: the total is kept rounded up, never down", async () => {
      const s = await make();
      const big = wallet(1e6, 1e6 + 1);
      expect(await s.reserve(fresh("r"), [big], NOV)).toEqual({ ok: true });
      // 1e6 + 1e-11 is 1e6 in binary: summed that way, a full ceiling would take such amounts forever.
      const crumb = { ...big, amount: 1e-11, limit: 1e6 };
      expect(await s.peek([crumb], NOV)).toEqual({ ok: false, key: big.key, used: 1e6, limit: 1e6 });
      expect(await s.reserve(fresh("r"), [{ ...crumb, limit: 1e6 + 1 }], NOV)).toEqual({ ok: true });
      const after = await s.peek([{ ...crumb, amount: 0, limit: 1e6 }], NOV);
      expect(after.ok).toBe(false);
      expect((after as { used: number }).used).toBeGreaterThan(1e6);
    });

    it("counter items that are not counts are input errors", async () => {
      const s = await make();
      await rejectsWith(() => s.reserve(fresh("r"), [{ ...wallet(1), amount: Number.NaN }], NOV), "InputError");
      await rejectsWith(() => s.peek([{ ...wallet(1), limit: -1 }], NOV), "InputError");
    });
  });
}
