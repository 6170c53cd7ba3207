/**
 * One Durable Object per tenant holding its pending confirmations (issue 12): a row
 * per record with, once decided, its signed receipt, once the approved call ran, `used`, and once
 * the session that asked ended before it ran (a gateway that stopped), `withdrawn`.
 * Every method is one synchronous SQL statement or transaction: the object runs one call at a
 * time and nothing awaits inside, so of two people deciding at once exactly one wins and a token
 * an approval covers is marked spent once. Status is derived from the clock, never stored: an
 * expired record is closed without a write. Undecided records a week past their expiry are
 * dropped a few per add, by the adds that come once one can be (decided ones are kept: they are
 * the audit's receipts). A second table indexes the standing approvals ("always for this session") by the call they cover, so a confirm
 * finds one in one lookup however many records the tenant has, and a partial index of the
 * undecided records by expiry keeps the prune one index search (issue 14). docs/approvals.md.
 */
import { DurableObject } from "cloudflare:workers";
import { decideProblem, InputError, newestFirst, standingKey, standingKeyOf, type Approval, type ApprovalStore, type DecideAnswer, type PendingRecord, type SignedReceipt } from "../../portable/engine/index.js";
import { checkId, type WorkerApprovalStore } from "./approvals-store.js";

const KEEP_UNDECIDED_MS = 7 * 86_400_000;
const PRUNE_PER_ADD = 20;
/** the newest records one list answers, and at most as many more still undecided */
const LIST_LIMIT = 200;

type Row = { record: SqlStorageValue; receipt: SqlStorageValue; used: SqlStorageValue; withdrawn: SqlStorageValue };
const COLUMNS = "record, receipt, used, withdrawn";

