/**
 * `stalwart approvals serve` over real HTTP: its JSON error answers spell codes as the worker's
 * approvals API does (`approval_decided`, not the in-process `ApprovalDecided`).
 */
import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveApprovals, type RunningPage } from "../../cli/approvals/serve.js";
import { FileApprovalStore } from "../../cli/approvals/store.js";
import type { PendingRecord } from "../../worker/portable/engine/index.js";

const pages: RunningPage[] = [];
afterEach(async () => {
  for (const p of pages.splice(0)) await p.close();
});

const newHome = () => mkdtempSync(join(tmpdir(), "stalwart-approvals-serve-"));

async function start(home: string, port = 0): Promise<RunningPage> {
  const p = await serveApprovals({ home, host: "127.0.0.1", port, code: "424242" });
  pages.push(p);
  return p;
}

function waiting(home: string, id: string): void {
  const now = Date.now();
  const record: PendingRecord = {
    v: 1, id, session: "s".repeat(32), step: 1, tool: "refund_card", agent: null, args: { order_id: "4411" },
    digest: "0".repeat(64), origins: {}, reasons: ["argument_origin"], wording: "Allow refund_card?",
    counters: [], token: "t", created: now, expires: now + 60 * 60 * 1000,
  };
  new FileApprovalStore(home).add(record);
}

/** A POST from the page itself (its origin, the header), with `cookie`. */
function post(page: RunningPage, path: string, body: unknown, cookie = ""): Promise<Response> {
  return fetch(new URL(path, page.url), {
    method: "POST",
    headers: { origin: new URL(page.url).origin, "stalwart-apply": "yes", "content-type": "application/json", ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
}

async function signIn(page: RunningPage): Promise<string> {
  const r = await post(page, "/login", { code: page.code, by: "ana" });
  expect(r.status).toBe(200);
  return r.headers.get("set-cookie")!.split(";")[0]!;
}

describe("approvals serve: error answers", () => {
  it("deciding twice is 409 `approval_decided`, an unknown id 404 `approval_not_found`: the worker's spelling", async () => {
    const home = newHome();
    waiting(home, "p_00000000000000c1");
    const page = await start(home);
    const cookie = await signIn(page);
    const first = await post(page, "/p/p_00000000000000c1/decide", { decision: "deny" }, cookie);
    expect(first.status).toBe(200);
    const twice = await post(page, "/p/p_00000000000000c1/decide", { decision: "approve" }, cookie);
    expect(twice.status).toBe(409);
    expect(await twice.json()).toMatchObject({ error: { code: "approval_decided", message: expect.stringContaining("denied by ana") } });
    const missing = await post(page, "/p/p_ffffffffffffffff/decide", { decision: "approve" }, cookie);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: "approval_not_found" } });
  });
});
