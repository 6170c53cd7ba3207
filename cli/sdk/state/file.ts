/**
 * One home's store file, shared by every NodeStateStore of this process on that home: the LMDB
 * environment (`state.mdb`, atomic across processes through LMDB's writer lock), its witness
 * (`state.witness`), and the checks that make a damaged store throw instead of reset. Layout and
 * the witness protocol: STORAGE.md.
 */
import { existsSync, fstatSync, mkdirSync, openSync, closeSync, type Stats } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { asBinary, type RootDatabase } from "lmdb";
import { environmentAt, type Tables } from "./environments.js";
import { MappedFile, RESTART_HINT } from "./mapped-file.js";
import { StoreDamaged } from "../../../worker/portable/engine/index.js";
import { holdsItsPages, lmdbFailed, lmdbFileProblem, readyToMap } from "./lmdb-header.js";
import { acquireGate, gateLockMoved, releaseGate, throughGate } from "./open-gate.js";
import { Witness, createWitness } from "./witness.js";
import { FileLooks, statOf, type Ident } from "./file-ident.js";
import { Garbage, checkCounterRow, checkMeta, checkReservationRow, checkSessionRow, parseExpiry, type MetaRow } from "./rows.js";

export const FILES = { db: "state.mdb", lock: "state.mdb-lock", witness: "state.witness", legacy: ["counters.table", "counters.json"] } as const;

export type { Tables } from "./environments.js";

/** One transaction: the tables, the meta row (written back when dirty), and whether it wrote anything (then the generation moves on). */
export interface Tx extends Tables {
  dirty: boolean;
  row: MetaRow;
}

export interface FileOptions {
  /** fsync every commit (slow: milliseconds); default off, see STORAGE.md "Durability" */
  sync?: boolean;
  /** who creates a store, recorded in it */
  by?: string;
}

/**
 * How long before a look the home folder must have last changed for its stat to stand for its
 * entries: longer than any file system's time stamp step (2 s on FAT), so a change made after the
 * look cannot carry the time stamp seen.
 */
const RACY_MS = 3000;

export class StateFile {
  readonly dbPath: string;
  readonly witnessPath: string;
  private env: RootDatabase | undefined;
  private tables: Tables | undefined;
  private witness: Witness | undefined;
  private dbFd: number | undefined;
  private dbIno = -1;
  /** the lock file the environment holds: LMDB's reader table and writer mutex live there */
  private lock: MappedFile | undefined;
  /** `state.mdb` as mapped: cut short in use, LMDB's next touch past its end would kill the process */
  private dbMap: MappedFile | undefined;
  private damage: { error: StoreDamaged; ident: Ident } | undefined;
  /** Moves on with every opening: what a process kept of one opening says nothing of the next. */
  epoch = 0;

  constructor(readonly home: string, private readonly opts: FileOptions = {}) {
    this.dbPath = join(home, FILES.db);
    this.witnessPath = join(home, FILES.witness);
    this.files = new FileLooks(this.dbPath, this.witnessPath);
  }
  private readonly files: FileLooks;

  /** This process's hold on the home's open gate (open-gate.ts), taken on first use. */
  private gate: string | undefined;
  private gated<R>(fn: () => R): R {
    return throughGate((this.gate ??= acquireGate(this.home)), fn);
  }

  /**
   * `fn` inside one LMDB write transaction (it holds the writer lock of every process on this
   * home), after every integrity check; `after` runs inside it when `fn` wrote (reclaiming), then
   * the generation moves on in the store and in the witness, the witness last. All of it through
   * the open gate: no process opens the store while this may commit.
   */
  run<R>(fn: (tx: Tx) => R, after?: (tx: Tx) => void): R {
    return this.gated(() => this.runGated(fn, after));
  }

  private runGated<R>(fn: (tx: Tx) => R, after?: (tx: Tx) => void): R {
    this.ready();
    this.checkFiles();
    const env = this.env!;
    const tables = this.tables!;
    return this.mapped(() =>
      env.transactionSync(() => {
        const meta = this.verify(tables);
        const tx: Tx = { ...tables, dirty: false, row: meta };
        const r = fn(tx);
        if (tx.dirty) {
          after?.(tx);
          const generation = meta.generation + 1;
          this.putMeta(tables, { ...tx.row, generation });
          this.witness!.write({ id: meta.id, generation });
        }
        return r;
      }),
    );
  }

