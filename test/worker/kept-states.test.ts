/**
 * The session state an isolate holds (kept-states.ts, session-states.ts): a write check whose
 * carried history ends at the head this isolate last saw its session's object hold makes no load
 * call, and that can never change an answer. Two apps stand for two isolates: each its own
 * namespace object (so its own held states) over one set of session objects, here the engine's
 * MemoryStateStore behind the objects' wire form.
 */
import { describe, expect, it } from "vitest";
import { createApp } from "../../worker/workerd/check/app.js";
import { sessionStates, type SessionObject } from "../../worker/workerd/check/session-states.js";
import { KeptStates } from "../../worker/workerd/check/kept-states.js";
import { MemoryStateStore } from "../../worker/portable/engine/index.js";
import { nodeCore } from "../../cli/sdk/wasm-node.js";
import type { Stores } from "../../worker/workerd/check/stores.js";
import { storeYaml, testApp } from "./app-env.js";

type Saved = { entries: Record<string, unknown>[]; [k: string]: unknown };
type Answer = { session: Saved; check: { decision: string; reasons: string[]; detail: { why?: string } } };
const refund = { tool: "refund_card", args: { order_id: "4411", amount: 40 }, options: { origins: { order_id: "typed", amount: "model" } } };

/**
 * Session objects as the worker calls them (load, commit), counted; one MemoryStateStore each, with
 * the epoch the Durable Object keeps (session-state-object.ts): new at a restart, and a change
 * decided in another epoch refused as a moved head.
 */
function objects() {
  const stores = new Map<string, { store: MemoryStateStore; epoch: string }>();
  const calls = { load: 0, commit: 0 };
  let epochs = 0;
  const of = (name: string) => {
    let s = stores.get(name);
    if (!s) stores.set(name, (s = { store: new MemoryStateStore(), epoch: `e${epochs++}` }));
    return s;
  };
  /** the objects as an isolate calls them */
  const objectOf = (name: string): SessionObject => ({
    load: async () => {
      calls.load++;
      const o = of(name);
      const s = o.store.load("s");
      return { head: s.head, spent: [...s.spent], tallies: Object.entries(s.tallies), epoch: o.epoch };
    },
    // what crosses to the object is the checked change: its tallies as pairs
    commit: async (c) => {
      calls.commit++;
      const o = of(name);
      if (c.epoch !== undefined && c.epoch !== o.epoch) return { ok: false, why: "head", head: o.store.load("s").head };
      const { epoch: _, ...change } = c;
      const r = o.store.commit("s", { ...change, tally: Object.fromEntries(c.tally) });
      if (r.ok && c.expect === "restart") o.epoch = `e${epochs++}`;
      return r.ok ? { ...r, epoch: o.epoch } : r;
    },
  });
  /** an isolate's stores: its own held states over the one set of objects */
  const isolateStores = (base: Stores): Stores => {
    const held = new KeptStates();
    return { ...base, state: (tenant, carried) => sessionStates(tenant, objectOf, held, "recover", carried) };
  };
  return { calls, objectOf, isolateStores };
}

