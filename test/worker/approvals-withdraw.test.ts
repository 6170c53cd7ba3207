/**
 * POST /v1/approvals/:id/withdraw through `app.request()` (the memory store; the Durable Object's
 * is run under `wrangler dev` by test/gateway/remote-approvals.test.ts): a record whose session
 * ended is closed once, nobody can decide it after, and what is decided already stays as it was.
 */
import { describe, expect, it } from "vitest";
import { KEY_A, KEY_B, pendingApproval, testApp } from "./app-env.js";

async function json(r: Response) {
  return { status: r.status, body: (await r.json()) as any };
}

describe("withdrawing a pending confirmation", () => {
  it("closes it once; deciding it after is 409 naming why; a second withdraw says false", async () => {
    const { call } = testApp();
    const id = await pendingApproval(call);
    const first = await json(await call("POST", `/v1/approvals/${id}/withdraw`, {}));
    expect(first).toMatchObject({ status: 200, body: { withdrawn: true, approval: { status: "withdrawn", record: { id } } } });
    expect((await json(await call("GET", `/v1/approvals/${id}`))).body.approval.status).toBe("withdrawn");
    const late = await json(await call("POST", `/v1/approvals/${id}/decide`, { decision: "approve", by: "ana" }));
    expect(late.status).toBe(409);
    expect(late.body.error.message).toContain("withdrawn");
    expect((await json(await call("POST", `/v1/approvals/${id}/withdraw`, {}))).body.withdrawn).toBe(false);
  });

  it("an approved one not yet used is withdrawn; a denied one is left denied", async () => {
    const { call } = testApp();
    const approved = await pendingApproval(call);
    expect((await call("POST", `/v1/approvals/${approved}/decide`, { decision: "approve", by: "ana" })).status).toBe(200);
    expect((await json(await call("POST", `/v1/approvals/${approved}/withdraw`, {}))).body).toMatchObject({ withdrawn: true, approval: { status: "withdrawn" } });
    const denied = await pendingApproval(call);
    expect((await call("POST", `/v1/approvals/${denied}/decide`, { decision: "deny", by: "bo" })).status).toBe(200);
    expect((await json(await call("POST", `/v1/approvals/${denied}/withdraw`, {}))).body).toMatchObject({ withdrawn: false, approval: { status: "denied" } });
  });

  it("another tenant's record is not found; an id that is not one is 400; no key is 401", async () => {
    const { call } = testApp();
    const id = await pendingApproval(call);
    expect((await json(await call("POST", `/v1/approvals/${id}/withdraw`, {}, KEY_B))).body.error.code).toBe("approval_not_found");
    expect((await json(await call("GET", `/v1/approvals/${id}`))).body.approval.status).toBe("pending");
    expect((await call("POST", "/v1/approvals/not-an-id/withdraw", {})).status).toBe(400);
    expect((await call("POST", `/v1/approvals/${id}/withdraw`, {}, null)).status).toBe(401);
  });
});
