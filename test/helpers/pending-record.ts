/**
 * A pending confirmation of `refund_card` put straight into a home's approval store, as a session
 * that asked a person leaves one (valid for an hour from now, MAC'd under the home's key): for tests of what reads or decides it.
 */
import { FileApprovalStore } from "../../cli/approvals/store.js";
import { homeMac } from "../../cli/approvals/mac.js";
import { canonicalize, sha256Hex, type PendingRecord } from "../../worker/portable/engine/index.js";

/** What a record's `digest` is: SHA-256 of its arguments' canonical JSON (the file store checks it on reading). */
export function argsDigest(args: Record<string, unknown>): string {
  return sha256Hex(canonicalize(args));
}

export function addWaiting(home: string, id: string): PendingRecord {
  const now = Date.now();
  const record: PendingRecord = {
    v: 1, id, session: "s".repeat(32), step: 1, tool: "refund_card", agent: null, args: { order_id: "4411" },
    digest: argsDigest({ order_id: "4411" }), origins: {}, reasons: ["argument_origin"], wording: "Allow refund_card?",
    counters: [], token: "t", created: now, expires: now + 60 * 60 * 1000,
  };
  // signed under the home's key, as a session's store writes it (the home's key is made already)
  const mac = homeMac(home);
  new FileApprovalStore(home, () => mac).add(record);
  return record;
}
