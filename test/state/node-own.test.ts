/**
 * A check decided on what this handle's own last commit left (`ownState`, no store read) is
 * committed with `basis: "own"`: the commit writes only while the session's head, tallies and
 * spent names are still what that state said, and answers `moved` otherwise — even when the head
 * alone came back to the same value (a restarted history replayed entry for entry). Then the
 * engine loads and decides again (worker/portable/engine/session.ts, checkToolCall).
 */
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nodeState } from "../../cli/sdk/state/index.js";
import type { CounterItem } from "../../worker/portable/engine/index.js";
import { Client } from "../../cli/sdk/index.js";
import { licensedHome } from "../helpers/licensed-home.js";

const NOV = Date.UTC(2026, 10, 15);
const link = (n: number) => n.toString(16).padStart(64, "0");
const head = (n: number) => (n === 0 ? { count: 0, link: "" } : { count: n, link: link(n) });
const item: CounterItem = { key: "spend|wallet|USD|month|2026-11", amount: 10, limit: 100, until: Date.UTC(2026, 11, 1) };

function two() {
  const home = mkdtempSync(join(tmpdir(), "stalwart-own-"));
  return [nodeState(home, { now: () => NOV }), nodeState(home, { now: () => NOV })] as const;
}

/** Two handles; `a` committed the session to head 2 after a load, so it keeps its own state of it. */
function keptAtTwo(): ReturnType<typeof two> {
  const [a, b] = two();
  a.commit("s", { expect: head(0), next: head(1) });
  a.load("s");
  a.commit("s", { expect: head(1), next: head(2) });
  return [a, b];
}