describe("the session state an isolate holds", () => {
  it("saves the load of a check from this isolate's own last answer, and answers as a load would when another isolate moved on", async () => {
    const base = testApp();
    const objs = objects();
    const isolate = () => {
      const stores = objs.isolateStores(base.stores);
      return createApp({ core: nodeCore, stores: () => stores });
    };
    const a = isolate();
    const b = isolate();
    const send = async (app: ReturnType<typeof createApp>, session: unknown) =>
      (await (await app.request("/v1/check", { method: "POST", headers: { authorization: "Bearer key-acme-0123456789abcdef", "content-type": "application/json" }, body: JSON.stringify({ session, ...refund }) }, base.env)).json()) as Answer;
    expect((await base.call("PUT", "/v1/catalogues/store", storeYaml, undefined, "application/yaml")).status).toBeLessThan(300);
    let session = ((await (await base.call("POST", "/v1/sessions", { catalogue: "store", name: "billing" })).json()) as { session: Saved }).session;

    // the first check loads (nothing held), the next ones of the same isolate do not
    let r = await send(a, session);
    expect(r.check.decision).toBe("confirm");
    r = await send(a, (session = r.session));
    const loads = objs.calls.load;
    for (let i = 0; i < 3; i++) {
      r = await send(a, (session = r.session));
      expect(r.check).toMatchObject({ decision: "confirm", reasons: ["argument_origin"] });
    }
    expect(objs.calls.load).toBe(loads);
    // a report (a commit without a load) keeps what is held moving: the next check loads nothing
    const reported = (await (await a.request("/v1/report", { method: "POST", headers: { authorization: "Bearer key-acme-0123456789abcdef", "content-type": "application/json" }, body: JSON.stringify({ session: r.session, step: r.session.entries.length - 1, outcome: "failed" }) }, base.env)).json()) as { session: Saved };
    r = await send(a, reported.session);
    expect(r.check).toMatchObject({ decision: "confirm", reasons: ["argument_origin"] });
    expect(objs.calls.load).toBe(loads);
    session = r.session;

    // another isolate answers the newest copy: the object moves on
    const moved = await send(b, session);
    expect(moved.check.decision).toBe("confirm");
    // the copy isolate `a` answered last (its held head) is now superseded: refused
    const stale = await send(a, session);
    // the same in a second world, where the isolate sent it holds nothing and loads
    const c = isolate();
    let other = ((await (await base.call("POST", "/v1/sessions", { catalogue: "store", name: "billing" })).json()) as { session: Saved }).session;
    while (other.entries.length < session.entries.length) other = (await send(a, other)).session;
    expect((await send(b, other)).check.decision).toBe("confirm");
    const loaded = await send(c, other);
    // the same answer, as a load would give it
    const shape = (x: Answer) => ({ ...x.check, confirmation: undefined, step: undefined });
    expect(stale.check).toMatchObject({ decision: "refuse", reasons: ["history_invalid"], detail: { why: "an older copy of this session: a newer history of it (8 entries) was answered" } });
    expect(shape(stale)).toEqual(shape(loaded));
  });

  it("never uses a held state for a history that ends elsewhere", async () => {
    const base = testApp();
    const objs = objects();
    const [sa, sb] = [objs.isolateStores(base.stores), objs.isolateStores(base.stores)];
    const a = createApp({ core: nodeCore, stores: () => sa });
    const b = createApp({ core: nodeCore, stores: () => sb });
    const send = async (app: ReturnType<typeof createApp>, session: unknown) =>
      (await (await app.request("/v1/check", { method: "POST", headers: { authorization: "Bearer key-acme-0123456789abcdef", "content-type": "application/json" }, body: JSON.stringify({ session, ...refund }) }, base.env)).json()) as Answer;
    expect((await base.call("PUT", "/v1/catalogues/store", storeYaml, undefined, "application/yaml")).status).toBeLessThan(300);
    const created = ((await (await base.call("POST", "/v1/sessions", { catalogue: "store", name: "billing" })).json()) as { session: Saved }).session;
    const one = await send(a, created);
    const two = await send(a, one.session); // `a` holds the head of two.session
    // `b` answers it twice: the object is two heads past what `a` holds
    const three = await send(b, two.session);
    const four = await send(b, three.session);
    const loads = objs.calls.load;
    // the newest copy, sent to `a`: its held state is not that head's, so it loads, and accepts
    const five = await send(a, four.session);
    expect(five.check).toMatchObject({ decision: "confirm", reasons: ["argument_origin"] });
    expect(objs.calls.load).toBe(loads + 1);
  });

  it("holds at most its budget of names, the least recently used sessions going first", () => {
    const kept = new KeptStates(6);
    const state = (link: string, names: number) => ({ head: { count: 1, link }, spent: new Set(Array.from({ length: names }, (_, i) => `n${i}`)), tallies: {}, epoch: "e" });
    kept.set("a", state("la", 1)); // 2 items
    kept.set("b", state("lb", 1)); // 4
    expect(kept.get("a", { count: 1, link: "la" })).toBeDefined(); // a is the most recent
    expect(kept.get("a", { count: 1, link: "other" })).toBeUndefined(); // another head: not this state
    expect(kept.get("a", { count: 2, link: "la" })).toBeUndefined();
    kept.set("c", state("lc", 2)); // 7 > 6: b goes
    expect(kept.get("b", { count: 1, link: "lb" })).toBeUndefined();
    expect(kept.get("a", { count: 1, link: "la" })).toBeDefined();
    kept.set("d", state("ld", 6)); // over the budget alone: not kept
    expect(kept.get("d", { count: 1, link: "ld" })).toBeUndefined();
  });

  it("refuses a change decided on a held head that came back after a restart, over tallies that moved on", async () => {
    const objs = objects();
    const H = (n: number, link: string) => ({ count: n, link });
    const [h1, h2, h3] = [H(1, "a".repeat(64)), H(2, "b".repeat(64)), H(3, "c".repeat(64))];
    const heldA = new KeptStates();
    const heldB = new KeptStates();
    // isolate A: starts the session, loads it at h1, commits h2 with a tally: it holds h2
    await sessionStates("t", objs.objectOf, heldA, "recover").commit("s", { expect: "restart", next: h1 });
    const a1 = sessionStates("t", objs.objectOf, heldA, "recover", () => h1);
    await a1.load("s");
    expect(await a1.commit("s", { expect: h1, next: h2, tally: { "at_most:pay": 1 } })).toEqual({ ok: true });
    // isolate B: a restarted history replayed entry for entry reaches h2 again; the tally outlives it
    const b = sessionStates("t", objs.objectOf, heldB, "recover");
    expect(await b.commit("s", { expect: "restart", next: h1 })).toEqual({ ok: true });
    expect(await b.commit("s", { expect: h1, next: h2, tally: { "at_most:pay": 1 } })).toEqual({ ok: true });
    // A is sent a history ending at h2: it answers the load from what it holds (no call)...
    const loads = objs.calls.load;
    const a2 = sessionStates("t", objs.objectOf, heldA, "recover", () => h2);
    expect((await a2.load("s")).tallies).toEqual({ "at_most:pay": 1 });
    expect(objs.calls.load).toBe(loads);
    // ...but what it decided on is not the object's state (the tally is 2 there): the commit is refused
    expect(await a2.commit("s", { expect: h2, next: h3 })).toEqual({ ok: false, why: "head", head: h2 });
    // and holds nothing since: the next request loads, and sees the tally the object holds
    const a3 = sessionStates("t", objs.objectOf, heldA, "recover", () => h2);
    expect((await a3.load("s")).tallies).toEqual({ "at_most:pay": 2 });
    expect(objs.calls.load).toBe(loads + 1);
    expect(await a3.commit("s", { expect: h2, next: h3 })).toEqual({ ok: true });
  });
});
