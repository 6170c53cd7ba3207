/**
 * The delta form of a carried session (worker/workerd/check/carried.ts): a request with `since: k`
 * leaves out the first k entries, which the isolate holds; the answer returns only the entries from
 * k on. What the caller puts together is the whole signed history (it resumes in full anywhere);
 * an isolate that does not hold the entries answers 409 `session_history_needed` and the SDK sends
 * the session in full; the session's full size stays bounded by the body limit in either form.
 */
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../../cli/sdk/index.js";
import { createApp } from "../../worker/workerd/check/app.js";
import { nodeCore } from "../../cli/sdk/wasm-node.js";
import { KEY_A, storeYaml, testApp } from "./app-env.js";

type Saved = { entries: Record<string, unknown>[]; since?: number; [k: string]: unknown };
type Answer = { session: Saved; check?: { decision: string; reasons: string[]; detail: Record<string, unknown> }; error?: { code: string; pointer?: string } };
const refund = { tool: "refund_card", args: { order_id: "4411", amount: 40 }, options: { origins: { order_id: "typed", amount: "model" } } };

async function started(call: ReturnType<typeof testApp>["call"]): Promise<Saved> {
  expect((await call("PUT", "/v1/catalogues/store", storeYaml, undefined, "application/yaml")).status).toBeLessThan(300);
  const s = ((await (await call("POST", "/v1/sessions", { catalogue: "store", name: "billing" })).json()) as Answer).session;
  return ((await (await call("POST", "/v1/sessions/read", { session: s, text: "estorne 40,00 do pedido 4411" })).json()) as Answer).session;
}

/** The caller's side of the delta form: left out, then appended. */
const delta = (s: Saved): Saved => ({ ...s, entries: [], since: s.entries.length });
function joined(mine: Saved, answer: Saved): Saved {
  const { since, ...rest } = answer;
  return { ...rest, entries: [...mine.entries.slice(0, since ?? 0), ...answer.entries] };
}

