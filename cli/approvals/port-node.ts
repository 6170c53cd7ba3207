/** The approval port of an in-process session: the store under the home, receipts under the session's key. */
import { decide, receiptProblem, type ApprovalPort, type CompiledCatalogue, type CounterStore, type Entry, type Mac } from "../../worker/portable/engine/index.js";
import { FileApprovalStore } from "./store.js";

/** `mac`: the client's key (the one its sessions sign under); `session`: its counters and entries, so a record shows each counter's before → after. */
export function approvalPort(home: string, mac: Mac, catalogue: CompiledCatalogue, now?: () => Date, session?: { counters?: CounterStore | undefined; entries: () => readonly Entry[] }): ApprovalPort {
  const store = new FileApprovalStore(home, () => mac);
  return {
    store,
    catalogue,
    ...(session ? { counters: session.counters, entries: session.entries } : {}),
    receiptProblem: (r) => receiptProblem(mac, r),
    decide: (id, d) => decide(store, mac, id, { ...d, at: d.at ?? (now ?? (() => new Date()))().getTime() }),
  };
}
