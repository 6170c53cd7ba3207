/**
 * What a session's calls sent the tool servers (engine origins/call-inputs.ts), one record per
 * session object: every guard made on it — a guard per request, an agent and the agent it runs as
 * a tool — reads and adds to the same one. A guard with a record of its own saw nothing the others
 * sent, and a read handing back what another guard's call was sent vouched for it (outside audit
 * 24, F1). A session resumed in another process is another object, with an empty record: the
 * results of calls it did not see vouch for nothing.
 */
import { CallInputs } from "../../worker/portable/engine/index.js";

const records = new WeakMap<object, CallInputs>();

export function sentRecordOf(session: object): CallInputs {
  let r = records.get(session);
  if (!r) records.set(session, (r = new CallInputs()));
  return r;
}
