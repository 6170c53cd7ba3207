/**
 * What a person's edit of a call's arguments, as JSON, is read as.
 *
 * An argument may be named `__proto__` (JSON says nothing against it, and `JSON.parse` keeps it as
 * an own key). A person's edit of such a call — on the approvals page, or in the gateway's
 * elicitation form — must keep that argument: assigned onto a plain object it would set the
 * object's prototype instead and vanish from the edited call.
 *
 * A value that gives one key twice is refused (outside audit 8, F2): `JSON.parse` keeps the last,
 * another reader the first, and the receipt would sign one where the person may have meant the other.
 */
import { describe, expect, it } from "vitest";
import { approvalsApp } from "../../worker/portable/approvals/app.js";
import { canonicalize, editedOrigins, MemoryApprovalStore, type PendingRecord } from "../../worker/portable/engine/index.js";
import { editsOf } from "../../cli/gateway/form.js";
import { argsDigest } from "../helpers/pending-record.js";

function record(args: Record<string, unknown>): PendingRecord {
  return {
    v: 1, id: "p_00000000000000c1", session: "s".repeat(32), step: 1, tool: "refund_card", agent: null,
    args, digest: argsDigest(args), origins: {}, reasons: ["argument_origin"],
    wording: "Allow refund_card?", counters: [], token: "t", created: 0, expires: 10_000,
  };
}

async function signedIn(store: MemoryApprovalStore) {
  const mac = () => new Uint8Array(32);
  const app = approvalsApp({ base: "", local: true, now: () => 1, login: () => ({ by: "ana" }), storeFor: () => store, macFor: () => mac, cookieMac: () => mac });
  const login = await app.request("http://localhost/login", { method: "POST", headers: { "stalwart-apply": "yes", origin: "http://localhost", "content-type": "application/json" }, body: JSON.stringify({ code: "1", by: "ana" }) });
  return { app, cookie: (login.headers.get("set-cookie") ?? "").split(";")[0]! };
}

const post = (cookie: string, body: unknown) => ({ method: "POST", headers: { cookie, "stalwart-apply": "yes", origin: "http://localhost", "content-type": "application/json" }, body: JSON.stringify(body) });

describe("an argument named __proto__ in a person's edit", () => {
  it("the page's edit keeps it, unchanged (an object) or edited (a string)", async () => {
    for (const [value, sent, want] of [[{ a: 1 }, undefined, { a: 1 }], ["x", "y", "y"]] as const) {
      const store = new MemoryApprovalStore();
      const args = JSON.parse(`{"order_id":"4411","__proto__":${JSON.stringify(value)}}`) as Record<string, unknown>;
      store.add(record(args));
      const { app, cookie } = await signedIn(store);
      const r = await app.request("http://localhost/p/p_00000000000000c1/edit", post(cookie, { "arg:order_id": "4412", ...(sent !== undefined ? JSON.parse(`{"arg:__proto__":"${sent}"}`) : {}) }));
      expect(r.status, await r.clone().text()).toBe(200);
      const edited = (await store.get("p_00000000000000c1"))!.receipt!.edited!;
      expect(Object.keys(edited)).toEqual(["order_id", "__proto__"]);
      expect(canonicalize(edited)).toBe(canonicalize(JSON.parse(`{"order_id":"4412","__proto__":${JSON.stringify(want)}}`)));
    }
  });

  it("the gateway's form answer keeps an edited __proto__ field", () => {
    const args = JSON.parse(`{"order_id":"4411","__proto__":"x"}`) as Record<string, unknown>;
    const edits = editsOf(args, { approve: true, "arg:__proto__": "y" });
    expect(edits && Object.keys(edits)).toEqual(["__proto__"]);
    expect(edits && canonicalize(edits)).toBe('{"__proto__":"y"}');
  });

  it("the edited call's origins name it: `reply` when the person changed it", () => {
    const before = JSON.parse(`{"order_id":"4411","__proto__":"x"}`) as Record<string, unknown>;
    const after = JSON.parse(`{"order_id":"4411","__proto__":"y"}`) as Record<string, unknown>;
    const origins = editedOrigins(before, after, JSON.parse(`{"order_id":"typed","__proto__":"model"}`) as Record<string, string>, canonicalize);
    expect(Object.keys(origins)).toEqual(["order_id", "__proto__"]);
    expect(Object.getOwnPropertyDescriptor(origins, "__proto__")?.value).toBe("reply");
  });
});

describe("an edit that gives a key twice", () => {
  it("is refused on the page, naming the key, and the call stays pending", async () => {
    for (const text of ['{"a":1,"a":2}', '{"b":{"c":1,"c":1}}', '{"a":1,"\\u0061":2}']) {
      const store = new MemoryApprovalStore();
      store.add(record({ order_id: "4411", data: { a: 1 } }));
      const { app, cookie } = await signedIn(store);
      const r = await app.request("http://localhost/p/p_00000000000000c1/edit", post(cookie, { "arg:data": text }));
      expect(r.status, text).toBe(400);
      expect(((await r.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: "invalid_request", message: expect.stringMatching(/`data`: the key "[ac]" is given twice \(at `\/(b\/)?[ac]`\); give it once/) });
      expect((await store.get("p_00000000000000c1"))!.receipt ?? null, text).toBeNull();
    }
  });

  it("a key given once, as JSON allows, is the person's edit", async () => {
    const store = new MemoryApprovalStore();
    store.add(record({ order_id: "4411", data: { a: 1 } }));
    const { app, cookie } = await signedIn(store);
    const r = await app.request("http://localhost/p/p_00000000000000c1/edit", post(cookie, { "arg:data": '{"a":2,"b":{"a":3}}' }));
    expect(r.status, await r.clone().text()).toBe(200);
    expect((await store.get("p_00000000000000c1"))!.receipt!.edited).toEqual({ order_id: "4411", data: { a: 2, b: { a: 3 } } });
  });
});
