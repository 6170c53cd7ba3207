/**
 * The pending confirmations this gateway put in the approval store and has not seen settled.
 *
 * The same call made again while its record waits (a model that retries, a client's own retry)
 * waits on that record: the person is asked once, not once per attempt. Only when it is shown the
 * same way (the arguments and where each came from, the reasons and their words, the counters)
 * and is still undecided: an ask that reads otherwise now is a record of its own, so nobody
 * approves a call on reasons that no longer hold.
 *
 * The gateway's session lives in its memory only: once the process stops, no later process can spend
 * a token of it (a new gateway is a new session, with a history of its own). A record left
 * pending would ask a person to decide a call that can no longer run, and their approval would
 * let nothing through: the same call, made again, is asked again under a new id. So as the
 * gateway stops, each such record is withdrawn (record.ts `withdraw`); a record already used,
 * denied, edited or expired is left as it is. A gateway that is killed withdraws nothing itself:
 * the next one to start on the home withdraws them once it can tell its process ended (cli/approvals/owners.ts).
 *
 * With `--check-url` the same holds of the worker's records: the gateway carries its session, and
 * nobody else has it. There the worker records each confirm as it answers, before the gateway sees
 * it, so an ask that waits on an open record withdraws the record just made for it.
 */
import { approvalIdOf, approvalStatus, approvedFor, canonicalize, tokenClaims, type Approval, type ApprovalStore, type PendingRecord } from "../../worker/portable/engine/index.js";

export class AskedRecords {
  /** id → what its person is shown (`shownAs`), and when its token expires */
  private readonly open = new Map<string, { shown: string; expires: number }>();

  /**
   * `store` undefined: the records are not this gateway's own (the caller's session), each ask is
   * added as it comes and nothing is withdrawn. `recorded`: the checker put each ask in `store`
   * as it answered (the check worker's records).
   */
  constructor(private readonly store: ApprovalStore | undefined, private readonly o: { recorded?: boolean; log?: (line: string) => void } = {}) {}

  /** The record this ask waits on: an open one of the same call shown the same way, else `fresh`, added with `add`. */
  async enter(fresh: PendingRecord, now: number, add: (r: PendingRecord) => Promise<void> | void): Promise<PendingRecord> {
    const shown = this.store ? shownAs(fresh) : undefined;
    for (const [id, o] of this.open) {
      // expired: closed by the clock, nothing to reuse or withdraw (a long-running gateway forgets it)
      if (now >= o.expires) this.open.delete(id);
      if (o.shown !== shown || now >= o.expires) continue;
      // unreadable now: a record of its own, as if none were open
      const a = await Promise.resolve(this.store!.get(id)).catch(() => undefined);
      if (a && approvalStatus(a, now) === "pending") {
        if (this.o.recorded) await this.withdrawCopy(fresh.id);
        return a.record;
      }
    }
    await add(fresh);
    if (shown !== undefined) this.open.set(fresh.id, { shown, expires: fresh.expires });
    return fresh;
  }

  /** The checker's record of an ask that waits on another: nobody is to decide it. Left pending if that fails (it covers the same call, once). */
  private async withdrawCopy(id: string): Promise<void> {
    try {
      await this.store!.withdraw?.(id);
    } catch (err) {
      this.o.log?.(`pending ${id} (the same call as an open one) not withdrawn: ${(err as Error).message}`);
    }
  }

  /**
   * A confirm this gateway was answered: the record that can hold its approval, under the call it
   * covers. Every record of this session is one of these: the session is the gateway's own (an id
   * in its memory), and its records are made from its own confirms — by the gateway as it asks
   * (in-process), or by the check worker as it answers (`--check-url`, the elicited ones too).
   */
  confirmed(token: string, now: number): void {
    const c = tokenClaims(token);
    if (!c) return;
    const key = `${c.tool}\u0000${c.digest}`;
    const ids = this.byCall.get(key) ?? new Map<string, number>();
    ids.set(approvalIdOf(token), c.exp);
    this.byCall.set(key, ids);
    // what has expired can approve nothing: let it go now and then, so a long-running gateway does not keep it all
    if (++this.noted % 1024 === 0) for (const [k, m] of this.byCall) {
      for (const [id, exp] of m) if (exp <= now) m.delete(id);
      if (m.size === 0) this.byCall.delete(k);
    }
  }
  private readonly byCall = new Map<string, Map<string, number>>();
  private noted = 0;

  /**
   * The approved, unexpired, unspent record of exactly this call in `session`, asked for the same
   * holds as `ask` (`sameHolds`), if `store` holds one: read among the records of the same call's
   * confirms (above), not in every record the store keeps. The home's store is a file a record (~55 µs each: half a second a confirm at 10,000
   * kept, and one damaged record of an old session stopped every confirm); the check worker lists
   * only its 200 newest and the undecided (an approval of an older ask went unseen, and the call
   * was asked again). Records that are not the gateway's own (the caller's session) are searched whole.
   * `taken`: records other calls in flight are spending, left to them.
   */
  async approvedIn(store: ApprovalStore, session: string, tool: string, digest: string, now: number, ask: Pick<PendingRecord, "reasons" | "origins">, taken: ReadonlySet<string> = new Set()): Promise<Approval | undefined> {
    if (!this.store) return approvedFor((await store.list()).filter((a) => !taken.has(a.record.id)), session, tool, digest, now, ask);
    const ids = [...(this.byCall.get(`${tool}\u0000${digest}`) ?? [])].filter(([id, exp]) => now < exp && !taken.has(id)).map(([id]) => id);
    const found = await Promise.all(ids.map((id) => Promise.resolve(store.get(id))));
    return approvedFor(found.filter((a): a is Approval => a !== undefined), session, tool, digest, now, ask);
  }

  /** The record was used, denied or edited: nothing to withdraw. */
  settled(id: string): void {
    this.open.delete(id);
  }

  /** Every record still open, withdrawn; never throws (the gateway is stopping). Returns how many were. */
  async withdrawAll(now: number, log: (line: string) => void): Promise<number> {
    const store = this.store;
    let n = 0;
    for (const id of this.open.keys()) {
      try {
        const a = await store?.get(id);
        // an expired record is closed by the clock already, and says so
        if (a && now < a.record.expires && (await store?.withdraw?.(id))) n++;
      } catch (err) {
        log(`pending ${id} not withdrawn: ${(err as Error).message}`);
      }
    }
    this.open.clear();
    if (n > 0) log(`withdrew ${n} pending confirmation${n === 1 ? "" : "s"}: this gateway's session ends as it stops, so no later call can use them`);
    return n;
  }
}

/** Everything a person reads of an ask, and the call it covers: two asks equal here are one decision. */
function shownAs(r: PendingRecord): string {
  return canonicalize([r.session, r.tool, r.agent, r.digest, r.origins, r.reasons, r.wording, r.counters]);
}
