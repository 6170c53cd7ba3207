/**
 * The tenant's approval store (one interface with the home's and the memory one): the APPROVALS
 * Durable Object in the Workers entry (approvals-object.ts), else one memory store per tenant for
 * this app (route tests with `app.request()`). Ids are checked before they reach a store. And
 * the keys: receipts are signed under the tenant's history key — the one its sessions are sealed
 * with, so its history accepts them — and the page's sign-in cookies under a key of their own.
 */
import { APPROVAL_ID, InputError, MemoryApprovalStore, sameHolds, standingOf, toHex, utf8, type Approval, type ApprovalStore, type Core, type Mac, type PendingRecord } from "../../portable/engine/index.js";
import { historySecret, type TenantConfig } from "./tenants.js";

/**
 * A tenant's approval store as the worker uses it: optionally, a confirm's record added and the
 * standing approval of its call found in one call — one round trip to the tenant's Durable
 * Object instead of two (issue 14). Throws as `add` does when the id exists.
 */
export interface WorkerApprovalStore extends ApprovalStore {
  addAndFindStanding?(record: PendingRecord): Promise<Approval | undefined>;
}

/** Add `record`, then the newest standing approval of its call (`standingIn`), in one call where the store can. */
export async function addAndFindStanding(store: WorkerApprovalStore, record: PendingRecord): Promise<Approval | undefined> {
  if (store.addAndFindStanding) {
    const s = await store.addAndFindStanding(record);
    // asked for other holds (the same arguments, now from an untrusted read): not covered
    return s && sameHolds(s.record, record) ? s : undefined;
  }
  await store.add(record);
  return await standingOf(store, record);
}

/** What the approvals routes and page share: the tenant's store, the keys. */
export interface TenantApprovals {
  store(env: unknown, tenant: string): WorkerApprovalStore;
  keys: ApprovalKeys;
}

export function checkId(id: string): string {
  if (typeof id !== "string" || !APPROVAL_ID.test(id)) throw new InputError(`\`${String(id).slice(0, 40)}\` is not a pending confirmation id (p_ and 16 hex digits)`, "/id");
  return id;
}

/** One memory store per tenant for this app (no Durable Objects: `app.request()` tests, one process). */
export function memoryApprovals(): (env: unknown, tenant: string) => WorkerApprovalStore {
  const memory = new Map<string, MemoryApprovalStore>();
  return (_env, tenant) => {
    let m = memory.get(tenant);
    if (!m) memory.set(tenant, (m = new MemoryApprovalStore()));
    const store = m;
    return {
      add: (r) => store.add({ ...r, id: checkId(r.id) }),
      get: (id) => store.get(checkId(id)),
      list: () => store.list(),
      decide: (id, receipt, now) => store.decide(checkId(id), receipt, now),
      markUsed: (id) => store.markUsed(checkId(id)),
      withdraw: (id) => store.withdraw(checkId(id)),
      standing: (session, tool, agent, digest) => store.standing(session, tool, agent, digest),
      addAndFindStanding: async (r) => {
        store.add({ ...r, id: checkId(r.id) });
        return store.standing(r.session, r.tool, r.agent, r.digest);
      },
    };
  };
}

/**
 * MACs under keys derived from the worker's history secret, one key slot each per isolate: the
 * tenant's history key is HMAC(secret, "stalwart-tenant-v1." + tenant), exactly as runtime.ts
 * derives it for the tenant's engine (a receipt signed under another key is refused by the history).
 */
const KEYS = 384;

export class ApprovalKeys {
  /** the most recently used last; past KEYS the first lets its slot go (the core's slots are few, runtime.ts) */
  private readonly slots = new Map<string, number>();
  constructor(private readonly core: () => Core) {}

  private macUnder(env: TenantConfig, label: string): Mac {
    const core = this.core();
    const secret = historySecret(env);
    const name = `${toHex(secret)}|${label}`;
    let slot = this.slots.get(name);
    if (slot !== undefined) this.slots.delete(name);
    else {
      if (this.slots.size >= KEYS) {
        const [oldest, held] = this.slots.entries().next().value!;
        this.slots.delete(oldest);
        core.releaseKey(held);
      }
      // loadKey reuses the slot of a key it holds already (the tenant engine's, runtime.ts)
      const s = core.loadKey(secret);
      try {
        slot = core.loadKey(core.hmac(s, utf8(label)));
      } finally {
        core.releaseKey(s);
      }
    }
    this.slots.set(name, slot);
    const s = slot;
    return (text) => core.hmacText(s, text);
  }

  /** receipts: the tenant's history key */
  tenant(env: TenantConfig, tenant: string): Mac {
    return this.macUnder(env, `stalwart-tenant-v1.${tenant}`);
  }

  /** the page's sign-in cookies */
  cookie(env: TenantConfig): Mac {
    return this.macUnder(env, "stalwart-approvals-page-v1");
  }
}