export class ApprovalObject extends DurableObject {
  private readonly sql: SqlStorage;
  /**
   * No undecided record expires before this (ms; at most the true first, as a decide only takes
   * records out of the undecided): an add prunes only once one could be a week past it. The
   * prune's DELETE was half of an add's cost when it found nothing (issue 14, round 10).
   */
  private undecidedFrom: number | undefined;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS approvals (id TEXT PRIMARY KEY, created INTEGER NOT NULL, expires INTEGER NOT NULL, record TEXT NOT NULL, receipt TEXT, used INTEGER NOT NULL DEFAULT 0)`);
    this.sql.exec(`CREATE INDEX IF NOT EXISTS approvals_created ON approvals (created DESC, id DESC)`);
    // `withdrawn` came later: a table from before it gains the column, every row not withdrawn
    if (!this.sql.exec(`SELECT * FROM approvals LIMIT 0`).columnNames.includes("withdrawn")) {
      this.sql.exec(`ALTER TABLE approvals ADD COLUMN withdrawn INTEGER NOT NULL DEFAULT 0`);
    }
    // the prune in `add` searches undecided records by expiry: without this index every add
    // scanned the whole table, so a confirm cost more with every record the tenant ever had
    this.sql.exec(`CREATE INDEX IF NOT EXISTS approvals_undecided_expires ON approvals (expires) WHERE receipt IS NULL`);
    const indexed = this.sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'standing'`).toArray().length > 0;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS standing (key TEXT PRIMARY KEY, id TEXT NOT NULL)`);
    // an object from before the index: its standing approvals indexed once
    if (!indexed) {
      ctx.storage.transactionSync(() => {
        for (const row of this.sql.exec<Row>(`SELECT ${COLUMNS} FROM approvals WHERE receipt IS NOT NULL`).toArray()) this.index(approvalOf(row));
      });
    }
  }

  /** Index `a` if it stands, unless a newer one of the same call does. */
  private index(a: Approval): void {
    const key = standingKeyOf(a);
    if (key === null) return;
    const was = this.standingRow(key);
    if (was && newestFirst(a, was) >= 0) return;
    this.sql.exec(`INSERT INTO standing (key, id) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET id = excluded.id`, key, a.record.id);
  }

  private standingRow(key: string): Approval | null {
    const row = this.sql.exec<{ id: SqlStorageValue }>(`SELECT id FROM standing WHERE key = ?`, key).toArray()[0];
    const a = row && typeof row.id === "string" ? this.get(row.id) : null;
    // a withdrawn one stands for nothing: its session ended
    return a && !a.withdrawn ? a : null;
  }

  standing(session: string, tool: string, agent: string | null, digest: string): Approval | null {
    return this.standingRow(standingKey(session, tool, agent, digest));
  }

  /** false: a record with this id exists (one token, one record). */
  add(record: PendingRecord): boolean {
    return this.ctx.storage.transactionSync(() => {
      // one statement for the duplicate check and the insert: a row comes back only when it went in
      const added = this.sql.exec(`INSERT INTO approvals (id, created, expires, record) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING RETURNING id`, record.id, record.created, record.expires, JSON.stringify(record)).toArray().length > 0;
      if (!added) return false;
      const cutoff = record.created - KEEP_UNDECIDED_MS;
      if (this.undecidedFrom === undefined || this.undecidedFrom < cutoff) {
        this.sql.exec(`DELETE FROM approvals WHERE id IN (SELECT id FROM approvals WHERE receipt IS NULL AND expires < ? LIMIT ?)`, cutoff, PRUNE_PER_ADD);
        const first = this.sql.exec<{ e: SqlStorageValue }>(`SELECT MIN(expires) AS e FROM approvals WHERE receipt IS NULL`).toArray()[0]?.e;
        this.undecidedFrom = typeof first === "number" ? first : Infinity;
      }
      this.undecidedFrom = Math.min(this.undecidedFrom, record.expires);
      return true;
    });
  }

  /**
   * `add`, then the standing approval of the record's call: a confirm's two calls in one round
   * trip (issue 14). null when a record with this id exists.
   */
  addAndFindStanding(record: PendingRecord): { standing: Approval | null } | null {
    if (!this.add(record)) return null;
    return { standing: this.standing(record.session, record.tool, record.agent, record.digest) };
  }

  /** Nothing: one call's own cost (the bench's floor rows, through the test routes). */
  ping(): null {
    return null;
  }

  get(id: string): Approval | null {
    const row = this.sql.exec<Row>(`SELECT ${COLUMNS} FROM approvals WHERE id = ?`, id).toArray()[0];
    return row ? approvalOf(row) : null;
  }

  /**
   * The newest records, and the undecided ones that expire last: every record still waiting is
   * listed (up to LIST_LIMIT of them) however many newer ones are closed — the page shows what
   * waits from this list. Both by index (created; the undecided by expiry).
   */
  list(): Approval[] {
    return this.sql
      .exec<Row>(
        `SELECT ${COLUMNS} FROM approvals WHERE id IN (SELECT id FROM approvals ORDER BY created DESC, id DESC LIMIT ?) OR id IN (SELECT id FROM approvals WHERE receipt IS NULL ORDER BY expires DESC LIMIT ?) ORDER BY created DESC, id DESC`,
        LIST_LIMIT,
        LIST_LIMIT,
      )
      .toArray()
      .map(approvalOf);
  }

  decide(id: string, receipt: SignedReceipt, now: number): DecideAnswer {
    return this.ctx.storage.transactionSync((): DecideAnswer => {
      const a = this.get(id) ?? undefined;
      const why = decideProblem(a, receipt, now);
      if (why || !a) return { ok: false, why: why ?? "unknown", ...(a ? { approval: a } : {}) };
      this.sql.exec(`UPDATE approvals SET receipt = ? WHERE id = ? AND receipt IS NULL`, JSON.stringify(receipt), id);
      const approval = { ...a, receipt };
      this.index(approval);
      return { ok: true, approval };
    });
  }

  /** true the first time a record is marked spent (approved here, or its token presented by the host before anyone decided), false after, or for a denied, edited or withdrawn one */
  markUsed(id: string): boolean {
    return this.ctx.storage.transactionSync(() => {
      const a = this.get(id);
      if (!a || a.used || a.withdrawn || (a.receipt && a.receipt.decision !== "approve")) return false;
      this.sql.exec(`UPDATE approvals SET used = 1 WHERE id = ?`, id);
      return true;
    });
  }

  /** true the first time an undecided, or approved and unused, record is closed as withdrawn (record.ts `withdraw`) */
  withdraw(id: string): boolean {
    return this.ctx.storage.transactionSync(() => {
      const a = this.get(id);
      if (!a || a.used || a.withdrawn || (a.receipt !== null && a.receipt.decision !== "approve")) return false;
      this.sql.exec(`UPDATE approvals SET withdrawn = 1 WHERE id = ?`, id);
      return true;
    });
  }
}

function approvalOf(row: Row): Approval {
  if (typeof row.record !== "string" || (row.receipt !== null && typeof row.receipt !== "string")) throw new Error("an approvals row holds what the worker never writes");
  const a: Approval = { record: JSON.parse(row.record) as PendingRecord, receipt: row.receipt === null ? null : (JSON.parse(row.receipt) as SignedReceipt), used: row.used === 1 };
  if (row.withdrawn === 1) a.withdrawn = true;
  return a;
}

/** The ApprovalStore interface over the tenant's object (the Workers entry passes it to the app). */
export function durableApprovals(ns: DurableObjectNamespace<ApprovalObject>, tenant: string): WorkerApprovalStore {
  const stub = ns.get(ns.idFromName(tenant));
  const exists = (id: string) => new InputError(`a pending confirmation \`${id}\` exists`, "/id");
  // the call copies its arguments (structured clone), so the record is not copied here first
  return {
    add: async (r) => {
      if (!(await stub.add({ ...r, id: checkId(r.id) }))) throw exists(r.id);
    },
    addAndFindStanding: async (r) => {
      const got = (await stub.addAndFindStanding({ ...r, id: checkId(r.id) })) as { standing: Approval | null } | null;
      if (!got) throw exists(r.id);
      return got.standing ?? undefined;
    },
    get: async (id) => (await stub.get(checkId(id))) ?? undefined,
    list: async () => await stub.list(),
    decide: async (id, receipt, now) => await stub.decide(checkId(id), receipt, now),
    markUsed: async (id) => await stub.markUsed(checkId(id)),
    withdraw: async (id) => await stub.withdraw(checkId(id)),
    standing: async (session, tool, agent, digest) => (await stub.standing(session, tool, agent, digest)) ?? undefined,
  };
}
