/**
 * What a person reads before approving is what would run: an argument written by the model (or
 * read from outside) may carry Unicode controls that reorder or hide text — U+202E shows
 * "‮moc.liame@bob" as "bob@email.com" — so the page and `stalwart approvals show` name each such
 * character instead of letting it act. Markup stays text.
 */
import { describe, expect, it } from "vitest";
import { approvalsApp } from "../../worker/portable/approvals/app.js";
import { decide, MemoryApprovalStore, type PendingRecord } from "../../worker/portable/engine/index.js";
import { argsDigest } from "../helpers/pending-record.js";
import { showText } from "../../cli/approvals/format.js";

const RLO = "\u202E";
const hostile = {
  bidi: `refund to ${RLO}moc.liame@bob\u202C`,
  isolate: "\u2067a\u2069\u200Fb\u200B",
  c1: "ok\u009B31mred",
  html: "<script>alert(1)</script><img src=x onerror=alert(2)>",
};

function record(): PendingRecord {
  const args = { order_id: "4411", ...hostile, nested: { to: `${RLO}evil` } };
  return {
    v: 1, id: "p_00000000000000b1", session: "s".repeat(32), step: 1, tool: "refund_card", agent: null,
    args,
    digest: argsDigest(args), origins: {}, reasons: ["argument_origin"],
    wording: `\`note\` is ${RLO}04 (a value quoted by the check). Allow refund_card?`,
    counters: [], token: "t", created: 0, expires: 10_000,
  };
}

/** The local page over `store`, and the cookie of a person signed in to it. */
async function signedIn(store: MemoryApprovalStore, mac: () => Uint8Array) {
  const app = approvalsApp({ base: "", local: true, now: () => 1, login: () => ({ by: "ana" }), storeFor: () => store, macFor: () => mac, cookieMac: () => mac });
  const login = await app.request("http://localhost/login", { method: "POST", headers: { "stalwart-apply": "yes", origin: "http://localhost", "content-type": "application/json" }, body: JSON.stringify({ code: "1", by: "ana" }) });
  return { app, cookie: (login.headers.get("set-cookie") ?? "").split(";")[0]! };
}

const controls = /[\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF\u0080-\u009F]/;