  /**
   * `fn` over a read snapshot taken now (LMDB readers take no lock and wait for no writer), after
   * the same checks as `run`: the files, then the snapshot's meta row against the witness. The
   * witness is written before a writer commits, so a snapshot that equals it holds everything any
   * process committed, and nothing is detectable against it; when they differ (a writer between
   * the two reads, or damage) the read is done again in a write transaction, under the lock, where
   * a difference is damage. `fn` must not write.
   */
  read<R>(fn: (t: Tables, meta: MetaRow) => R): R {
    this.ready();
    this.checkFiles();
    const env = this.env!;
    const tables = this.tables!;
    return this.mapped(() => {
      // lmdb-js keeps a read snapshot for the rest of the event-loop turn: start a new one.
      env.resetReadTxn();
      const meta = this.metaRow(tables);
      const w = this.witness!.read();
      if (meta === undefined || meta.damaged || typeof w === "string" || w.id !== meta.id || w.generation !== meta.generation) {
        return env.transactionSync(() => fn(tables, this.verify(tables)));
      }
      return fn(tables, meta);
    });
  }

  /** Errors of an operation as the store reports them: garbage and LMDB failures are damage. */
  private mapped<R>(op: () => R): R {
    try {
      return op();
    } catch (err) {
      if (err instanceof Garbage) throw this.fail(err.what, err.opts.latch !== false, err.opts.where);
      if (err instanceof StoreDamaged) throw err;
      const failed = lmdbFailed(err);
      if (failed) throw this.fail(failed, false);
      throw err;
    }
  }

  /**
   * The meta row, checked. Every operation reads it: a value already decoded (the same bytes) is
   * not decoded again — a memo of the decoding only, so it holds whoever wrote the row.
   */
  private metaRow(t: Tables): MetaRow | undefined {
    const raw = t.meta.getBinaryFast("meta");
    if (raw === undefined) return undefined;
    // lmdb-js hands out its shared read buffer with `length` set to the value's: a view of just that.
    const bytes = raw.subarray(0, raw.length);
    const last = this.lastMeta;
    if (last && last.bytes.equals(bytes)) return last.row;
    const row = Object.freeze(checkMeta(t.meta.get("meta")));
    this.lastMeta = { bytes: Buffer.from(bytes), row };
    return row;
  }
  private lastMeta: { bytes: Buffer; row: MetaRow } | undefined;
  private metaEncoder: { encode(value: unknown): Uint8Array } | undefined;

  /** Write the meta row, encoded here so that the next operation knows its bytes (metaRow). */
  private putMeta(t: Tables, row: MetaRow): void {
    const bytes = Buffer.from(this.metaEncoder!.encode(row));
    t.meta.putSync("meta", asBinary(bytes));
    this.lastMeta = { bytes, row: Object.freeze(row) };
  }

  /** The meta row, after checking it against the witness; throws Garbage or StoreDamaged. */
  private verify(tx: Tables): MetaRow {
    const meta = checkMeta(this.metaRow(tx));
    if (meta.damaged) throw new Garbage(`it was found damaged at ${meta.damaged.at}: ${meta.damaged.what}`, { latch: false });
    const w = this.witness!.read();
    if (typeof w === "string") throw new Garbage(`its witness \`${this.witnessPath}\` is unreadable: ${w}`, { latch: false, where: this.witnessPath });
    if (w.id !== meta.id) throw new Garbage(`it is not the store its witness \`${this.witnessPath}\` names (replaced by another store)`);
    if (meta.generation < w.generation) throw new Garbage(`it is older than its witness (generation ${meta.generation}, the witness saw ${w.generation}): restored from an older copy`);
    if (meta.generation > w.generation) throw new Garbage(`its witness \`${this.witnessPath}\` is behind (generation ${meta.generation}, the witness ${w.generation}): the witness was restored from an older copy`);
    return meta;
  }

  /** Open the store when it is not; a damaged store throws until its files change (a reset). */
  private ready(): void {
    if (this.env) return;
    if (this.damage) {
      if (this.files.now() === this.damage.ident) throw this.damage.error;
      this.damage = undefined;
    }
    try {
      this.gated(() => this.open());
    } catch (err) {
      if (err instanceof Garbage) throw this.fail(err.what, err.opts.latch !== false, err.opts.where);
      this.shut();
      const failed = lmdbFailed(err);
      const error = failed ? new StoreDamaged(this.dbPath, failed) : err;
      if (error instanceof StoreDamaged) this.damage = { error, ident: this.files.damageIdent() };
      throw error;
    }
  }

