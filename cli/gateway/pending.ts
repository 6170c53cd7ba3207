/**
 * The smallest pending-confirmation store (issue 11, until the approvals issue 12 grows it into
 * `stalwart approvals` with signed receipts and a page): one JSON file per confirmation under
 * `<home>/approvals/pending/`, written whole and renamed into place, so processes sharing a home
 * read complete records. A record holds what a person needs to decide — the tool, the exact
 * arguments with their origins, the reasons in words — and the check's bound token, which an
 * approval lets the identical call (same session, tool and argument digest) spend once.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalize, InputError } from "../../worker/portable/engine/index.js";

export type PendingStatus = "pending" | "approved" | "denied" | "used" | "expired";

export interface PendingRecord {
  v: 1;
  id: string;
  /** the stalwart session id the token is bound to */
  session: string;
  step: number;
  tool: string;
  args: Record<string, unknown>;
  /** hex SHA-256 of the canonical arguments */
  digest: string;
  origins: Record<string, { origin: string; labels: string[] }>;
  reasons: string[];
  wording: string;
  token: string;
  created: string;
  expires: string;
  status: PendingStatus;
  decided?: { by: string; at: string; message?: string };
}

export function argsDigest(args: unknown): string {
  return createHash("sha256").update(canonicalize(args)).digest("hex");
}

const ID = /^p_[0-9a-f]{16}$/;

export class PendingStore {
  readonly dir: string;

  constructor(home: string, private readonly now: () => Date = () => new Date()) {
    this.dir = join(home, "approvals", "pending");
  }

  add(r: Omit<PendingRecord, "v" | "id" | "created" | "status">): PendingRecord {
    const record: PendingRecord = { v: 1, id: `p_${randomBytes(8).toString("hex")}`, created: this.now().toISOString(), status: "pending", ...r };
    this.write(record);
    return record;
  }

  get(id: string): PendingRecord | undefined {
    if (!ID.test(id)) throw new InputError(`\`${id}\` is not a pending confirmation id (p_ and 16 hex digits)`);
    try {
      return this.expire(JSON.parse(readFileSync(join(this.dir, `${id}.json`), "utf8")) as PendingRecord);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
  }

  /** Every record, newest first. */
  list(): PendingRecord[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    const out: PendingRecord[] = [];
    for (const n of names) {
      if (!n.endsWith(".json") || !ID.test(n.slice(0, -5))) continue;
      const r = this.get(n.slice(0, -5));
      if (r) out.push(r);
    }
    return out.sort((a, b) => (a.created < b.created ? 1 : a.created > b.created ? -1 : 0));
  }

  approve(id: string, by = "cli", message?: string): PendingRecord {
    return this.decide(id, "approved", by, message);
  }

  deny(id: string, by = "cli", message?: string): PendingRecord {
    return this.decide(id, "denied", by, message);
  }

  /** The approved, unexpired record for exactly this call in this session, if any. */
  approvedFor(session: string, tool: string, digest: string): PendingRecord | undefined {
    return this.list().find((r) => r.status === "approved" && r.session === session && r.tool === tool && r.digest === digest);
  }

  /** The approval was spent (the check allowed the call with its token). */
  markUsed(id: string): void {
    const r = this.get(id);
    if (r && r.status === "approved") this.write({ ...r, status: "used" });
  }

  private decide(id: string, status: "approved" | "denied", by: string, message?: string): PendingRecord {
    const r = this.get(id);
    if (!r) throw new InputError(`no pending confirmation \`${id}\` in ${this.dir}`);
    if (r.status !== "pending") throw new InputError(`confirmation \`${id}\` is already ${r.status}`);
    const decided: PendingRecord = { ...r, status, decided: { by, at: this.now().toISOString(), ...(message !== undefined ? { message } : {}) } };
    this.write(decided);
    return decided;
  }

  private expire(r: PendingRecord): PendingRecord {
    if ((r.status === "pending" || r.status === "approved") && Date.parse(r.expires) <= this.now().getTime()) return { ...r, status: "expired" };
    return r;
  }

  private write(r: PendingRecord): void {
    mkdirSync(this.dir, { recursive: true });
    const file = join(this.dir, `${r.id}.json`);
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    writeFileSync(tmp, JSON.stringify(r, null, 2) + "\n", { mode: 0o600 });
    renameSync(tmp, file);
  }
}