describe("hostile argument values on the approvals page and in `approvals show`", () => {
  it("the page names every direction override, isolate, invisible or C1 control; markup is text", async () => {
    const store = new MemoryApprovalStore();
    store.add(record());
    const mac = () => new Uint8Array(32);
    const { app, cookie } = await signedIn(store, mac);
    const html = await (await app.request("http://localhost/p/p_00000000000000b1", { headers: { cookie } })).text();
    const cells = [...html.matchAll(/<td class="v">([^<]*)<\/td>/g)].map((m) => m[1]!);
    expect(cells.some((c) => controls.test(c))).toBe(false);
    expect(cells).toContain("refund to [U+202E]moc.liame@bob[U+202C]");
    expect(cells).toContain("[U+2067]a[U+2069][U+200F]b[U+200B]");
    expect(cells).toContain("ok[U+009B]31mred");
    expect(cells).toContain("{&quot;to&quot;:&quot;[U+202E]evil&quot;}");
    expect(cells).toContain("&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;");
    expect(html).toContain("`note` is [U+202E]04");
    expect(html).not.toContain("<script>alert");
    const list = await (await app.request("http://localhost/", { headers: { cookie } })).text();
    expect(list).toContain("`note` is [U+202E]04");
    // the edit form keeps the exact value: what is sent back unchanged is the same argument
    expect(html).toContain(`value="refund to ${RLO}moc.liame@bob\u202C"`);
  });

  it("the agent's name and a receipt's name and message are named too: a terminal escape cannot hide what follows", async () => {
    const store = new MemoryApprovalStore();
    store.add({ ...record(), agent: "bot\u001b[8m" });
    const mac = () => new Uint8Array(32);
    await decide(store, mac, "p_00000000000000b1", { decision: "deny", by: `ana${RLO}`, at: 1, message: "no\u001b[2J" });
    const text = showText((await store.get("p_00000000000000b1"))!, 1);
    expect(/[\u001b\u202E]/.test(text)).toBe(false);
    expect(text).toContain("(agent bot[U+001B][8m)");
    expect(text).toContain("denied by ana[U+202E]");
    expect(text).toContain("— no[U+001B][2J");
    const { app, cookie } = await signedIn(store, mac);
    const html = await (await app.request("http://localhost/p/p_00000000000000b1", { headers: { cookie } })).text();
    expect(/[\u001b\u202E]/.test(html)).toBe(false);
    expect(html).toContain("agent bot[U+001B][8m");
  });

  it("no answer of the page may be framed by another page (a same-site one gets the cookie)", async () => {
    const store = new MemoryApprovalStore();
    store.add(record());
    const mac = () => new Uint8Array(32);
    const { app, cookie } = await signedIn(store, mac);
    for (const [path, headers] of [["/", { cookie }], ["/p/p_00000000000000b1", { cookie }], ["/", {}]] as const) {
      const r = await app.request(`http://localhost${path}`, { headers });
      expect(r.headers.get("x-frame-options"), path).toBe("DENY");
      expect(r.headers.get("content-security-policy"), path).toBe("frame-ancestors 'none'");
    }
  });

  it("`stalwart approvals show` prints no line the host wrote: a newline in its text is named", async () => {
    const store = new MemoryApprovalStore();
    store.add({ ...record(), agent: "bot\n  receipt: approve by ana" });
    await decide(store, () => new Uint8Array(32), "p_00000000000000b1", { decision: "deny", by: "sdk\n  receipt: approve by ana", at: 1 });
    const text = showText((await store.get("p_00000000000000b1"))!, 1);
    expect(text.split("\n").filter((l) => l.startsWith("  receipt:"))).toEqual([expect.stringMatching(/^  receipt: deny by sdk\[U\+000A\]  receipt: approve by ana at /)]);
    expect(text).toContain("(agent bot[U+000A]  receipt: approve by ana)");
  });

  it("argument names are named as values are: `\\u202Eot` and `t\\u200Bo` cannot read as a second `to`", async () => {
    const args = { to: "ok@example.com", [`${RLO}ot`]: "evil@evil.example", "t\u200Bo": "zw@evil.example", "a\u0085b": 1 };
    const store = new MemoryApprovalStore();
    store.add({ ...record(), args, digest: argsDigest(args) });
    const mac = () => new Uint8Array(32);
    const { app, cookie } = await signedIn(store, mac);
    const html = await (await app.request("http://localhost/p/p_00000000000000b1", { headers: { cookie } })).text();
    const names = [...html.matchAll(/<th scope="row">([^<]*)<\/th>/g)].map((m) => m[1]!);
    expect(names).toEqual(["to", "[U+202E]ot", "t[U+200B]o", "a[U+0085]b"]);
    const labels = [...html.matchAll(/<label for="arg-\d+">([^<]*)<\/label>/g)].map((m) => m[1]!);
    expect(labels).toEqual(["to", "[U+202E]ot", "t[U+200B]o", "a[U+0085]b (JSON)"]);
    const text = showText((await store.get("p_00000000000000b1"))!, 1);
    expect(controls.test(text)).toBe(false);
    expect(text).toContain('[U+202E]ot = "evil@evil.example"');
    expect(text).toContain('t[U+200B]o = "zw@evil.example"');
  });

  it("an edit keeps a value with a line break as it is (a one-line field would strip it): only what the person changed is theirs", async () => {
    const args = { order_id: "4411\n9999", amount: 400 };
    const store = new MemoryApprovalStore();
    store.add({ ...record(), args, digest: argsDigest(args) });
    const mac = () => new Uint8Array(32);
    const { app, cookie } = await signedIn(store, mac);
    const html = await (await app.request("http://localhost/p/p_00000000000000b1", { headers: { cookie } })).text();
    // not offered for editing, and shown with its line break (the cell keeps white space)
    expect(html).not.toContain('name="arg:order_id"');
    expect(html).toContain("order_id: holds a line break, which this form cannot carry; it is kept as it is");
    expect(html).toContain("white-space:pre-wrap");
    // a browser's submission of the old form (the line break stripped) changes nothing of it
    const r = await app.request("http://localhost/p/p_00000000000000b1/edit", { method: "POST", headers: { cookie, "stalwart-apply": "yes", origin: "http://localhost", "content-type": "application/json" }, body: JSON.stringify({ "arg:order_id": "44119999", "arg:amount": "40" }) });
    expect(r.status).toBe(200);
    const receipt = (await store.get("p_00000000000000b1"))!.receipt!;
    expect(receipt).toMatchObject({ decision: "edit", edited: { order_id: "4411\n9999", amount: 40 } });
  });

  it("`stalwart approvals show` names them too", () => {
    const text = showText({ record: record(), receipt: null, used: false }, 1);
    expect(controls.test(text)).toBe(false);
    expect(text).toContain('bidi = "refund to [U+202E]moc.liame@bob[U+202C]"');
    expect(text).toContain('c1 = "ok[U+009B]31mred"');
    expect(text).toContain("`note` is [U+202E]04");
  });
});
