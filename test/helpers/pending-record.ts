/**
 * A pending confirmation of `refund_card` put straight into a home's approval store, as a session
 * that asked a person leaves one (valid for an hour from now): for tests of what reads or decides it.
 */
import { FileApprovalStore } from "../../cli/approvals/store.js";
import type { PendingRecord } from "../../worker/portable/engine/index.js";

export function addWaiting(home: string, id: string): PendingRecord {
  const now = Date.now();
  const record: PendingRecord = {
    v: 1, id, session: "s".repeat(32), step: 1, tool: "refund_card", agent: null, args: { order_id: "4411" },
    digest: "0".repeat(64), origins: {}, reasons: ["argument_origin"], wording: "Allow refund_card?",
    counters: [], token: "t", created: now, expires: now + 60 * 60 * 1000,
  };
  new FileApprovalStore(home).add(record);
  return record;
}
