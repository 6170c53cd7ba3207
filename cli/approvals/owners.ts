/**
 * Which gateway process asked the pending confirmations in the home, so that a later process on it
 * (the next gateway, `stalwart approvals` and its page) can withdraw those of one that stopped
 * without withdrawing them itself (killed, crashed, out of memory). A gateway withdraws its own
 * open records as it stops (cli/gateway/asked.ts); one that never got to leaves them pending until
 * their tokens expire, a day by default, and a person could approve calls that can no longer run.
 *
 * At its start, a gateway writes `approvals/gateways/<session>.json`: where it runs (host, boot,
 * pid namespace), which process it is (pid and the kernel's start time of that pid, so a pid
 * used again by another process does not read as the same one) and, with `--check-url`, the check
 * worker that holds its records. It removes the file as it stops.
 * A gateway starting later reads the files left and withdraws the open records of a session only
 * when its process provably ended: the same host, boot and pid namespace as its own, and that pid
 * gone or started at another time. Anything it cannot tell (another machine or container, a
 * reboot, a file it cannot read, a mark another user wrote, whose processes /proc may hide from
 * this one, a system without /proc) is left as it is: those records expire.
 */
import { mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { approvalStatus, surveyOf, type ApprovalStore } from "../../worker/portable/engine/index.js";

/** Which process, on which host, boot and pid namespace. */
export interface ProcessMark {
  host: string;
  boot: string;
  pidns: string;
  pid: number;
  /** the pid's start time, in clock ticks since boot (/proc/<pid>/stat, field 22) */
  start: string;
}

/** This process's mark; undefined where /proc does not say (not Linux). */
export function thisProcess(proc = "/proc"): ProcessMark | undefined {
  try {
    const start = startOf(process.pid, proc);
    if (start === undefined) return undefined;
    return { host: hostname(), boot: readFileSync(join(proc, "sys/kernel/random/boot_id"), "utf8").trim(), pidns: readlinkSync(join(proc, "self/ns/pid")), pid: process.pid, start };
  } catch {
    return undefined;
  }
}

/** The start time of `pid`, or undefined when no such process runs (or /proc cannot say). */
export function startOf(pid: number, proc = "/proc"): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(join(proc, String(pid), "stat"), "utf8");
  } catch {
    return undefined;
  }
  // the command name (field 2) is in parentheses and may hold spaces or ")": fields 3… follow the last ")"
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields[19];
}

/**
 * Whether the process `mark` names has provably ended, seen from `self`. False whenever it cannot
 * be told: another host, boot or pid namespace, where this process cannot see it.
 */
export function ended(mark: ProcessMark, self: ProcessMark, startOfPid: (pid: number) => string | undefined = startOf): boolean {
  if (mark.host !== self.host || mark.boot !== self.boot || mark.pidns !== self.pidns) return false;
  if (mark.pid === self.pid && mark.start === self.start) return false;
  const start = startOfPid(mark.pid);
  return start === undefined || start !== mark.start;
}

const SESSION = /^[0-9a-f]{32}$/;

export class GatewayOwners {
  private readonly dir: string;
  private claimed: string | undefined;

  private readonly checker: string | undefined;
  private readonly self: ProcessMark | undefined;
  private readonly startOfPid: (pid: number) => string | undefined;

  /**
   * `checker`: the check worker whose approvals hold this gateway's records (`--check-url`);
   * absent, the home's. A gateway judges only the marks of gateways whose records are where its
   * own are: it can withdraw nothing elsewhere.
   */
  constructor(home: string, o: { checker?: string | undefined; self?: ProcessMark | undefined; startOfPid?: (pid: number) => string | undefined } = {}) {
    this.dir = join(home, "approvals", "gateways");
    this.checker = o.checker;
    this.self = "self" in o ? o.self : thisProcess();
    this.startOfPid = o.startOfPid ?? startOf;
  }