  private open(): void {
    this.files.look();
    this.epoch++;
    mkdirSync(this.home, { recursive: true, mode: 0o700 });
    const db = statOf(this.dbPath);
    const legacy = FILES.legacy.map((f) => join(this.home, f)).filter((f) => existsSync(f));
    if (!db) {
      const w = existsSync(this.witnessPath) ? new Witness(this.witnessPath) : undefined;
      const v = w?.read();
      w?.close();
      if (typeof v === "string") throw new StoreDamaged(this.witnessPath, `its witness is unreadable (${v}) and the store is missing`);
      if (v && v.generation > 0) throw new StoreDamaged(this.dbPath, `it is missing (deleted?): its witness \`${this.witnessPath}\` says generation ${v.generation} was written`);
      if (legacy.length > 0) throw new StoreDamaged(legacy[0]!, "the counters of an earlier version are not carried over into the new store; until a reset starts it, counted calls are refused");
    } else {
      if (!db.isFile()) throw new StoreDamaged(this.dbPath, "it is not a regular file (a pipe, a device or a socket was put in its place)");
      this.headerOk(db);
    }
    const opened = environmentAt(this.dbPath, this.opts.sync === true);
    this.lock = opened.lock;
    this.lockHeld(true);
    const env = (this.env = opened.env);
    const t = (this.tables = opened.tables);
    this.metaEncoder = opened.metaEncoder;
    env.transactionSync(() => {
      const raw = t.meta.get("meta");
      const witnessThere = existsSync(this.witnessPath);
      if (raw === undefined) {
        if (t.sessions.getCount() + t.counters.getCount() + t.reservations.getCount() > 0) throw new Garbage("its meta record is missing but it holds rows");
        const v = witnessThere ? new Witness(this.witnessPath) : undefined;
        const prior = v?.read();
        v?.close();
        if (typeof prior === "string" || (prior && prior.generation > 0)) throw new StoreDamaged(this.dbPath, `it is empty but its witness \`${this.witnessPath}\` says generation ${typeof prior === "string" ? "?" : prior.generation} was written (zeroed or replaced by a new file)`);
        const id = randomBytes(16).toString("hex");
        const meta: MetaRow = { format: 1, id, generation: 0, created: { at: new Date().toISOString(), by: this.opts.by ?? `pid ${process.pid}` }, resets: [] };
        t.meta.putSync("meta", meta);
        createWitness(this.witnessPath, { id, generation: 0 });
      } else if (!witnessThere) {
        const meta = checkMeta(raw);
        if (meta.generation > 0) throw new StoreDamaged(this.witnessPath, `the witness of \`${this.dbPath}\` is missing (deleted?) and the store is at generation ${meta.generation}`);
        createWitness(this.witnessPath, { id: meta.id, generation: 0 });
      }
    });
    this.witness = new Witness(this.witnessPath);
    this.dbFd = openSync(this.dbPath, "r");
    this.dbIno = fstatSync(this.dbFd).ino;
    this.dbMap = new MappedFile(this.dbPath, holdsItsPages);
    env.transactionSync(() => this.verify(t));
    this.scan();
  }

  /** Every row checked once per open: a NaN anywhere fails the store, not only where it is touched. */
  private scan(): void {
    const t = this.tables!;
    for (const { key, value } of t.sessions.getRange({})) checkSessionRow(value, String(key));
    for (const { key, value } of t.counters.getRange({})) checkCounterRow(value, String(key));
    for (const { key, value } of t.reservations.getRange({})) checkReservationRow(value, String(key));
    for (const { key } of t.expiry.getRange({})) parseExpiry(key);
    for (const { key, value } of t.spent.getRange({})) if (value !== 1) throw new Garbage(`spent name \`${String(key)}\` holds \`${String(value)}\``);
  }

  /**
   * Before every operation: the files are still the ones opened, and still look like a store.
   * Deleting, replacing or renaming either file changes the home folder's entries, so while the
   * folder's own stat is the one seen at the last full look, only the header is read again (one
   * `stat` and one `pread` instead of two `stat`s and one `pread`); a truncated or zeroed file is
   * caught by that read. `dirSeen` is kept only from a folder last changed long enough before it
   * was looked at that a later change cannot carry the same time stamp (RACY_MS, as git does).
   */
  private checkFiles(): void {
    const dir = statOf(this.home);
    const seen = this.dirSeen;
    if (dir && seen && dir.ino === seen.ino && dir.mtimeMs === seen.mtimeMs && dir.ctimeMs === seen.ctimeMs) {
      const problem = lmdbFileProblem(this.dbFd!);
      if (problem) throw this.fail(problem, false);
      this.lockHeld(false);
      return;
    }
    this.dirSeen = undefined;
    this.checkEachFile();
    if (dir && this.env && Date.now() - Math.max(dir.mtimeMs, dir.ctimeMs) > RACY_MS) this.dirSeen = { ino: dir.ino, mtimeMs: dir.mtimeMs, ctimeMs: dir.ctimeMs };
  }
  private dirSeen: { ino: number; mtimeMs: number; ctimeMs: number } | undefined;

