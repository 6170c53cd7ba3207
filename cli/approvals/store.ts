/**
 * The approval store under the home (issue 12), shared by every process on it: one JSON file per
 * record under `<home>/approvals/pending/`, written whole and renamed into place, so a reader sees
 * a complete record or none; a decision is `<home>/approvals/receipts/<id>.json`, linked into
 * place — `link(2)` fails when the name exists, so of two people deciding at once exactly one
 * wins, and the loser is told; `used/<id>` is created exclusively the same way, so a token an
 * approval covers is handed out once, and `withdrawn/<id>` closes a record whose session ended
 * with its process (a gateway's). Nothing is ever rewritten, so there is no lost update.
 * `standing/<hash of the call>` names the newest standing approval of a call ("always for this
 * session"), so a confirm reads one file, not every record (issue 14); it is only an index: what it
 * names is read and checked, and a home from before it is indexed once (`standing/.indexed`).
 */
import { createHash, randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { APPROVAL_ID, canonicalize, decideProblem, tokenClaims, InputError, newestFirst, receiptProblem, recordMacProblem, signRecord, receiptShapeError, recordShapeError, StalwartError, standingKey, standingKeyOf, type Approval, type ApprovalStore, type ApprovalSurvey, type DecideAnswer, type UnreadableRecord, type Mac, type PendingRecord, type SignedReceipt } from "../../worker/portable/engine/index.js";
import { readRegular } from "../sdk/regular-file.js";
import { keepRefusal, refusalKept } from "./refusals.js";

/** The folders a record's state is in (`version()`). */
const LISTED_FOLDERS = ["pending", "receipts", "used", "withdrawn"];
/** a folder changed this recently may change again without its time moving (coarse file system clocks) */
const RACY_MS = 3000;

export class FileApprovalStore implements ApprovalStore {
  readonly dir: string;

  /**
   * `receiptMac`: the home's key, to sign each record written and verify each record and receipt
   * read back (one edited by hand, or made up, is then ApprovalUnreadable wherever it is read: the
   * page, `stalwart approvals`, a wait). Without it only their shape and call are checked, and a
   * receipt's MAC when its token is presented (the session's approval port). `verify: false`:
   * sign what is written, verify nothing read (the gateway: a standing approval that does not
   * verify is passed over where it is used, and the session verifies the token's receipt).
   */
  constructor(private readonly home: string, private readonly receiptMac?: () => Mac, private readonly o: { verify?: boolean } = {}) {
    this.dir = join(home, "approvals");
  }

  add(record: PendingRecord): void {
    checkId(record.id);
    // what the person reads (origins, wording, counters) is not bound by the token: it is MAC'd
    const written = this.receiptMac ? signRecord(this.receiptMac(), record) : record;
    this.writeNew(join(this.dir, "pending"), `${record.id}.json`, JSON.stringify(written, null, 2) + "\n", false);
  }

  get(id: string): Approval | undefined {
    return this.read(id, true);
  }

  /**
   * `verify`: the receipt's MAC too (receiptMac). The standing-approval index reads without it:
   * a standing approval counts only once its receipt verifies where it is used, and one that does
   * not is passed over there (the call is asked again), not a fault of every ask.
   */
  private read(id: string, verify: boolean): Approval | undefined {
    checkId(id);
    const file = join(this.dir, "pending", `${id}.json`);
    const record = readJson<PendingRecord>(file);
    if (!record) return undefined;
    const bad = recordShapeError(record);
    if (bad) throw unreadable(file, bad);
    if (record.id !== id) throw unreadable(file, `it holds \`${record.id}\``);
    const unbound = unboundField(record);
    if (unbound) throw unreadable(file, `its ${unbound === "arguments" ? "arguments are not the ones its digest covers" : "call is not the one its token covers"} (edited by hand?)`);
    const verifying = verify && this.o.verify !== false && this.receiptMac !== undefined;
    const edited = verifying ? recordMacProblem(this.receiptMac!(), record) : null;
    if (edited) throw unreadable(file, edited);
    const receiptFile = join(this.dir, "receipts", `${id}.json`);
    const receipt = readJson<SignedReceipt>(receiptFile) ?? null;
    const badReceipt = receipt && receiptShapeError(receipt);
    if (badReceipt) throw unreadable(receiptFile, badReceipt);
    // a receipt copied in from another record would approve this record's call on someone else's decision
    if (receipt && !receiptNames(receipt, record, id)) throw unreadable(receiptFile, `it is the receipt of another call (\`${receipt.id}\`)`);
    const forged = receipt && verifying ? receiptProblem(this.receiptMac!(), receipt) : null;
    if (forged) throw unreadable(receiptFile, forged);
    const a: Approval = { record, receipt, used: existsSync(join(this.dir, "used", id)) };
    if (existsSync(join(this.dir, "withdrawn", id))) a.withdrawn = true;
    return a;
  }

  list(): Approval[] {
    return this.all(true);
  }

  private all(verify: boolean): Approval[] {
    const out: Approval[] = [];
    for (const id of this.ids()) {
      const a = this.read(id, verify);
      if (a) out.push(a);
    }
    return out.sort(newestFirst);
  }

  survey(): ApprovalSurvey {
    const approvals: Approval[] = [];
    const unreadable: UnreadableRecord[] = [];
    for (const id of this.ids()) {
      try {
        const a = this.shown(id);
        if (a) approvals.push(a);
      } catch (err) {
        // anything but the store's own word on a file is a bug: it surfaces
        if (!(err instanceof StalwartError)) throw err;
        unreadable.push({ id, why: err.message, ...(err.hint ? { hint: err.hint } : {}) });
      }
    }
    return { approvals: approvals.sort(newestFirst), unreadable };
  }

  shown(id: string): Approval | undefined {
    const a = this.read(id, true);
    // only an undecided record can be one whose denial lost its receipt (a read of the home's store)
    if (a && !a.receipt && !a.used && !a.withdrawn && refusalKept(this.home, a.record)) throw this.refusalWithoutReceipt(id);
    return a;
  }

  /** The ids of the records under pending/, in no order. */
  private ids(): string[] {
    let names: string[];
    try {
      names = readdirSync(join(this.dir, "pending"));
    } catch (err) {
      // none yet is an empty list; one that cannot be read must not read as "nothing waits"
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw unreadable(join(this.dir, "pending"), `it cannot be read (${(err as Error).message})`);
    }
    return names.filter((n) => n.endsWith(".json") && APPROVAL_ID.test(n.slice(0, -5))).map((n) => n.slice(0, -5));
  }

  private refusalWithoutReceipt(id: string): StalwartError {
    return unreadable(join(this.dir, "receipts", `${id}.json`), "it is missing, but the home's store keeps a person's refusal of this call (the receipt was deleted or moved?): it cannot be decided again", "put the receipt back from a backup to show who decided; the call stays refused either way");
  }

  /**
   * What the folders a record's state is in say of themselves: every write of this store adds or
   * renames a file in one, which moves its time. Undefined when one changed within RACY_MS (a
   * second change in the same tick of a coarse file system clock would not move it again) or
   * cannot be read: then only `list()` can say.
   */
  version(): string | undefined {
    const now = Date.now();
    let stamp = "";
    for (const folder of LISTED_FOLDERS) {
      let st;
      try {
        st = statSync(join(this.dir, folder), { bigint: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") return undefined;
        stamp += "-;";
        continue;
      }
      if (Math.abs(now - Number(st.mtimeMs)) < RACY_MS || Math.abs(now - Number(st.ctimeMs)) < RACY_MS) return undefined;
      stamp += `${st.dev}:${st.ino}:${st.mtimeNs}:${st.ctimeNs}:${st.nlink};`;
    }
    return stamp;
  }

  decide(id: string, receipt: SignedReceipt, now: number): DecideAnswer {
    const before = this.get(id);
    const why = decideProblem(before, receipt, now);
    if (why || !before) return { ok: false, why: why ?? "unknown", ...(before ? { approval: before } : {}) };
    // undecided on disk, but a person's "no" is kept in the store: its receipt was deleted
    if (!before.receipt && refusalKept(this.home, before.record)) throw this.refusalWithoutReceipt(id);
    if (!this.writeNew(join(this.dir, "receipts"), `${id}.json`, JSON.stringify(receipt, null, 2) + "\n", true)) {
      const now2 = this.get(id);
      return { ok: false, why: "decided", ...(now2 ? { approval: now2 } : {}) };
    }
    const approval = { ...before, receipt };
    this.index(approval);
    if (receipt.decision !== "approve") {
      try {
        keepRefusal(this.home, before.record, now);
      } catch (err) {
        // A store that is damaged or unreadable refuses every check of the session that could
        // present the token, until a reset; the receipt stands. Anything else is a bug: it surfaces.
        if (!(err instanceof StalwartError)) throw err;
      }
    }
    return { ok: true, approval };
  }

  standing(session: string, tool: string, agent: string | null, digest: string): Approval | undefined {
    this.indexOnce();
    const key = standingKey(session, tool, agent, digest);
    const id = readId(join(this.dir, "standing", standingFile(key)));
    const a = id ? this.read(id, false) : undefined;
    return a && !a.withdrawn && standingKeyOf(a) === key ? a : undefined;
  }

  /** Name `a` as its call's standing approval, unless a newer one is named (two writers: either is a standing approval). */
  private index(a: Approval): void {
    const key = standingKeyOf(a);
    if (key === null) return;
    const name = standingFile(key);
    const id = readId(join(this.dir, "standing", name));
    const was = id ? this.read(id, false) : undefined;
    if (was && standingKeyOf(was) === key && newestFirst(a, was) >= 0) return;
    this.writeNew(join(this.dir, "standing"), name, `${a.record.id}\n`, false);
  }

  private indexed = false;
  /** A home whose records predate the index: every standing approval indexed, once. */
  private indexOnce(): void {
    if (this.indexed) return;
    const marker = join(this.dir, "standing", ".indexed");
    if (!existsSync(marker)) {
      for (const a of this.all(false)) this.index(a);
      this.writeNew(join(this.dir, "standing"), ".indexed", "1\n", false);
    }
    this.indexed = true;
  }

  markUsed(id: string): boolean {
    const a = this.get(id);
    if (!a || a.withdrawn || (a.receipt && a.receipt.decision !== "approve")) return false;
    return this.writeNew(join(this.dir, "used"), id, "used\n", true);
  }

  withdraw(id: string): boolean {
    const a = this.get(id);
    if (!a || a.used || a.withdrawn || (a.receipt && a.receipt.decision !== "approve")) return false;
    return this.writeNew(join(this.dir, "withdrawn"), id, "withdrawn\n", true);
  }

  /** Write `name` whole; with `exclusive`, only if it does not exist yet (false when it did). */
  private writeNew(dir: string, name: string, text: string, exclusive: boolean): boolean {
    try {
      return this.write(dir, name, text, exclusive);
    } catch (err) {
      if (err instanceof StalwartError) throw err;
      throw unreadable(join(dir, name), `it cannot be written (${(err as Error).message})`);
    }
  }

  private write(dir: string, name: string, text: string, exclusive: boolean): boolean {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, name);
    const tmp = join(dir, `.${name}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
    writeFileSync(tmp, text, { mode: 0o600 });
    if (!exclusive) {
      renameSync(tmp, file);
      return true;
    }
    try {
      linkSync(tmp, file);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw err;
    } finally {
      unlinkSync(tmp);
    }
  }
}

/**
 * The field of a record read back from a file that is not the call it says, or null: the person
 * decides on what the record shows (its arguments above all), while what runs is what its digest
 * and token cover, so a record edited by hand would have them approve one call and run another.
 * A token that does not parse binds nothing to check, and approves nothing either (step 10).
 */
function unboundField(r: PendingRecord): string | null {
  let digest: string;
  try {
    digest = nodeSha256Hex(canonicalize(r.args));
  } catch {
    return "arguments";
  }
  if (digest !== r.digest) return "arguments";
  const claims = tokenClaims(r.token);
  if (claims && (claims.digest !== r.digest || claims.session !== r.session || claims.tool !== r.tool || claims.agent !== r.agent || claims.ask !== r.step || claims.exp !== r.expires)) return "call";
  return null;
}

function nodeSha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** Whether `r` decides exactly this record: its id and the call the record's token is bound to. */
function receiptNames(r: SignedReceipt, record: PendingRecord, id: string): boolean {
  return r.id === id && r.session === record.session && r.ask === record.step && r.tool === record.tool && r.agent === record.agent && r.args === record.digest;
}

function checkId(id: string): void {
  if (typeof id !== "string" || !APPROVAL_ID.test(id)) throw new InputError(`\`${String(id)}\` is not a pending confirmation id (p_ and 16 hex digits)`, "/id");
}

function standingFile(key: string): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 32);
}

function readId(file: string): string | undefined {
  let text: string;
  try {
    text = readRegular(file, { noFollow: true }).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw unreadable(file, `it cannot be read (${(err as Error).message})`);
  }
  return APPROVAL_ID.test(text) ? text : undefined;
}

/** A record or receipt as written (a JSON object), absent, or ApprovalUnreadable: never a guess. */
function readJson<T>(file: string): T | undefined {
  let text: string;
  try {
    text = readRegular(file, { noFollow: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw unreadable(file, `it cannot be read (${(err as Error).message})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // not the parser's message: it quotes the text, which need not be a record (outside audit 23, F3)
    throw unreadable(file, text === "" ? "it is empty" : "it is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw unreadable(file, "it is not a JSON object");
  return value as T;
}

function unreadable(file: string, why: string, hint = "give this user read and write access to it; if it is damaged, restore it from a backup or move it aside (the confirmation it held is then gone: its call must be checked again)"): StalwartError {
  return new StalwartError("ApprovalUnreadable", `the approval store's \`${file}\` is unusable: ${why}`, { hint });
}
