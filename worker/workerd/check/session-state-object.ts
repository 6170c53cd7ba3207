/**
 * One Durable Object per session (`idFromName(JSON [tenant, session])`) holding its newest head,
 * the names it spent and its tallies (layout in STORAGE.md). A commit is one synchronous SQL
 * transaction: the object runs one call at a time and nothing awaits inside, so of any number of
 * concurrent commits expecting one head, from any number of isolates, exactly one succeeds.
 * A session idle for IDLE_MS is reclaimed by an alarm. Values that are not what it writes
 * answer `{damaged}`, which durable-stores.ts turns into StoreDamaged.
 */
import { DurableObject } from "cloudflare:workers";
import { stateRules, type CommitAnswer, type Head } from "../../portable/engine/index.js";

const { IDLE_MS, addTallies, firstSpent, headMatches, isCount } = stateRules;
const DAY = 86_400_000;

/** What crosses the RPC boundary: plain arrays, no Set. */
export interface WireState {
  head: Head | null;
  spent: string[];
  tallies: [string, number][];
  /** this object's epoch: new whenever its head is reset (a restart, the idle reclamation) */
  epoch: string;
}

export interface WireChange {
  expect: Head | "restart";
  next: Head;
  spend: string[];
  tally: [string, number][];
  /**
   * The epoch of the state the change was decided on, when the caller decided on a state it held
   * (session-states.ts): refused as a moved head when it is no longer this object's. Within an
   * epoch every commit makes the head longer, so a head never recurs; across a restart it can (a
   * history replayed entry for entry) over tallies and spent names that moved on.
   */
  epoch?: string;
}

export type Damaged = { damaged: string };

class Bad extends Error {}

/** What the tables hold, as this object last read or wrote them. */
interface Kept {
  head: Head | null;
  spent: Set<string>;
  tallies: Record<string, number>;
  epoch: string;
}