describe("the Node store's own state", () => {
  it("is what this handle's commit left, and only that", () => {
    const [a, b] = two();
    expect(a.ownState("s")).toBeUndefined();
    expect(a.commit("s", { expect: head(0), next: head(1), tally: { "count:pay": 1 } })).toEqual({ ok: true });
    // The first commit of a session read its row under the lock: nothing kept of it yet.
    expect(a.load("s").head).toEqual(head(1));
    expect(a.ownState("s")).toBeUndefined();
    expect(a.commit("s", { expect: head(1), next: head(2), spend: ["ask:x"] })).toEqual({ ok: true });
    const own = a.ownState("s")!;
    expect(own.head).toEqual(head(2));
    expect([...own.spent]).toEqual(["ask:x"]);
    expect(own.tallies["count:pay"]).toBe(1);
    expect(b.ownState("s")).toBeUndefined();
    expect(a.commit("s", { expect: head(2), next: head(3), basis: "own" })).toEqual({ ok: true });
  });

  it("a commit on it refuses when another handle moved the session", () => {
    const [a, b] = keptAtTwo();
    expect(b.commit("s", { expect: head(2), next: head(3), tally: { "count:pay": 1 } })).toEqual({ ok: true });
    expect(a.ownState("s")!.head).toEqual(head(2)); // from memory: not current, and not proven
    expect(a.commit("s", { expect: head(2), next: head(3), basis: "own" })).toEqual({ ok: false, why: "moved" });
    expect(a.ownState("s")).toBeUndefined();
    expect(a.load("s").head).toEqual(head(3));
  });

  it("a head that came back to the same value over moved tallies is not the same session", () => {
    const [a, b] = keptAtTwo();
    expect(b.commit("s", { expect: head(2), next: head(3), tally: { "count:pay": 1 } })).toEqual({ ok: true });
    expect(b.commit("s", { expect: "restart", next: head(2) })).toEqual({ ok: true }); // the same head again
    // The head alone would pass; the tallies the decision read are not the store's.
    expect(a.commit("s", { expect: head(2), next: head(3), basis: "own" })).toEqual({ ok: false, why: "moved" });
    expect(a.load("s").tallies["count:pay"]).toBe(1);
    expect(a.commit("s", { expect: head(2), next: head(3) })).toEqual({ ok: true });
  });

  it("a spent name added meanwhile is a moved session too", () => {
    const [a, b] = keptAtTwo();
    b.commit("s", { expect: head(2), next: head(3), spend: ["ask:y"] });
    b.commit("s", { expect: "restart", next: head(2) });
    expect(a.commit("s", { expect: head(2), next: head(3), basis: "own" })).toEqual({ ok: false, why: "moved" });
  });

  it("other writes to the home (counters, other sessions) leave it usable: the rows are compared under the lock", () => {
    const [a, b] = two();
    a.commit("s", { expect: head(0), next: head(1) });
    a.load("s");
    a.commit("s", { expect: head(1), next: head(2), spend: ["ask:x"], tally: { "count:pay": 1 } });
    expect(b.reserve(link(99), [item], NOV).ok).toBe(true);
    b.commit("other", { expect: head(0), next: head(1) });
    expect(a.commit("s", { expect: head(2), next: head(3), basis: "own" })).toEqual({ ok: true });
    expect(a.load("s").head).toEqual(head(3));
  });

  it("a check after this session's own commits reads nothing from the store before its commit", async () => {
    const client = new Client({ home: licensedHome("own-loads") });
    const catalogue = new URL("../../examples/store/agent.yaml", import.meta.url).pathname;
    const store = (client as unknown as { engine(): { state: { load(id: string): unknown } } }).engine().state;
    const s = client.session("own", { catalogue });
    await s.read("consulte o pedido 4411");
    const call = () => s.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "typed" } });
    await s.report((await call()).step, "ran", { order_id: "4411" });
    let loads = 0;
    const load = store.load.bind(store);
    store.load = (id: string) => (loads++, load(id));
    const c = await call();
    expect(c.decision).toBe("allow");
    await s.report(c.step, "ran", { order_id: "4411" });
    expect(loads).toBe(0);
    client.close();
  });

  it("a counted call is decided on a load, and counted once", async () => {
    const client = new Client({ home: licensedHome("own-counted") });
    const catalogue = new URL("../fixtures/ceiling.yaml", import.meta.url).pathname;
    const store = (client as unknown as { engine(): { state: { load(id: string): unknown } } }).engine().state;
    const s = client.session("own", { catalogue });
    await s.read("ping");
    await s.report((await s.checkToolCall("ping", { n: 1 })).step, "ran", {});
    let loads = 0;
    const load = store.load.bind(store);
    store.load = (id: string) => (loads++, load(id));
    const c = await s.checkToolCall("ping", { n: 2 });
    expect(c.decision).toBe("allow");
    expect(loads).toBe(1);
    await s.report(c.step, "ran", {});
    client.close();
  });

  it("a store damaged since this session's own commit: the check refuses as one on a load does", async () => {
    const home = licensedHome("own-damage");
    const client = new Client({ home });
    const catalogue = new URL("../../examples/store/agent.yaml", import.meta.url).pathname;
    const s = client.session("own", { catalogue });
    await s.read("consulte o pedido 4411");
    const call = () => s.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "typed" } });
    await s.report((await call()).step, "ran", { order_id: "4411" });
    const steps = s.history.entries.length;
    // Zeroed in place: the check's commit finds it (no load came first), and the load's pass answers.
    writeFileSync(join(home, "state.mdb"), Buffer.alloc(statSync(join(home, "state.mdb")).size));
    const c = await call();
    expect(c.decision).toBe("refuse");
    expect(c.reasons).toEqual(["internal_error"]);
    expect(c.detail.error).toBe("CounterStoreDamaged");
    expect(s.history.entries.length).toBe(steps + 1);
    client.close();
  });

  it("copies of a saved session: a check on own state answers as one on a load did", async () => {
    const home = licensedHome("own-copies");
    const catalogue = new URL("../../examples/store/agent.yaml", import.meta.url).pathname;
    const c1 = new Client({ home });
    const c2 = new Client({ home });
    const a = c1.session("own", { catalogue });
    await a.read("consulte o pedido 4411");
    const first = await a.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "typed" } });
    await a.report(first.step, "ran", { order_id: "4411", status: "paid", total: 40, card: "visa-4242" });
    const b = c2.resume(JSON.parse(JSON.stringify(a.toJSON())), { catalogue });
    // a's next check runs on its own state; b's copy moves the session first.
    expect((await b.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "typed" } })).decision).toBe("allow");
    const late = await a.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "typed" } });
    expect(late.decision).toBe("refuse");
    expect(late.reasons).toContain("history_invalid");
    // and the history a restarted holds nothing of the pass decided on its own state
    expect(a.history.entries.length).toBe(1);
    c1.close();
    c2.close();
  });
});