  /** The full look: each file's inode against the open one, then the header. */
  private checkEachFile(): void {
    const db = statOf(this.dbPath);
    const w = statOf(this.witnessPath);
    this.files.saw({ db, witness: w });
    if (!db) throw this.fail("it was deleted while in use", false);
    if (!w) throw this.fail(`its witness \`${this.witnessPath}\` was deleted while in use`, true, this.witnessPath);
    if (db.ino !== this.dbIno || w.ino !== this.witness!.ino) {
      // Replaced (a reset, or a copy put back): open what is there now, with every check.
      this.shut();
      this.ready();
      return;
    }
    const problem = lmdbFileProblem(this.dbFd!, db.size);
    if (problem) throw this.fail(problem, false);
    this.lockHeld(true);
  }

  /** The lock files this process holds are still whole (each operation) and still the ones on disk (`full`: the full look). Not damage of the store: nothing is marked in it. */
  private lockHeld(full: boolean): void {
    const cut = this.dbMap?.cutShort();
    if (cut) throw this.fail(cut, true);
    const lock = this.lock!;
    const gate = full && this.gate !== undefined ? gateLockMoved(this.gate) : undefined;
    const what = lock.cutShort() ?? (full ? lock.moved() : undefined) ?? gate;
    if (what) throw this.fail(`its lock file ${what}`, false, gate && what === gate ? `${this.gate}-lock` : lock.path, RESTART_HINT);
  }

  /** Before LMDB maps the file: it looks like a store. */
  private headerOk(db: Stats): void {
    const w = existsSync(this.witnessPath) ? new Witness(this.witnessPath) : undefined;
    const v = w?.read();
    w?.close();
    const problem = readyToMap(this.dbPath, db.size);
    if (problem) {
      // An empty file and no witness past generation 0: a store whose creation never finished.
      if (db.size === 0 && !(typeof v === "object" && v.generation > 0)) return;
      throw new StoreDamaged(this.dbPath, problem);
    }
  }

  /**
   * Record the damage (in the store when it can still be written, so every process sharing it
   * stops, not only the one that saw it) and stop using the store; the error to throw.
   */
  private fail(what: string, latch: boolean, where = this.dbPath, hint?: string): StoreDamaged {
    const error = new StoreDamaged(where, what, hint);
    if (latch && this.env && this.tables) {
      const env = this.env;
      const t = this.tables;
      try {
        this.gated(() =>
          env.transactionSync(() => {
            const raw = t.meta.get("meta");
            if (typeof raw === "object" && raw !== null && !(raw as MetaRow).damaged) t.meta.putSync("meta", { ...(raw as MetaRow), damaged: { what, at: new Date().toISOString() } });
          }),
        );
      } catch {
        // the store cannot even take the mark: the files themselves still say what is wrong
      }
    }
    this.shut();
    this.damage = { error, ident: this.files.damageIdent() };
    return error;
  }



  /** Rows held per table (status, tests). */
  counts(): Record<keyof Tables, number> {
    return this.run((tx) => ({
      meta: tx.meta.getCount(), sessions: tx.sessions.getCount(), spent: tx.spent.getCount(),
      counters: tx.counters.getCount(), reservations: tx.reservations.getCount(), expiry: tx.expiry.getCount(),
    }));
  }

  meta(): MetaRow {
    return this.run((tx) => checkMeta(tx.meta.get("meta")));
  }

  /** Let go of the store and of the open gate (the next operation takes both again). */
  close(): void {
    this.shut();
    if (this.gate !== undefined) releaseGate(this.gate);
    this.gate = undefined;
  }

  /**
   * Let go of the store (to open it again, or after damage); the gate stays held. The LMDB
   * environment stays open for the process's life (environments.ts says why).
   */
  private shut(): void {
    this.env = undefined;
    this.dirSeen = undefined;
    this.tables = undefined;
    this.lastMeta = undefined;
    this.witness?.close();
    this.witness = undefined;
    this.dbMap?.close();
    this.dbMap = undefined;
    if (this.dbFd !== undefined) {
      try {
        closeSync(this.dbFd);
      } catch {
        // already closed
      }
      this.dbFd = undefined;
    }
  }
}
