/**
 * A pending record as written to a home's files, MAC'd under the installation key: the person
 * decides on what the record shows — its origins, reasons, wording and counters, none of which
 * the token binds — so a record edited by hand must not read as the check's. Its own domain
 * prefix, so it can never pass for a receipt, a token or a history link. (A Durable Object's
 * records are not files anyone else writes: they carry none.)
 */
import { canonicalize } from "../canonical/jcs.js";
import { equalBytes, fromHex, toHex } from "../canonical/bytes.js";
import type { Mac } from "./receipts.js";
import type { PendingRecord } from "./record.js";

const DOMAIN = "stalwart-record-v1.";

function body(r: PendingRecord): string {
  const { mac: _mac, ...rest } = r;
  return DOMAIN + canonicalize(rest);
}

export function signRecord(mac: Mac, r: PendingRecord): PendingRecord {
  return { ...r, mac: toHex(mac(body(r))) };
}

/** Why `r` (of a readable shape) does not verify under `mac`, or null. */
export function recordMacProblem(mac: Mac, r: PendingRecord): string | null {
  if (typeof r.mac !== "string") return "it carries no MAC (written by a version before records were signed, or edited by hand)";
  const got = fromHex(r.mac);
  let text: string;
  try {
    text = body(r);
  } catch {
    return "it is not JSON data";
  }
  return got && equalBytes(got, mac(text)) ? null : "its MAC does not verify (edited by hand, or written under another key)";
}