export class SessionStateObject extends DurableObject {
  private readonly sql: SqlStorage;
  private alarmAt: number | null | undefined;
  /**
   * The tables, read once per object life: only this object writes them, one call at a time, so
   * a load answers from memory and a commit reads nothing before it writes (issue 14: a write
   * check's load and commit were five SELECTs). Set only after a transaction succeeded; dropped
   * with the data by the alarm.
   */
  private kept: Kept | undefined;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    this.sql = ctx.storage.sql;
    this.init();
  }

  private init(): void {
    this.sql.exec(`CREATE TABLE IF NOT EXISTS head (id INTEGER PRIMARY KEY CHECK (id = 1), count INTEGER NOT NULL, link TEXT NOT NULL, touched INTEGER NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS spent (name TEXT PRIMARY KEY)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS tallies (name TEXT PRIMARY KEY, n REAL NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS epoch (id INTEGER PRIMARY KEY CHECK (id = 1), value TEXT NOT NULL)`);
  }

  /** The epoch row, made on first use (an object written before epochs existed gets one too). */
  private epoch(): string {
    const row = this.sql.exec<{ value: SqlStorageValue }>(`SELECT value FROM epoch WHERE id = 1`).toArray()[0];
    if (!row) return this.newEpoch();
    if (typeof row.value !== "string" || row.value.length === 0) throw new Bad(`its epoch is \`${JSON.stringify(row)}\`, not a string`);
    return row.value;
  }

  private newEpoch(): string {
    const value = crypto.randomUUID();
    this.sql.exec(`INSERT INTO epoch (id, value) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET value = excluded.value`, value);
    return value;
  }

  private head(): Head | null {
    const row = this.sql.exec<{ count: SqlStorageValue; link: SqlStorageValue }>(`SELECT count, link FROM head WHERE id = 1`).toArray()[0];
    if (!row) return null;
    if (typeof row.count !== "number" || !Number.isSafeInteger(row.count) || row.count < 0 || typeof row.link !== "string") throw new Bad(`its head is \`${JSON.stringify(row)}\`, not {count, link}`);
    return { count: row.count, link: row.link };
  }

  private tallies(): Record<string, number> {
    const out: Record<string, number> = Object.create(null);
    for (const r of this.sql.exec<{ name: SqlStorageValue; n: SqlStorageValue }>(`SELECT name, n FROM tallies`)) {
      if (typeof r.name !== "string" || !isCount(r.n)) throw new Bad(`tally \`${String(r.name)}\` holds \`${String(r.n)}\`, not a count`);
      out[r.name] = r.n;
    }
    return out;
  }

  private state(): Kept {
    if (!this.kept) {
      const spent = this.sql.exec<{ name: string }>(`SELECT name FROM spent`).toArray().map((r) => r.name);
      this.kept = { head: this.head(), spent: new Set(spent), tallies: this.tallies(), epoch: this.epoch() };
    }
    return this.kept;
  }

  load(): WireState | Damaged {
    try {
      const k = this.state();
      return { head: k.head, spent: [...k.spent], tallies: Object.entries(k.tallies), epoch: k.epoch };
    } catch (err) {
      if (err instanceof Bad) return { damaged: err.message };
      throw err;
    }
  }

  async commit(c: WireChange): Promise<(CommitAnswer & { epoch?: string }) | Damaged> {
    let answer: CommitAnswer & { epoch?: string };
    let moved: Kept | undefined;
    try {
      const k = this.state();
      answer = this.ctx.storage.transactionSync((): CommitAnswer & { epoch?: string } => {
        if (!headMatches(k.head, c.expect) || (c.epoch !== undefined && c.epoch !== k.epoch)) return { ok: false, why: "head", head: k.head };
        const spent = firstSpent(c.spend, (n) => k.spent.has(n));
        if (spent !== undefined) return { ok: false, why: "spent", name: spent };
        for (const n of c.spend) this.sql.exec(`INSERT INTO spent (name) VALUES (?)`, n);
        const tallies = c.tally.length > 0 ? addTallies(k.tallies, c.tally) : k.tallies;
        for (const [name] of c.tally) this.sql.exec(`INSERT INTO tallies (name, n) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET n = excluded.n`, name, tallies[name]!);
        this.sql.exec(`INSERT INTO head (id, count, link, touched) VALUES (1, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET count = excluded.count, link = excluded.link, touched = excluded.touched`, c.next.count, c.next.link, Date.now());
        // a restart resets the head: heads it makes may repeat ones of the epoch before
        const epoch = c.expect === "restart" ? this.newEpoch() : k.epoch;
        moved = { head: { count: c.next.count, link: c.next.link }, spent: c.spend.length > 0 ? new Set([...k.spent, ...c.spend]) : k.spent, tallies, epoch };
        return { ok: true, epoch };
      });
    } catch (err) {
      if (err instanceof Bad) return { damaged: err.message };
      throw err;
    }
    // what is kept moves only once the transaction is in (one that threw wrote nothing)
    if (answer.ok && moved) this.kept = moved;
    if (answer.ok) await this.keepAlarm();
    return answer;
  }

  /** Idle reclamation: the alarm sits IDLE_MS after the last commit, moved at most once a day. */
  private async keepAlarm(): Promise<void> {
    const want = Date.now() + IDLE_MS;
    if (this.alarmAt === undefined) this.alarmAt = await this.ctx.storage.getAlarm();
    if (this.alarmAt !== null && this.alarmAt > want - DAY) return;
    await this.ctx.storage.setAlarm(want);
    this.alarmAt = want;
  }

  override async alarm(): Promise<void> {
    const row = this.sql.exec<{ touched: number }>(`SELECT touched FROM head WHERE id = 1`).toArray()[0];
    const due = (row?.touched ?? 0) + IDLE_MS;
    if (due > Date.now()) {
      await this.ctx.storage.setAlarm(due);
      this.alarmAt = due;
      return;
    }
    this.alarmAt = null;
    this.kept = undefined;
    await this.ctx.storage.deleteAll();
    this.kept = undefined;
    this.init(); // the object lives on in memory: a later commit starts a fresh session
  }

  /** Nothing: one call's own cost (the bench's floor rows, through the test routes). */
  ping(): null {
    return null;
  }

  /** Rows held (the test routes). */
  rows(): { spent: number; tallies: number; head: number } {
    const n = (t: string) => this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${t}`).one().n;
    return { spent: n("spent"), tallies: n("tallies"), head: n("head") };
  }
}
