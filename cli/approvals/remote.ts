/**
 * The approval port of a remote session (`new Client({url, key})`): the check worker records every
 * confirm it answers in the tenant's store, under the id its token names, so `run(…, {wait})`
 * only reads that record (GET /v1/approvals/:id, polled) until the page or the API decides it;
 * the SDK's own `approve(step)` / `deny(step)` decide through the API. The worker signs the
 * receipt and marks the record spent when the approved call is allowed. A wait that ends
 * undecided answers `waiting` and runs nothing.
 */
import { StalwartError, type Approval, type ApprovalPort, type ApprovalStore } from "../../worker/portable/engine/index.js";
import type { Http } from "../sdk/remote.js";

export function remoteApprovals(http: Http, pollMs = 250): ApprovalPort {
  const get = async (id: string): Promise<Approval | undefined> => {
    try {
      return ((await http.send("GET", `/v1/approvals/${encodeURIComponent(id)}`, undefined)) as { approval: Approval }).approval;
    } catch (err) {
      if (err instanceof StalwartError && err.code === "ApprovalNotFound") return undefined;
      throw err;
    }
  };
  const store: ApprovalStore = {
    add: () => undefined, // the worker recorded it as it answered
    get,
    list: async () => ((await http.send("GET", "/v1/approvals", undefined)) as { approvals: Approval[] }).approvals,
    decide: () => ({ ok: false, why: "mismatch" }), // receipts are signed by the worker: decide through the port
    markUsed: () => false, // the worker marks it when the approved call is allowed
    // the caller's session ended for good (a gateway that stopped): the worker closes the record
    withdraw: async (id) => ((await http.send("POST", `/v1/approvals/${encodeURIComponent(id)}/withdraw`, {})) as { withdrawn: boolean }).withdrawn === true,
  };
  return {
    store,
    recordedByChecker: true,
    // the worker keeps the tenant's key and verifies its own receipts; none is trusted here
    receiptProblem: () => "receipts of a remote session are verified by the check worker",
    pollMs,
    decide: async (id, d) => {
      await http.send("POST", `/v1/approvals/${encodeURIComponent(id)}/decide`, { decision: d.decision, by: d.by, ...(d.message ? { message: d.message } : {}), ...(d.always ? { always: true } : {}) });
      const a = await get(id);
      if (!a) throw new StalwartError("ApprovalNotFound", `no pending confirmation \`${id}\` on the check worker`);
      return a;
    },
  };
}
