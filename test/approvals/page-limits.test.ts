/**
 * The approvals page reads at most PAGE_BODY_LIMIT bytes of a request: a larger sign-in or
 * decision is 413 `body_too_large` before anything is parsed or decided, declared length or not.
 */
import { describe, expect, it } from "vitest";
import { approvalsApp, PAGE_BODY_LIMIT } from "../../worker/portable/approvals/app.js";
import { MemoryApprovalStore } from "../../worker/portable/engine/index.js";

function page() {
  let logins = 0;
  const store = new MemoryApprovalStore();
  const mac = () => new Uint8Array(32);
  const app = approvalsApp({
    base: "",
    local: true,
    now: () => 0,
    login: () => {
      logins++;
      return undefined;
    },
    storeFor: () => store,
    macFor: () => mac,
    cookieMac: () => mac,
  });
  return { app, logins: () => logins };
}

const H = { "stalwart-apply": "yes", origin: "http://localhost", "content-type": "application/json" };

describe("the approvals page's body limit", () => {
  it("a sign-in over the limit is refused unread; one under it is read", async () => {
    const p = page();
    const big = JSON.stringify({ code: "1".repeat(PAGE_BODY_LIMIT), by: "ana" });
    const r = await p.app.request("http://localhost/login", { method: "POST", headers: H, body: big });
    expect(r.status).toBe(413);
    expect(await r.json()).toMatchObject({ error: { code: "body_too_large" } });
    expect(p.logins()).toBe(0);
    const ok = await p.app.request("http://localhost/login", { method: "POST", headers: H, body: JSON.stringify({ code: "123456", by: "ana" }) });
    expect(ok.status).toBe(401);
    expect(p.logins()).toBe(1);
  });

  it("a streamed body with no declared length is cut off at the limit too", async () => {
    const p = page();
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(ctl) {
        if (sent++ < 8) ctl.enqueue(chunk);
        else ctl.close();
      },
    });
    const r = await p.app.request("http://localhost/login", { method: "POST", headers: H, body, duplex: "half" } as RequestInit);
    expect(r.status).toBe(413);
    expect(p.logins()).toBe(0);
  });
});

describe("the approvals page's origin rule", () => {
  it("a POST that says neither its Origin nor Sec-Fetch-Site is refused unread; the page's own origin, or same-origin, is read (outside audit 23, F2)", async () => {
    const p = page();
    const body = JSON.stringify({ code: "123456", by: "ana" });
    const base = { "stalwart-apply": "yes", "content-type": "application/json" };
    const cases: [Record<string, string>, number][] = [
      [{}, 403],
      [{ "sec-fetch-site": "same-site" }, 403],
      [{ "sec-fetch-site": "none" }, 403],
      [{ origin: "http://localhost:1" }, 403],
      [{ origin: "null", "sec-fetch-site": "same-origin" }, 403],
      [{ "sec-fetch-site": "same-origin" }, 401],
      [{ origin: "http://localhost" }, 401],
    ];
    for (const [headers, status] of cases) {
      const r = await p.app.request("http://localhost/login", { method: "POST", headers: { ...base, ...headers }, body });
      expect(r.status, JSON.stringify(headers)).toBe(status);
      if (status === 403) expect(await r.json()).toMatchObject({ error: { code: "forbidden" } });
    }
    expect(p.logins(), "only the two from this page were read").toBe(2);
  });
});