  /** This gateway asks for `session` from now on. Never throws: a mark not written only means its records would expire instead. */
  claim(session: string, log: (line: string) => void): void {
    if (!this.self || !SESSION.test(session)) return;
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const tmp = join(this.dir, `.${session}.${process.pid}.tmp`);
      writeFileSync(tmp, JSON.stringify({ v: 1, session, ...this.self, ...(this.checker !== undefined ? { checker: this.checker } : {}) }) + "\n", { mode: 0o600 });
      renameSync(tmp, join(this.dir, `${session}.json`));
      this.claimed = session;
    } catch (err) {
      log(`which process asks for this session is not recorded (${(err as Error).message}): if it is killed, its pending confirmations stay pending until they expire`);
    }
  }

  /** This gateway stopped, its records withdrawn (asked.ts): its mark goes. Never throws. */
  release(): void {
    if (this.claimed === undefined) return;
    try {
      unlinkSync(join(this.dir, `${this.claimed}.json`));
    } catch {
      // gone already: nothing to release
    }
    this.claimed = undefined;
  }

  /**
   * The open records of every gateway that ended without withdrawing them, withdrawn; each such
   * gateway's mark removed once nothing of it is left open. Returns how many were withdrawn.
   * Never throws: what cannot be read or withdrawn is logged and left.
   */
  async sweep(store: ApprovalStore, now: number, log: (line: string) => void): Promise<number> {
    const self = this.self;
    if (!self || !store.withdraw) return 0;
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return 0; // none yet
    }
    const gone: { session: string; file: string; pid: number }[] = [];
    for (const name of names) {
      const session = name.slice(0, -5);
      if (!name.endsWith(".json") || !SESSION.test(session)) continue;
      const file = join(this.dir, name);
      // another user's gateway: /proc may hide its processes from this one (hidepid)
      if (!ownFile(file)) continue;
      const read = readMark(file, session);
      if (!read) {
        log(`${file} cannot be read as a gateway's mark: left as it is (the records of its session expire)`);
        continue;
      }
      // its records are elsewhere (the home's, or another check worker's): not this gateway's to withdraw
      if (read.checker !== this.checker) continue;
      if (ended(read.mark, self, this.startOfPid)) gone.push({ session, file, pid: read.mark.pid });
    }
    if (gone.length === 0) return 0;
    let all;
    try {
      // a record that cannot be read is not withdrawn (nor are the others held up by it): it expires
      all = (await surveyOf(store)).approvals;
    } catch (err) {
      log(`the pending confirmations of ${gone.length} gateway${gone.length === 1 ? "" : "s"} that stopped without withdrawing them are left (${(err as Error).message})`);
      return 0;
    }
    let n = 0;
    for (const g of gone) {
      let left = 0;
      for (const a of all) {
        if (a.record.session !== g.session) continue;
        const status = approvalStatus(a, now);
        if (status !== "pending" && status !== "approved") continue;
        try {
          if (await store.withdraw(a.record.id)) n++;
        } catch (err) {
          left++;
          log(`pending ${a.record.id} not withdrawn: ${(err as Error).message}`);
        }
      }
      if (left === 0) {
        try {
          unlinkSync(g.file);
        } catch {
          // another gateway starting at the same time removed it
        }
      }
    }
    if (n > 0) log(`withdrew ${n} pending confirmation${n === 1 ? "" : "s"} of ${gone.length === 1 ? `a gateway (pid ${gone[0]!.pid}) that` : `${gone.length} gateways that`} stopped without withdrawing them: nothing can run those calls any more`);
    return n;
  }
}

function ownFile(file: string): boolean {
  try {
    return process.getuid === undefined || statSync(file).uid === process.getuid();
  } catch {
    return false;
  }
}

function readMark(file: string, session: string): { mark: ProcessMark; checker: string | undefined } | undefined {
  try {
    const m = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    const ok = m !== null && typeof m === "object" && m.v === 1 && m.session === session && typeof m.host === "string" && typeof m.boot === "string" && typeof m.pidns === "string" && Number.isSafeInteger(m.pid) && (m.pid as number) > 0 && typeof m.start === "string" && (!Object.hasOwn(m, "checker") || typeof m.checker === "string");
    if (!ok) return undefined;
    return { mark: { host: m.host as string, boot: m.boot as string, pidns: m.pidns as string, pid: m.pid as number, start: m.start as string }, checker: Object.hasOwn(m, "checker") ? (m.checker as string) : undefined };
  } catch {
    return undefined;
  }
}

/**
 * The home's records of gateways that ended without withdrawing them, withdrawn before a person
 * reads or decides any (`stalwart approvals`, its page). Never throws.
 */
export async function withdrawEnded(home: string, store: ApprovalStore, now: number, log: (line: string) => void): Promise<number> {
  try {
    return await new GatewayOwners(home).sweep(store, now, log);
  } catch (err) {
    log(`the pending confirmations of gateways that ended were not looked for (${(err as Error).message})`);
    return 0;
  }
}