describe("the delta form of a carried session", () => {
  it("answers only the new entries, and what the caller joins is the whole signed history", async () => {
    const { call, stores, env } = testApp();
    let full = await started(call);
    for (let k = 0; k < 6; k++) {
      const r = await call("POST", "/v1/check", { session: delta(full), ...refund });
      const a = (await r.json()) as Answer;
      expect(r.status).toBe(200);
      expect(a.check?.decision).toBe("confirm");
      expect(a.session.since).toBe(full.entries.length);
      expect(a.session.entries.map((e) => e.step)).toEqual([full.entries.length]);
      full = joined(full, a.session);
    }
    const rep = (await (await call("POST", "/v1/report", { session: delta(full), step: 6, outcome: "failed" })).json()) as Answer & { step: number };
    expect(rep.session.entries).toHaveLength(1);
    full = joined(full, rep.session);
    expect(full.entries.map((e) => e.step)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // the joined session is the newest one in full: a fresh isolate on the same stores verifies it all
    const other = createApp({ core: nodeCore, stores: () => stores });
    const r = await other.request("/v1/check", { method: "POST", headers: { authorization: `Bearer ${KEY_A}`, "content-type": "application/json" }, body: JSON.stringify({ session: full, ...refund }) }, env);
    const again = (await r.json()) as Answer;
    expect(again.check).toMatchObject({ decision: "confirm", reasons: ["argument_origin"] });
    expect(again.session.since).toBeUndefined();
    expect(again.session.entries).toHaveLength(9);
  });

  it("an isolate that does not hold the entries left out answers 409 session_history_needed", async () => {
    const warm = testApp();
    const full = await started(warm.call);
    const cold = createApp({ core: nodeCore, stores: () => warm.stores });
    const r = await cold.request("/v1/check", { method: "POST", headers: { authorization: `Bearer ${KEY_A}`, "content-type": "application/json" }, body: JSON.stringify({ session: delta(full), ...refund }) }, warm.env);
    expect(r.status).toBe(409);
    expect(((await r.json()) as Answer).error).toMatchObject({ code: "session_history_needed", pointer: "/session/since" });
    // more than it holds, or not a count
    const more = (await (await warm.call("POST", "/v1/check", { session: { ...delta(full), since: full.entries.length + 3 }, ...refund })).json()) as Answer;
    expect(more.error?.code).toBe("session_history_needed");
    for (const since of [-1, 1.5, "2"]) {
      const bad = await warm.call("POST", "/v1/check", { session: { ...delta(full), since }, ...refund });
      expect(bad.status, String(since)).toBe(400);
      expect(((await bad.json()) as Answer).error, String(since)).toMatchObject({ code: "invalid_request", pointer: "/session/since" });
    }
  });

  it("entries carried after `since` are verified: an edited or forged one is history_invalid", async () => {
    const { call } = testApp();
    const full = await started(call);
    const a = (await (await call("POST", "/v1/check", { session: delta(full), ...refund })).json()) as Answer;
    const next = joined(full, a.session);
    // carry the last entry (edited) after a `since` that leaves it out of what the worker holds
    const edited = JSON.parse(JSON.stringify(next)) as Saved;
    edited.entries[1]!.decision = "allow";
    const r = (await (await call("POST", "/v1/check", { session: { ...edited, entries: edited.entries.slice(1), since: 1 }, ...refund })).json()) as Answer;
    expect(r.check?.reasons).toEqual(["history_invalid"]);
    // and the answer after a restart is the new history in full
    expect(r.session.since).toBeUndefined();
    expect(r.session.entries.map((e) => e.step)).toEqual([0]);
  });

  it("a session over the body limit in full is 413 body_too_large in the delta form too", async () => {
    const base = testApp();
    const small = createApp({ core: nodeCore, stores: () => base.stores, maxBodyBytes: 12_000 });
    const call = (path: string, body: unknown) =>
      small.request(path, { method: "POST", headers: { authorization: `Bearer ${KEY_A}`, "content-type": "application/json" }, body: JSON.stringify(body) }, base.env);
    let full = await started(base.call);
    // full once, so this isolate holds it; then the delta form until the full form is over the limit
    let r = await call("/v1/check", { session: full, ...refund });
    full = ((await r.json()) as Answer).session;
    let status = 200;
    while (status === 200) {
      r = await call("/v1/check", { session: delta(full), ...refund });
      status = r.status;
      if (status === 200) full = joined(full, ((await r.json()) as Answer).session);
    }
    expect(status).toBe(413);
    expect(((await r.json()) as Answer).error?.code).toBe("body_too_large");
    // the same session in full: over the limit by itself (the bound is the same in both forms)
    expect(JSON.stringify({ session: full, ...refund }).length).toBeGreaterThan(12_000);
    expect((await call("/v1/check", { session: full, ...refund })).status).toBe(413);
  });

  it("a turn that would take the session over the limit in full is 413 in the delta form, and the session goes on (outside audit 14, F2)", async () => {
    const base = testApp();
    const small = createApp({ core: nodeCore, stores: () => base.stores, maxBodyBytes: 12_000 });
    const call = (path: string, body: unknown) =>
      small.request(path, { method: "POST", headers: { authorization: `Bearer ${KEY_A}`, "content-type": "application/json" }, body: JSON.stringify(body) }, base.env);
    let full = ((await (await call("/v1/check", { session: await started(base.call), ...refund })).json()) as Answer).session; // held by this isolate
    const text = "x".repeat(12_000 - JSON.stringify(full).length + 500);
    expect(JSON.stringify({ session: delta(full), text }).length).toBeLessThan(12_000); // the delta body fits by itself
    expect((await call("/v1/sessions/read", { session: full, text })).status).toBe(413); // the same turn in full
    const r = await call("/v1/sessions/read", { session: delta(full), text });
    expect(r.status).toBe(413);
    expect(((await r.json()) as Answer).error).toMatchObject({ code: "body_too_large", pointer: "/session" });
    // nothing was recorded: the session's next request, in either form, goes on from where it was
    const next = await call("/v1/check", { session: delta(full), ...refund });
    expect(next.status).toBe(200);
    const a = (await next.json()) as Answer & { check: { step: number } };
    expect(a.check.reasons).not.toContain("history_invalid");
    full = joined(full, a.session);
    expect(a.check.step).toBe(full.entries.length - 1);
    expect((await call("/v1/check", { session: full, ...refund })).status).toBe(200);
  });
});

describe("the SDK over HTTP", () => {
  const catalogue = join(import.meta.dirname, "../../examples/store/agent.yaml");
  let server: Server;
  let url = "";
  const bodies: number[] = [];
  let app: ReturnType<typeof createApp>;
  let env: Record<string, unknown>;
  let stores: ReturnType<typeof testApp>["stores"];
  /** a worker from before the delta form: its answers do not say it takes it */
  let older = false;
  /** a new isolate on the same stores: it holds no session */
  const restart = () => void (app = createApp({ core: nodeCore, stores: () => stores }));
  beforeAll(async () => {
    const t = testApp();
    app = t.app;
    env = t.env;
    stores = t.stores;
    server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks);
      if (req.url === "/v1/check") bodies.push(body.length);
      const r = await app.request(req.url!, { method: req.method!, headers: req.headers as Record<string, string>, ...(chunks.length ? { body } : {}) }, env);
      const forms = r.headers.get("stalwart-session-forms");
      res.writeHead(r.status, { "content-type": r.headers.get("content-type") ?? "application/json", ...(forms && !older ? { "stalwart-session-forms": forms } : {}) });
      res.end(await r.text());
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => server?.close());

  it("sends what the worker does not hold: the request stays the same size as the history grows", async () => {
    const client = new Client({ url, key: KEY_A, timeoutMs: 10_000 });
    const s = client.session("billing", { catalogue });
    await s.read("estorne 40,00 do pedido 4411");
    bodies.length = 0;
    for (let k = 0; k < 30; k++) expect((await s.checkToolCall(refund.tool, refund.args, refund.options)).decision).toBe("confirm");
    expect(s.history.entries).toHaveLength(31);
    expect(bodies[29]! - bodies[1]!).toBeLessThan(50); // the same request, whatever the length
    // the whole signed history: resumed by another client on a fresh isolate, it verifies in full
    const saved = s.toJSON();
    expect(saved.entries).toHaveLength(31);
    restart();
    const resumed = new Client({ url, key: KEY_A, timeoutMs: 10_000 }).resume(saved, { catalogue });
    expect((await resumed.checkToolCall(refund.tool, refund.args, refund.options)).decision).toBe("confirm");
    expect(resumed.history.entries).toHaveLength(32);
  });

  it("sends the session in full after an edit (so it is refused) and after a 409 from a cold isolate", async () => {
    const client = new Client({ url, key: KEY_A, timeoutMs: 10_000 });
    const s = client.session("billing", { catalogue });
    await s.read("estorne 40,00 do pedido 4411");
    expect((await s.checkToolCall(refund.tool, refund.args, refund.options)).decision).toBe("confirm");
    (s.history.entries[1] as unknown as Record<string, unknown>).decision = "allow";
    const edited = await s.checkToolCall(refund.tool, refund.args, refund.options);
    expect(edited.reasons).toEqual(["history_invalid"]);
    expect(s.history.entries).toHaveLength(1);
    expect((await s.checkToolCall(refund.tool, refund.args, refund.options)).decision).toBe("confirm");
    // a cold isolate (same stores): 409, then the SDK sends in full and goes on in the delta form
    restart();
    bodies.length = 0;
    expect((await s.checkToolCall(refund.tool, refund.args, refund.options)).decision).toBe("confirm");
    expect((await s.checkToolCall(refund.tool, refund.args, refund.options)).decision).toBe("confirm");
    expect(bodies).toHaveLength(3); // the delta refused, the full, the next delta
    expect(bodies[0]).toBeLessThan(bodies[1]!);
    expect(bodies[2]).toBeLessThan(bodies[1]!);
    expect(s.history.entries.map((e) => e.step)).toEqual([0, 1, 2, 3]);
  });

  it("sends an older worker, which does not say it takes the delta form, every session in full", async () => {
    older = true;
    try {
      const s = new Client({ url, key: KEY_A, timeoutMs: 10_000 }).session("billing", { catalogue });
      await s.read("estorne 40,00 do pedido 4411");
      bodies.length = 0;
      for (let k = 0; k < 4; k++) expect((await s.checkToolCall(refund.tool, refund.args, refund.options)).decision).toBe("confirm");
      // each request carries the whole history: it grows by one check entry each time
      for (let k = 1; k < 4; k++) expect(bodies[k]! - bodies[k - 1]!).toBeGreaterThan(200);
      expect(s.history.entries.map((e) => e.step)).toEqual([0, 1, 2, 3, 4]);
    } finally {
      older = false;
    }
  });
});
