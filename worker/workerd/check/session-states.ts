/**
 * The session state store over the session objects (one Durable Object per session,
 * session-state-object.ts), with the states this isolate holds (kept-states.ts): a load for a
 * history that ends at a held head makes no call. Inputs are checked here, before they cross; an
 * object's `{damaged}` becomes StoreDamaged (an RPC error keeps only a message). Kept apart from
 * durable-stores.ts so that it is tested in Node with objects that are not Durable Objects.
 */
import { StoreDamaged, stateRules, type CommitAnswer, type Head, type SessionStateStore } from "../../portable/engine/index.js";
import type { KeptState, KeptStates } from "./kept-states.js";

const { addTallies, checkChange, checkSession } = stateRules;

/** What a session object answers (session-state-object.ts), as the store calls it. */
export interface SessionObject {
  /** tallies as pairs (what crosses an RPC: arrays), checked here */
  load(): Promise<{ head: Head | null; spent: string[]; tallies: unknown[][]; epoch?: unknown } | { damaged: string }>;
  /** `epoch`: the object refuses the change as a moved head unless its epoch is still that one */
  commit(c: ReturnType<typeof checkChange> & { epoch?: string }): Promise<(CommitAnswer & { epoch?: unknown }) | { damaged: string }>;
}

/** The name of a session's object: tenant and session, unambiguously. */
export function sessionObjectName(tenant: string, session: string): string {
  return JSON.stringify([tenant, session]);
}

export function sessionStates(tenant: string, objectOf: (name: string) => SessionObject, held: KeptStates, recover: string, carried?: (session: string) => Head | undefined): SessionStateStore {
  // a check's load and commit name the same session: its object's stub is made once
  let last: { name: string; object: SessionObject } | undefined;
  const of = (name: string) => {
    if (last?.name !== name) last = { name, object: objectOf(name) };
    return last.object;
  };
  /** what this request's load answered, per session: a commit from it moves what is held */
  const loaded = new Map<string, KeptState>();
  return {
    async load(session) {
      const name = sessionObjectName(tenant, checkSession(session));
      const head = carried?.(session);
      const hit = head && head.count > 0 ? held.get(name, head) : undefined;
      if (hit) {
        loaded.set(session, hit);
        return { head: { ...hit.head }, spent: new Set(hit.spent), tallies: hit.tallies };
      }
      const r = await of(name).load();
      if ("damaged" in r) {
        held.drop(name);
        throw new StoreDamaged(`SessionStateObject ${name}`, r.damaged, recover);
      }
      const tallies: Record<string, number> = Object.create(null);
      for (const [k, n] of r.tallies) if (typeof k === "string" && typeof n === "number") tallies[k] = n;
      Object.freeze(tallies);
      if (r.head && typeof r.epoch === "string") {
        const state = { head: r.head, spent: new Set(r.spent), tallies, epoch: r.epoch };
        held.set(name, state);
        loaded.set(session, state);
      } else held.drop(name);
      return { head: r.head, spent: new Set(r.spent), tallies };
    },
    async commit(session, change) {
      const name = sessionObjectName(tenant, checkSession(session));
      const c = checkChange(change);
      // what this request loaded, or (a report: no load first) what is held at the head it expects
      const from = loaded.get(session) ?? (c.expect === "restart" ? undefined : held.get(name, c.expect));
      loaded.delete(session);
      held.drop(name); // until the object has answered
      // decided on `from`: the object takes the change only while it is still in from's epoch
      const r = await of(name).commit(from ? { ...c, epoch: from.epoch } : c);
      if ("damaged" in r) throw new StoreDamaged(`SessionStateObject ${name}`, r.damaged, recover);
      const { epoch, ...answer } = r;
      // held again only after an exact compare-and-set from the state this request started from
      if (answer.ok && from && epoch === from.epoch && c.expect !== "restart" && c.expect.count === from.head.count && c.expect.link === from.head.link) {
        held.set(name, {
          head: { count: c.next.count, link: c.next.link },
          spent: c.spend.length > 0 ? new Set([...from.spent, ...c.spend]) : from.spent,
          tallies: c.tally.length > 0 ? Object.freeze(addTallies(from.tallies, c.tally)) : from.tallies,
          epoch: from.epoch,
        });
      }
      return answer as CommitAnswer;
    },
  };
}
