/**
 * The check worker's side of approvals (issue 12), on the Node core and memory stores served on
 * 127.0.0.1 (the same app `wrangler dev` runs; page-worker.test.ts drives that one in Chromium):
 * a confirm becomes a record under the id its token names, with the counters before → after; a
 * decision is a receipt signed under the tenant key, once; the session history takes it; the
 * approved call marks the record spent; a remote `run(…, {wait})` continues on a decision and
 * runs nothing when the wait ends undecided. Tenants never see each other's records.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { serve, type ServerType } from "@hono/node-server";
import { Client } from "../../cli/sdk/index.js";
import { approvalIdOf } from "../../worker/portable/engine/index.js";
import { KEY_A, KEY_B, testApp } from "../worker/app-env.js";

const yaml = readFileSync(join(import.meta.dirname, "fixtures/refunds.yaml"), "utf8");
const origins = { order_id: "typed", amount: "model" };

let server: ServerType;
let url: string;
const t = testApp();

beforeAll(async () => {
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: (req) => t.app.fetch(req, t.env), hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  expect((await t.call("PUT", "/v1/catalogues/refunds", yaml, KEY_A, "application/yaml")).status).toBe(200);
});
afterAll(() => void server?.close());

async function api(method: string, path: string, body?: unknown, key: string = KEY_A, now?: number) {
  const r = await fetch(url + path, { method, headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...(now ? { "x-stalwart-now": String(now) } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  return { status: r.status, body: (await r.json()) as any };
}

async function confirmed(amount: number, session?: unknown) {
  const saved = session ?? (await api("POST", "/v1/sessions", { catalogue: "refunds", name: "w" })).body.session;
  const read = await api("POST", "/v1/sessions/read", { session: saved, text: `refund ${amount}` });
  const c = await api("POST", "/v1/check", { session: read.body.session, tool: "refund_card", args: { order_id: "4411", amount }, options: { origins } });
  expect(c.body.check.decision).toBe("confirm");
  return { session: c.body.session, check: c.body.check, id: approvalIdOf(c.body.check.confirmation) };
}

describe("approvals in the check worker", () => {
  it("a confirm is a record; approving signs a receipt once; the history takes it; the approved call spends it", async () => {
    const c = await confirmed(120);
    const got = await api("GET", `/v1/approvals/${c.id}`);
    expect(got.body.approval).toMatchObject({ status: "pending", used: false, receipt: null, record: { id: c.id, tool: "refund_card", args: { order_id: "4411", amount: 120 }, reasons: ["argument_origin"], origins: { amount: { origin: "model", labels: [] } }, counters: [{ before: 0, after: 120, ceiling: 500 }] } });
    expect(got.body.approval.record.wording).toContain("Allow refund_card?");
    const listed = await api("GET", "/v1/approvals");
    expect(listed.body.approvals.map((a: any) => a.record.id)).toContain(c.id);
    expect((await api("GET", "/v1/approvals", undefined, KEY_B)).body.approvals.map((a: any) => a.record.id), "another tenant's").not.toContain(c.id);
    expect((await api("GET", `/v1/approvals/${c.id}`, undefined, KEY_B)).status).toBe(404);

    const ok = await api("POST", `/v1/approvals/${c.id}/decide`, { decision: "approve", by: "ana", message: "fine" });
    expect(ok.body.receipt).toMatchObject({ decision: "approve", by: "ana", message: "fine", id: c.id });
    const twice = await api("POST", `/v1/approvals/${c.id}/decide`, { decision: "deny" });
    expect([twice.status, twice.body.error.code]).toEqual([409, "approval_decided"]);

    const forged = { ...ok.body.receipt, by: "mallory" };
    expect((await api("POST", "/v1/receipts", { session: c.session, receipt: forged })).status, "an edited receipt").toBe(400);
    const rec = await api("POST", "/v1/receipts", { session: c.session, receipt: ok.body.receipt });
    expect(rec.status).toBe(200);
    expect(rec.body.session.entries.at(-1)).toMatchObject({ kind: "receipt", decision: "approve", by: "ana", of: c.check.step });
    const run = await api("POST", "/v1/check", { session: rec.body.session, tool: "refund_card", args: { order_id: "4411", amount: 120 }, options: { origins, confirmation: c.check.confirmation } });
    expect(run.body.check).toMatchObject({ decision: "allow", reasons: ["confirmed"] });
    expect((await api("GET", `/v1/approvals/${c.id}`)).body.approval).toMatchObject({ status: "used", used: true });

    // the next confirm on the same spend tool shows what the first one spent
    const next = await confirmed(50, run.body.session);
    expect((await api("GET", `/v1/approvals/${next.id}`)).body.approval.record.counters).toEqual([{ counter: "spend refund_card (USD)", adds: 50, ceiling: 500, per: "month", before: 120, after: 170 }]);
  });

  it("a value from a result is recorded with the tool whose result it is (outside audit 25, F9)", async () => {
    const saved = (await api("POST", "/v1/sessions", { catalogue: "refunds", name: "w" })).body.session;
    const read = await api("POST", "/v1/sessions/read", { session: saved, text: "refund order 4411" });
    const order = await api("POST", "/v1/check", { session: read.body.session, tool: "get_order", args: { order_id: "4411" }, options: { origins: { order_id: "typed" } } });
    expect(order.body.check.decision).toBe("allow");
    const step = order.body.check.step;
    const rep = await api("POST", "/v1/report", { session: order.body.session, step, outcome: "ran", result: { total: 40, card: "c-1" } });
    const c = await api("POST", "/v1/check", { session: rep.body.session, tool: "refund_card", args: { order_id: "4411", amount: 40, note: "as asked" }, options: { origins: { order_id: "typed", amount: `result:${step}.total`, note: "model" } } });
    expect(c.body.check.decision).toBe("confirm");
    const got = await api("GET", `/v1/approvals/${approvalIdOf(c.body.check.confirmation)}`);
    expect(got.body.approval.record.origins.amount).toEqual({ origin: `result:${step}.total`, labels: [], tool: "get_order" });
  });

  it("a token presented with a call it does not cover leaves its approved record unspent", async () => {
    const c = await confirmed(70);
    await api("POST", `/v1/approvals/${c.id}/decide`, { decision: "approve", by: "ana" });
    const rec = await api("POST", "/v1/receipts", { session: c.session, receipt: (await api("GET", `/v1/approvals/${c.id}`)).body.approval.receipt });
    // a read allowed by itself, with the refund's token riding along: the token covers nothing here
    const read = await api("POST", "/v1/check", { session: rec.body.session, tool: "get_order", args: { order_id: "4411" }, options: { origins: { order_id: "typed" }, confirmation: c.check.confirmation } });
    expect(read.body.check).toMatchObject({ decision: "allow", detail: { confirmation: "other_call" } });
    expect((await api("GET", `/v1/approvals/${c.id}`)).body.approval, "nothing the token covers ran").toMatchObject({ status: "approved", used: false });
    const run = await api("POST", "/v1/check", { session: read.body.session, tool: "refund_card", args: { order_id: "4411", amount: 70 }, options: { origins, confirmation: c.check.confirmation } });
    expect(run.body.check).toMatchObject({ decision: "allow", reasons: ["confirmed"] });
    expect((await api("GET", `/v1/approvals/${c.id}`)).body.approval).toMatchObject({ status: "used", used: true });
  });

  it("a spent token does not cover the ask at its step in a history restarted since (a cut copy sent)", async () => {
    const c = await confirmed(80);
    const asked = c.session.entries.length - 1;
    const receipt = (await api("POST", `/v1/approvals/${c.id}/decide`, { decision: "approve", by: "ana" })).body.receipt;
    const rec = await api("POST", "/v1/receipts", { session: c.session, receipt });
    const refund = { tool: "refund_card", args: { order_id: "4411", amount: 80 } };
    const ran = await api("POST", "/v1/check", { session: rec.body.session, ...refund, options: { origins, confirmation: c.check.confirmation } });
    expect(ran.body.check).toMatchObject({ decision: "allow", reasons: ["confirmed"] });
    // a cut copy restarts the history (history_invalid); the same call asked again (a minute on) lands at the old ask's step
    const later = Date.now() + 60_000;
    const stale = await api("POST", "/v1/check", { session: { ...c.session, entries: c.session.entries.slice(0, asked) }, ...refund, options: { origins } }, KEY_A, later);
    expect(stale.body.check.reasons).toEqual(["history_invalid"]);
    let s = stale.body.session;
    while (s.entries.length < asked) s = (await api("POST", "/v1/sessions/read", { session: s, text: "refund 80" }, KEY_A, later)).body.session;
    const again = await api("POST", "/v1/check", { session: s, ...refund, options: { origins } }, KEY_A, later);
    expect([again.body.check.decision, again.body.check.step]).toEqual(["confirm", asked]);
    // the person approved one refund, which ran: the old token covers nothing here
    const replay = await api("POST", "/v1/check", { session: again.body.session, ...refund, options: { origins, confirmation: c.check.confirmation } }, KEY_A, later);
    expect(replay.body.check).toMatchObject({ decision: "confirm", detail: { confirmation: "no_ask" } });
  });

  it("a receipt names the ask it decided, not any ask at its step: a history restarted since does not take it", async () => {
    const c = await confirmed(85);
    const asked = c.session.entries.length - 1;
    const receipt = (await api("POST", `/v1/approvals/${c.id}/decide`, { decision: "approve", by: "ana" })).body.receipt;
    const refund = { tool: "refund_card", args: { order_id: "4411", amount: 85 } };
    // a cut copy restarts the history (history_invalid); the same call asked again (a minute on) lands at the old ask's step
    const later = Date.now() + 60_000;
    const stale = await api("POST", "/v1/check", { session: { ...c.session, entries: c.session.entries.slice(0, asked) }, ...refund, options: { origins } }, KEY_A, later);
    expect(stale.body.check.reasons).toEqual(["history_invalid"]);
    let s = stale.body.session;
    while (s.entries.length < asked) s = (await api("POST", "/v1/sessions/read", { session: s, text: "refund 85" }, KEY_A, later)).body.session;
    const again = await api("POST", "/v1/check", { session: s, ...refund, options: { origins } }, KEY_A, later);
    expect([again.body.check.decision, again.body.check.step]).toEqual(["confirm", asked]);
    // ana decided the first ask, never saw this one: the history must not say she approved it
    const old = await api("POST", "/v1/receipts", { session: again.body.session, receipt }, KEY_A, later);
    expect([old.status, old.body.error?.code]).toEqual([400, "invalid_request"]);
    expect(old.body.error.message).toContain("another ask at step");
    // the new ask's own receipt is taken
    const id = approvalIdOf(again.body.check.confirmation);
    const mine = (await api("POST", `/v1/approvals/${id}/decide`, { decision: "approve", by: "bo" }, KEY_A, later)).body.receipt;
    const rec = await api("POST", "/v1/receipts", { session: again.body.session, receipt: mine }, KEY_A, later);
    expect(rec.body.session.entries.at(-1)).toMatchObject({ kind: "receipt", by: "bo", of: asked });
  });

  it("the page's sign-in ends with the key it was made with: removed, or rotated to another key of the tenant", async () => {
    const page = (path: string, env: Record<string, unknown>, cookie = "", body?: unknown) =>
      t.app.request(`/approvals${path}`, body === undefined ? { headers: { cookie } } : { method: "POST", headers: { "stalwart-apply": "yes", origin: "http://localhost", "content-type": "application/json", cookie }, body: JSON.stringify(body) }, env);
    const login = await page("/login", t.env, "", { code: KEY_A, by: "ana" });
    expect(login.status).toBe(200);
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
    expect((await page("/", t.env, cookie)).status).toBe(200);
    const rotated = { ...t.env, STALWART_API_KEYS: `acme:key-acme-rotated-0123456789,globex:${KEY_B}` };
    expect((await page("/", rotated, cookie)).status, "the key it signed in with was rotated away").toBe(401);
    const removed = { ...t.env, STALWART_API_KEYS: `globex:${KEY_B}` };
    expect((await page("/", removed, cookie)).status, "the tenant has no key").toBe(401);
    // two keys of one tenant: each sign-in lasts while its own key does
    const both = { ...t.env, STALWART_API_KEYS: `acme:${KEY_A},acme:key-acme-second-0123456789,globex:${KEY_B}` };
    expect((await page("/", both, cookie)).status).toBe(200);
  });

  it("a denial is a receipt that lets nothing through; an expired record closes undecided", async () => {
    const c = await confirmed(10);
    const no = await api("POST", `/v1/approvals/${c.id}/decide`, { decision: "deny", message: "no" });
    expect(no.body.receipt).toMatchObject({ decision: "deny", by: "acme", message: "no" });
    expect((await api("GET", `/v1/approvals/${c.id}`)).body.approval.status).toBe("denied");
    // a caller that kept the token and presents it anyway: the receipt enters the history, the token covers nothing
    const kept = await api("POST", "/v1/check", { session: c.session, tool: "refund_card", args: { order_id: "4411", amount: 10 }, options: { origins, confirmation: c.check.confirmation } });
    expect(kept.body.check).toMatchObject({ decision: "confirm", detail: { confirmation: "denied" } });
    expect(kept.body.session.entries.filter((e: any) => e.kind === "receipt")).toMatchObject([{ decision: "deny", by: "acme", of: c.check.step }]);
    const late = await confirmed(11);
    const exp = (await api("GET", `/v1/approvals/${late.id}`)).body.approval.record.expires as number;
    expect((await api("GET", `/v1/approvals/${late.id}`, undefined, KEY_A, exp + 1)).body.approval.status).toBe("expired");
    const d = await api("POST", `/v1/approvals/${late.id}/decide`, { decision: "approve" }, KEY_A, exp + 1);
    expect([d.status, d.body.error.message]).toEqual([409, expect.stringContaining("expired")]);
    expect((await api("GET", "/v1/approvals/p_nothere")).status).toBe(400);
  });

  it("a remote run(…, {wait}) continues on the worker's decision, once; an undecided wait runs nothing", async () => {
    const s = new Client({ url, key: KEY_A, timeoutMs: 20_000 }).session("remote", { catalogue: "refunds" });
    await s.read("refund 30 on order 4411");
    const runs: unknown[] = [];
    const waiting = s.run("refund_card", { order_id: "4411", amount: 30 }, { origins, wait: 20_000 }, (a) => runs.push(a));
    let id: string | undefined;
    await expect.poll(async () => (id = (await api("GET", "/v1/approvals")).body.approvals.find((a: any) => a.status === "pending" && a.record.args.amount === 30)?.record.id), { timeout: 10_000 }).toBeDefined();
    await api("POST", `/v1/approvals/${id}/decide`, { decision: "approve", by: "ana" });
    const r = await waiting;
    expect(r).toMatchObject({ status: "ran", approval: id, receipt: { by: "ana", decision: "approve" } });
    expect(runs).toEqual([{ order_id: "4411", amount: 30 }]);
    expect(s.history.entries.filter((e) => e.kind === "receipt")).toHaveLength(1);
    expect((await api("GET", `/v1/approvals/${id}`)).body.approval.status).toBe("used");

    let ran = 0;
    const undecided = await s.run("refund_card", { order_id: "4411", amount: 31 }, { origins, wait: 300 }, () => void ran++);
    expect(undecided).toMatchObject({ status: "waiting", approval: approvalIdOf(undecided.check.confirmation!) });
    expect(ran).toBe(0);
    const denied = s.run("refund_card", { order_id: "4411", amount: 32 }, { origins, wait: 20_000 }, () => void ran++);
    await expect.poll(async () => (id = (await api("GET", "/v1/approvals")).body.approvals.find((a: any) => a.status === "pending" && a.record.args.amount === 32)?.record.id), { timeout: 10_000 }).toBeDefined();
    await api("POST", `/v1/approvals/${id}/decide`, { decision: "deny", by: "bob" });
    expect(await denied).toMatchObject({ status: "refused", receipt: { decision: "deny", by: "bob" } });
    expect(ran).toBe(0);
  }, 60_000);

  it("the page signs in with the tenant key; an edit there is checked again as a new call and needs its own approval", async () => {
    const page = (path: string, body: unknown, cookie = "") => fetch(`${url}/approvals${path}`, { method: "POST", headers: { "stalwart-apply": "yes", origin: url, "content-type": "application/json", ...(cookie ? { cookie } : {}) }, body: JSON.stringify(body) });
    expect((await page("/login", { code: "not-the-key-0123456789" })).status).toBe(401);
    const login = await page("/login", { code: KEY_A, by: "ana" });
    expect(login.status).toBe(200);
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
    const s = new Client({ url, key: KEY_A, timeoutMs: 20_000 }).session("edit", { catalogue: "refunds" });
    await s.read("refund 90 on order 4413");
    const runs: unknown[] = [];
    const waiting = s.run("refund_card", { order_id: "4413", amount: 90 }, { origins, wait: 20_000 }, (a) => runs.push(a));
    const pendingOf = async (amount: number) => (await api("GET", "/v1/approvals")).body.approvals.find((a: any) => a.status === "pending" && a.record.args.amount === amount)?.record.id as string | undefined;
    let id: string | undefined;
    await expect.poll(async () => (id = await pendingOf(90)), { timeout: 10_000 }).toBeDefined();
    expect((await page(`/p/${id}/edit`, { "arg:amount": "60" }, cookie)).status).toBe(200);
    let again: string | undefined;
    await expect.poll(async () => (again = await pendingOf(60)), { timeout: 10_000 }).toBeDefined();
    expect(runs, "nothing ran on the old record").toEqual([]);
    const edited = (await api("GET", `/v1/approvals/${again}`)).body.approval.record;
    expect(edited.origins.amount.origin).toBe("reply");
    expect((await page(`/p/${again}/decide`, { decision: "approve" }, cookie)).status).toBe(200);
    expect(await waiting).toMatchObject({ status: "ran", receipt: { by: "ana", decision: "approve" } });
    expect(runs).toEqual([{ order_id: "4413", amount: 60 }]);
    expect(s.history.entries.filter((e) => e.kind === "receipt").map((e) => (e as { decision: string }).decision)).toEqual(["edit", "approve"]);
  }, 60_000);
});
