/**
 * Outside audit (person-in-the-loop) F2: "Edit the arguments" sent back every field, and the HTML
 * parser had turned an untouched argument's U+0000 into U+FFFD, so the edit changed it: the gateway
 * counted it as the person's (origin `reply`) and ran the call with a value nobody saw or typed.
 * Now the page sends only the fields the person changed, a value the form cannot carry exactly is
 * not offered, and the server keeps every argument the answer does not really change.
 */
import { describe, expect, it } from "vitest";
import { approvalsApp } from "../../worker/portable/approvals/app.js";
import { fixedInForm } from "../../worker/portable/approvals/edit-form.js";
import { canonicalize, editedOrigins, MemoryApprovalStore, type PendingRecord } from "../../worker/portable/engine/index.js";
import { argsDigest } from "../helpers/pending-record.js";
import { haveChromium, pageOver } from "./browser.js";

const ID = "p_00000000000000e1";
const args = { title: "invoice\u0000-1", tag: "model-tag", note: "pay \u202Eok\u200B", meta: { k: "v\u0000", n: 1 } };
const origins = { title: "model", tag: "model", note: "model", meta: "model" };

function record(): PendingRecord {
  return {
    v: 1, id: ID, session: "s".repeat(32), step: 1, tool: "tag_note", agent: null,
    args, digest: argsDigest(args), origins: Object.fromEntries(Object.entries(origins).map(([k, origin]) => [k, { origin, labels: [] }])), reasons: ["argument_origin"],
    wording: "Allow tag_note?", counters: [], token: "t", created: 0, expires: Date.now() + 3_600_000,
  };
}

/** Only the argument the person changed is theirs; every other one is the call's, exactly, with its origin. */
async function expectOnlyTagEdited(store: MemoryApprovalStore) {
  const receipt = (await store.get(ID))!.receipt!;
  expect(receipt.decision).toBe("edit");
  expect(receipt.edited).toStrictEqual({ title: "invoice\u0000-1", tag: "person-tag", note: "pay \u202Eok\u200B", meta: { k: "v\u0000", n: 1 } });
  expect(editedOrigins(args, receipt.edited!, origins, canonicalize)).toEqual({ title: "model", tag: "reply", note: "model", meta: "model" });
}

describe("an edit on the approvals page changes only what the person changed", () => {
  it("values a browser would rewrite are not offered; strings with line breaks as before; JSON never", () => {
    expect(fixedInForm("invoice\u0000-1")).toBe("holds [U+0000], which a browser changes in this form");
    expect(fixedInForm("x\uD800y")).toBe("holds [U+D800], which a browser changes in this form");
    expect(fixedInForm("a\rb")).toBe("holds a line break, which this form cannot carry");
    expect(fixedInForm("pay \u202Eok")).toBeUndefined(); // carried exactly (and named on the page)
    expect(fixedInForm({ k: "v\u0000" })).toBeUndefined(); // JSON escapes it
  });

  it("the server keeps an argument sent back as a browser rewrote it: it does not count on the page's script", async () => {
    const store = new MemoryApprovalStore();
    store.add(record());
    const mac = () => new Uint8Array(32);
    const app = approvalsApp({ base: "", local: true, now: () => 1, login: () => ({ by: "ana" }), storeFor: () => store, macFor: () => mac, cookieMac: () => mac });
    const headers = { "stalwart-apply": "yes", origin: "http://localhost", "content-type": "application/json" };
    const login = await app.request("http://localhost/login", { method: "POST", headers, body: JSON.stringify({ code: "1", by: "ana" }) });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
    const html = await (await app.request(`http://localhost/p/${ID}`, { headers: { cookie } })).text();
    expect(html).not.toContain('name="arg:title"');
    expect(html).toContain("title: holds [U+0000], which a browser changes in this form; it is kept as it is");
    // every field, as an older page sent them: title rewritten by the HTML parser, the others as given
    const all = { "arg:title": "invoice\uFFFD-1", "arg:tag": "person-tag", "arg:note": "pay \u202Eok\u200B", "arg:meta": '{"k":"v\\u0000","n":1}' };
    const r = await app.request(`http://localhost/p/${ID}/edit`, { method: "POST", headers: { ...headers, cookie }, body: JSON.stringify(all) });
    expect(r.status).toBe(200);
    await expectOnlyTagEdited(store);
  });

  it.skipIf(!haveChromium)("in Chromium: the person changes one field; only it is sent, and every other argument stays exact", async () => {
    const store = new MemoryApprovalStore();
    store.add(record());
    const { url, page, close } = await pageOver(store);
    try {
      await page.goto(`${url}/p/${ID}`);
      await page.getByText("Edit the arguments, then check again").click();
      expect(await page.locator("input[name='arg:title']").count(), "not offered: the form would rewrite it").toBe(0);
      expect(await page.locator("input[name='arg:note']").inputValue(), "the field holds the exact value").toBe("pay \u202Eok\u200B");
      await page.getByLabel("tag", { exact: true }).fill("person-tag");
      const sent = page.waitForRequest((q) => q.url().endsWith(`/p/${ID}/edit`));
      await page.getByRole("button", { name: "Check the edited call again" }).click();
      const body = (await sent).postDataJSON() as Record<string, unknown>;
      expect(Object.keys(body).filter((k) => k.startsWith("arg:"))).toEqual(["arg:tag"]);
      await expect.poll(async () => (await store.get(ID))!.receipt?.decision, { timeout: 15_000 }).toBe("edit");
      await expectOnlyTagEdited(store);
    } finally {
      await close();
    }
  }, 120_000);
});
