/** The approval port of an in-process session: the store under the home, receipts under its key. */
import { decide, type ApprovalPort, type CompiledCatalogue } from "../../worker/portable/engine/index.js";
import { FileApprovalStore } from "./store.js";
import { homeMac } from "./mac.js";

export function approvalPort(home: string, catalogue: CompiledCatalogue, now?: () => Date): ApprovalPort {
  const store = new FileApprovalStore(home);
  return {
    store,
    catalogue,
    decide: (id, d) => decide(store, homeMac(home), id, { ...d, at: d.at ?? (now ?? (() => new Date()))().getTime() }),
  };
}
