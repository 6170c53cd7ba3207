/**
 * The session-state and counter Durable Objects through a real `wrangler dev`, called through the
 * worker's test-only routes (worker/workerd/check/test-routes.ts) until the session code uses
 * them: the shared store cases (50 concurrent commits expecting one head included), a duplicate
 * reservation id refused, the counter object's storage pruned back to what is live, and the
 * approvals object's standing index and its one-record-per-id add; the catalogue object keeps a
 * rulebook's format.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { approvalIdOf, compileRulebook, type CounterItem } from "../../worker/portable/engine/index.js";
import { nameLast, richCsv } from "../helpers/rulebook-csv.js";
import { startCheckWorker, type RunningWorker } from "../helpers/check-worker.js";
import { storeCases, type Stores } from "../state/store-cases.js";

let worker: RunningWorker;
beforeAll(async () => {
  worker = await startCheckWorker(["cases", "bound"]);
}, 120_000);
afterAll(async () => {
  await worker?.stop();
});

async function post<T>(key: string, path: string, body: unknown): Promise<T> {
  const r = await fetch(worker.url + path, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  const j = (await r.json()) as T & { error?: { code: string; message: string } };
  if (j.error) throw Object.assign(new Error(j.error.message), { code: j.error.code });
  return j;
}

function httpStores(key: () => string): Stores {
  return {
    load: async (session) => {
      const j = await post<{ head: null; spent: string[]; tallies: Record<string, number> }>(key(), "/__test/state/load", { session });
      return { head: j.head, spent: new Set(j.spent), tallies: j.tallies };
    },
    commit: (session, change) => post(key(), "/__test/state/commit", { session, change }),
    reserve: (id, items, now) => post(key(), "/__test/counters/reserve", { id, items, now }),
    peek: (items, now) => post(key(), "/__test/counters/peek", { items, now }),
    release: async (id, now) => void (await post(key(), "/__test/counters/release", { id, now })),
  };
}

storeCases("durable objects under wrangler dev", () => httpStores(() => worker.keys[0]!));

describe("the counter object keeps its storage bounded", () => {
  it("prunes counters of ended periods, idle counters and spent reservations a few rows per write", async () => {
    const s = httpStores(() => worker.keys[1]!);
    const rows = () => fetch(worker.url + "/__test/counters/rows", { headers: { authorization: `Bearer ${worker.keys[1]}` } }).then((r) => r.json() as Promise<{ counters: number; reservations: number }>);
    const OCT = Date.UTC(2026, 9, 15);
    const month = (n: number, now: number): CounterItem => ({ key: `spend|p${n}|USD|month|${new Date(now).toISOString().slice(0, 7)}`, amount: 1, limit: 10, until: Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth() + 1, 1) });
    const session: CounterItem = { key: "rate|ping|session|s:idle", amount: 1, limit: 1000, until: 0 };
    for (let i = 0; i < 60; i++) expect(await s.reserve(`oct-${i}`, [month(i, OCT), session], OCT)).toEqual({ ok: true });
    expect(await rows()).toEqual({ counters: 61, reservations: 60 });
    // The same id again: refused as input, nothing counted.
    await expect(s.reserve("oct-1", [month(1, OCT)], OCT)).rejects.toMatchObject({ code: "InputError" });
    // Two months on: every October row has ended (and the session counter sat idle past IDLE_MS).
    const DEC = Date.UTC(2026, 11, 15);
    for (let i = 0; i < 10; i++) expect(await s.reserve(`dec-${i}`, [month(0, DEC)], DEC)).toEqual({ ok: true });
    expect(await rows()).toEqual({ counters: 1, reservations: 10 });
    // What is live still counts; the idle session's counter went with its rows.
    expect(await s.peek([month(0, DEC)], DEC)).toEqual({ ok: false, key: month(0, DEC).key, used: 10, limit: 10 });
    expect(await s.peek([{ ...session, amount: 1000 }], DEC)).toEqual({ ok: true });
  }, 120_000);
});

describe("the approvals object", () => {
  it("finds a standing approval through its index: the same call again is approved at once, another is not", async () => {
    const key = worker.keys[0]!;
    const yaml = readFileSync(join(import.meta.dirname, "../approvals/fixtures/refunds.yaml"), "utf8");
    const put = await fetch(worker.url + "/v1/catalogues/refunds", { method: "PUT", headers: { authorization: `Bearer ${key}`, "content-type": "application/yaml" }, body: yaml });
    expect(put.status).toBe(200);
    const api = async (method: string, path: string, body?: unknown) => (await (await fetch(worker.url + path, { method, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })).json()) as any;
    let session = (await api("POST", "/v1/sessions", { catalogue: "refunds", name: "standing" })).session;
    session = (await api("POST", "/v1/sessions/read", { session, text: "refund 120 and 130 on order 4411" })).session;
    const confirm = async (amount: number) => {
      const c = await api("POST", "/v1/check", { session, tool: "refund_card", args: { order_id: "4411", amount }, options: { origins: { order_id: "typed", amount: "model" } } });
      expect(c.check.decision).toBe("confirm");
      session = c.session;
      return approvalIdOf(c.check.confirmation);
    };
    const first = await confirm(120);
    expect((await api("POST", `/v1/approvals/${first}/decide`, { decision: "approve", by: "ana", always: true })).receipt).toMatchObject({ always: true });
    const again = await confirm(120);
    expect((await api("GET", `/v1/approvals/${again}`)).approval).toMatchObject({ status: "approved", receipt: { by: "ana", message: `always for this session (${first})` } });
    const other = await confirm(130);
    expect((await api("GET", `/v1/approvals/${other}`)).approval.status, "another digest").toBe("pending");
  }, 60_000);
});

describe("the approvals object adds a record once per id", () => {
  const record = (id: string, created: number) => ({
    v: 1, id, session: "s-once", step: 1, tool: "refund_card", agent: null, args: { amount: 1 }, digest: "d-once",
    origins: {}, reasons: ["money"], wording: "", counters: [], token: "t", created, expires: created + 60_000,
  });
  it("a second add of an id is refused, by either call; a new id is added and finds no standing approval", async () => {
    const key = worker.keys[0]!;
    const now = Date.now();
    expect(await post(key, "/__test/approvals/add", { record: record("p_00000000000000a1", now) })).toEqual({ ok: true });
    await expect(post(key, "/__test/approvals/add", { record: record("p_00000000000000a1", now) })).rejects.toMatchObject({ message: expect.stringContaining("exists") });
    await expect(post(key, "/__test/approvals/add-and-find-standing", { record: record("p_00000000000000a1", now) })).rejects.toMatchObject({ message: expect.stringContaining("exists") });
    expect(await post(key, "/__test/approvals/add-and-find-standing", { record: record("p_00000000000000a2", now) })).toEqual({ ok: true, standing: null });
    await expect(post(key, "/__test/approvals/add-and-find-standing", { record: record("p_00000000000000a2", now) })).rejects.toMatchObject({ message: expect.stringContaining("exists") });
    // and a record a week past its expiry, undecided, is pruned by a later add (the indexed prune)
    expect(await post(key, "/__test/approvals/add", { record: record("p_00000000000000a3", now - 9 * 86_400_000) })).toEqual({ ok: true });
    expect(await post(key, "/__test/approvals/add", { record: record("p_00000000000000a4", now) })).toEqual({ ok: true });
    expect(await post(key, "/__test/approvals/add", { record: record("p_00000000000000a3", now) }), "pruned: its id is free again").toEqual({ ok: true });
    // a record added now is pruned by an add a week past its expiry: the object knows when its
    // first undecided record expires, and prunes only once one can be due
    expect(await post(key, "/__test/approvals/add", { record: record("p_00000000000000a5", now) })).toEqual({ ok: true });
    expect(await post(key, "/__test/approvals/add", { record: record("p_00000000000000a6", now + 86_400_000) })).toEqual({ ok: true });
    await expect(post(key, "/__test/approvals/add", { record: record("p_00000000000000a5", now + 86_400_000) }), "a day on: kept").rejects.toMatchObject({ message: expect.stringContaining("exists") });
    expect(await post(key, "/__test/approvals/add", { record: record("p_00000000000000a7", now + 9 * 86_400_000) })).toEqual({ ok: true });
    expect(await post(key, "/__test/approvals/add", { record: record("p_00000000000000a5", now + 9 * 86_400_000) }), "nine days on: pruned").toEqual({ ok: true });
  }, 60_000);
});

describe("the approvals object lists what waits", () => {
  it("a record still waiting is listed however many newer ones are closed", async () => {
    const key = worker.keys[1]!;
    const now = Date.now();
    const record = (id: string, created: number, expires: number) => ({
      v: 1, id, session: "s-list", step: 1, tool: "refund_card", agent: null, args: { amount: 1 }, digest: "d-list",
      origins: {}, reasons: ["money"], wording: "", counters: [], token: "t", created, expires,
    });
    const waiting = "p_00000000000b0000";
    expect(await post(key, "/__test/approvals/add", { record: record(waiting, now - 60_000, now + 86_400_000) })).toEqual({ ok: true });
    // 200 newer records, each expired undecided at once: the list's 200 newest
    for (let i = 0; i < 200; i += 20) {
      await Promise.all(Array.from({ length: 20 }, (_, j) => post(key, "/__test/approvals/add", { record: record(`p_00000000000b${(i + j + 1).toString(16).padStart(4, "0")}`, now - 30_000 + i + j, now - 30_000 + i + j + 1) })));
    }
    const r = await fetch(worker.url + "/v1/approvals", { headers: { authorization: `Bearer ${key}` } });
    const listed = ((await r.json()) as { approvals: { record: { id: string }; status: string }[] }).approvals;
    expect(listed.filter((a) => a.status === "pending").map((a) => a.record.id)).toEqual([waiting]);
    expect(listed.filter((a) => a.status === "expired")).toHaveLength(200);
    expect(listed.at(-1)!.record.id, "newest first").toBe(waiting);
  }, 60_000);
});

describe("the catalogue object keeps a rulebook's format", () => {
  it("a CSV rulebook whose header does not start with `name` registers as CSV and starts a session", async () => {
    const key = worker.keys[0]!;
    const put = (path: string, body: string, type: string) => fetch(worker.url + path, { method: "PUT", headers: { authorization: `Bearer ${key}`, "content-type": type }, body });
    const rulebook = await put("/v1/rulebooks/turned", nameLast(richCsv), "text/csv");
    const rb = (await rulebook.json()) as { digest: string; rules: number };
    expect(rulebook.status, JSON.stringify(rb)).toBe(200);
    expect(rb.digest).toBe(compileRulebook(richCsv, { file: "rich.csv" }).digest);
    expect((await put("/v1/catalogues/store", readFileSync(join(import.meta.dirname, "../../examples/store/agent.yaml"), "utf8"), "application/yaml")).status).toBe(200);
    const s = await post<{ session: { rulebook: string } }>(key, "/v1/sessions", { catalogue: "store", name: "t", rulebook: "turned" });
    expect(s.session.rulebook).toBe(rb.digest);
  });
});
