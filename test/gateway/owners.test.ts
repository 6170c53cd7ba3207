/**
 * A gateway that was killed could not withdraw its pending confirmations as it stopped: the next
 * gateway to start on the home withdraws them, once it can tell that the process which asked has
 * ended (owners.ts). One that still runs, or one it cannot see, is left alone.
 */
import { describe, expect, it } from "vitest";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ended, GatewayOwners, startOf, thisProcess, type ProcessMark } from "../../cli/approvals/owners.js";
import { MemoryApprovalStore } from "../../worker/portable/engine/index.js";
import { prng } from "../helpers/prng.js";
import { argsDigest } from "../helpers/pending-record.js";
import { startGateway } from "../../cli/gateway/index.js";
import { runGroup } from "../../cli/command.js";
import { root } from "../../cli/commands/index.js";
import { serveApprovals } from "../../cli/approvals/serve.js";
import { FileApprovalStore } from "../../cli/approvals/store.js";
import { allowedDir, downstreamClient, filesystemCatalogue, FILESYSTEM, gatewayProcess, home, overHttp, text } from "./helpers.js";

describe("whether the process that asked has ended", () => {
  const self: ProcessMark = { host: "h", boot: "b", pidns: "pid:[1]", pid: 100, start: "5000" };
  const running = (pid: number) => (pid === 200 ? "7000" : undefined);

  it("only when it can tell: the same host, boot and pid namespace, and that pid gone or another process now", () => {
    expect(ended({ ...self, pid: 200, start: "7000" }, self, running)).toBe(false); // runs
    expect(ended({ ...self, pid: 200, start: "6000" }, self, running)).toBe(true); // its pid is another process's now
    expect(ended({ ...self, pid: 300, start: "6000" }, self, running)).toBe(true); // no such pid
    expect(ended(self, self, running)).toBe(false); // this very process
    expect(ended({ ...self, pid: 300, host: "other" }, self, running)).toBe(false);
    expect(ended({ ...self, pid: 300, boot: "rebooted" }, self, running)).toBe(false);
    expect(ended({ ...self, pid: 300, pidns: "pid:[2]" }, self, running)).toBe(false); // another container
  });

  it("reads a process's start time past a command name with spaces and parentheses", () => {
    const proc = mkdtempSync(join(tmpdir(), "stalwart-proc-"));
    mkdirSync(join(proc, "42"));
    const after = Array.from({ length: 30 }, (_, i) => String(i + 3));
    writeFileSync(join(proc, "42", "stat"), `42 (a) b (c) ${after.join(" ")}\n`);
    expect(startOf(42, proc)).toBe("22");
    expect(startOf(43, proc)).toBeUndefined();
    const me = thisProcess();
    if (me) expect(startOf(process.pid)).toBe(me.start); // Linux
  });
});

async function pendingWrite(url: string, path: string): Promise<string> {
  const { client } = await overHttp(downstreamClient({}), url);
  try {
    const r = await client.callTool({ name: "write_file", arguments: { path, content: "x" } });
    expect(text(r)).toContain("waits for a person");
    return (r._meta?.["stalwart-agents/check"] as { pending: string }).pending;
  } finally {
    await client.close();
  }
}

describe("a killed gateway's pending confirmations", { timeout: 120_000 }, () => {
  it("are withdrawn by the next gateway on the home; a running one's are left", async () => {
    const h = home();
    const dir = allowedDir();
    const a = await gatewayProcess(h, filesystemCatalogue(dir, join(dir, "..", `agent-owners-${Date.now()}.yaml`)), [process.execPath, FILESYSTEM, dir]);
    let id: string;
    try {
      id = await pendingWrite(a.url, join(dir, "a.txt"));
      expect(readdirSync(join(h, "approvals", "gateways")).filter((n) => n.endsWith(".json"))).toHaveLength(1);
      // a gateway starting while the first runs leaves its record pending
      const lines: string[] = [];
      const b = await startGateway({ catalogue: filesystemCatalogue(dir, join(dir, "..", `agent-b-${Date.now()}.yaml`)), upstream: { command: process.execPath, args: [FILESYSTEM, dir] }, listen: { host: "127.0.0.1", port: 0 }, home: h, log: (l) => lines.push(l) });
      expect(b.pending.get(id)?.withdrawn).toBeUndefined();
      expect(readdirSync(join(h, "approvals", "gateways")).filter((n) => n.endsWith(".json"))).toHaveLength(2);
      await b.close();
      // the second stopped as it should: its own mark is gone, the first's is there
      expect(readdirSync(join(h, "approvals", "gateways")).filter((n) => n.endsWith(".json"))).toHaveLength(1);
      expect(lines.join("\n")).not.toContain("withdrew");
    } finally {
      a.child.kill("SIGKILL");
      await new Promise((r) => a.child.once("exit", r));
    }
    const lines: string[] = [];
    const c = await startGateway({ catalogue: filesystemCatalogue(dir, join(dir, "..", `agent-c-${Date.now()}.yaml`)), upstream: { command: process.execPath, args: [FILESYSTEM, dir] }, listen: { host: "127.0.0.1", port: 0 }, home: h, log: (l) => lines.push(l) });
    try {
      const got = c.pending.get(id!);
      if (!thisProcess()) return; // no /proc: nothing can tell that it ended, and nothing is withdrawn
      expect(got?.withdrawn).toBe(true);
      expect(lines).toContain(`withdrew 1 pending confirmation of a gateway (pid ${a.child.pid}) that stopped without withdrawing them: nothing can run those calls any more`);
      // the dead one's mark is gone; this one's is there while it runs
      expect(readdirSync(join(h, "approvals", "gateways")).filter((n) => n.endsWith(".json"))).toEqual([`${c.sessionId}.json`]);
    } finally {
      await c.close();
    }
    expect(existsSync(join(h, "approvals", "gateways", `${c.sessionId}.json`))).toBe(false);
    expect(existsSync(join(dir, "a.txt"))).toBe(false);
  });

  it("another user's mark is left alone (its processes may be hidden from this one); this user's of an ended process goes", async () => {
    const me = thisProcess();
    if (!me || process.getuid?.() !== 0) return; // needs /proc, and root to give a file to another user
    const h = home();
    const dir = join(h, "approvals", "gateways");
    mkdirSync(dir, { recursive: true });
    let dead = 4_000_000;
    while (startOf(dead) !== undefined) dead--;
    const mark = (session: string) => JSON.stringify({ v: 1, session, ...me, pid: dead, start: "1" });
    const theirs = join(dir, `${"1".repeat(32)}.json`);
    const mine = join(dir, `${"2".repeat(32)}.json`);
    writeFileSync(theirs, mark("1".repeat(32)));
    chownSync(theirs, 4242, 4242);
    writeFileSync(mine, mark("2".repeat(32)));
    expect(await new GatewayOwners(h).sweep(new MemoryApprovalStore(), Date.now(), () => undefined)).toBe(0);
    expect(existsSync(theirs)).toBe(true);
    expect(existsSync(mine)).toBe(false);
  });

  it("`stalwart approvals` withdraws them too before it shows or decides any, and so does its page while it runs", async () => {
    if (!thisProcess()) return; // no /proc: nothing can tell that a gateway ended
    const h = home();
    const dir = allowedDir();
    const killed = async (name: string) => {
      const g = await gatewayProcess(h, filesystemCatalogue(dir, join(dir, "..", `agent-${name}-${Date.now()}.yaml`)), [process.execPath, FILESYSTEM, dir]);
      const id = await pendingWrite(g.url, join(dir, `${name}.txt`));
      g.child.kill("SIGKILL");
      await new Promise((r) => g.child.once("exit", r));
      return { id, pid: g.child.pid };
    };
    const stalwart = async (argv: string[]) => {
      let stdout = "";
      let stderr = "";
      const code = await runGroup(root, [...argv, "--home", h], { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) } });
      return { code, stdout, stderr };
    };
    const first = await killed("first");
    const listed = await stalwart(["approvals", "list", "--all", "--json"]);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { record: { id: string }; status: string }[]).map((a) => [a.record.id, a.status])).toEqual([[first.id, "withdrawn"]]);
    expect(listed.stderr).toBe(`stalwart approvals: withdrew 1 pending confirmation of a gateway (pid ${first.pid}) that stopped without withdrawing them: nothing can run those calls any more\n`);
    const approve = await stalwart(["approvals", "approve", first.id]);
    expect(approve.code).toBe(1);
    expect(approve.stderr).toContain("withdrawn");

    const lines: string[] = [];
    const page = await serveApprovals({ home: h, host: "127.0.0.1", port: 0, code: "123456", sweepMs: 100, log: (l) => lines.push(l) });
    try {
      const second = await killed("second");
      for (let waited = 0; waited < 5000 && !lines.some((l) => l.includes(`pid ${second.pid}`)); waited += 100) await new Promise((r) => setTimeout(r, 100));
      expect(new FileApprovalStore(h).get(second.id)?.withdrawn).toBe(true);
      expect(lines).toEqual([`withdrew 1 pending confirmation of a gateway (pid ${second.pid}) that stopped without withdrawing them: nothing can run those calls any more`]);
    } finally {
      await page.close();
    }
  });

  it("a mark that cannot be read is left as it is, and said", async () => {
    const h = home();
    const dir = allowedDir();
    mkdirSync(join(h, "approvals", "gateways"), { recursive: true });
    const bad = join(h, "approvals", "gateways", `${"0".repeat(32)}.json`);
    writeFileSync(bad, "{not json");
    const lines: string[] = [];
    const g = await startGateway({ catalogue: filesystemCatalogue(dir, join(dir, "..", `agent-bad-${Date.now()}.yaml`)), upstream: { command: process.execPath, args: [FILESYSTEM, dir] }, listen: { host: "127.0.0.1", port: 0 }, home: h, log: (l) => lines.push(l) });
    await g.close();
    expect(existsSync(bad)).toBe(true);
    if (thisProcess()) expect(lines).toContain(`${bad} cannot be read as a gateway's mark: left as it is (the records of its session expire)`);
  });
});

describe("marks as the next gateway finds them (fuzz)", () => {
  it("never throws; withdraws only for a well-formed mark of an ended process (seed 3701, 300 marks)", async () => {
    const me = thisProcess();
    if (!me) return; // no /proc: nothing is judged
    const rand = prng(3701);
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    let dead = 4_000_000;
    while (startOf(dead) !== undefined) dead--;
    const h = home();
    const dir = join(h, "approvals", "gateways");
    mkdirSync(dir, { recursive: true });
    const store = new MemoryApprovalStore();
    const expected = new Map<string, boolean>();
    const breakers: ((m: Record<string, unknown>) => void)[] = [
      (m) => delete m[pick(["v", "session", "host", "boot", "pidns", "pid", "start"])],
      (m) => (m[pick(["host", "boot", "pidns", "start", "session"])] = pick([1, null, true, [], {}])),
      (m) => (m.pid = pick([-1, 0, 1.5, "12", null, 2 ** 60, Number.NaN])),
      (m) => (m.v = pick([2, 0, "1", null])),
      (m) => (m.session = "f".repeat(32)),
    ];
    for (let i = 0; i < 300; i++) {
      const session = i.toString(16).padStart(32, "0");
      const mark: Record<string, unknown> = { v: 1, session, ...me, pid: dead, start: "1" };
      const kind = rand();
      let text: string;
      if (kind < 0.3) text = JSON.stringify(mark); // well formed, ended: withdrawn
      else if (kind < 0.4) text = JSON.stringify({ ...mark, pid: process.pid, start: me.start }); // this process: kept
      else if (kind < 0.8) {
        pick(breakers)(mark);
        text = JSON.stringify(mark);
      } else text = Buffer.from(Array.from({ length: Math.floor(rand() * 200) }, () => Math.floor(rand() * 256))).toString("latin1");
      if (rand() < 0.2) text = `{"__proto__":{"v":1},${text.slice(1)}`;
      writeFileSync(join(dir, `${session}.json`), text);
      const args = { path: `/n/${i}` };
      store.add({ v: 1, id: `p_${i.toString(16).padStart(16, "0")}`, session, step: 2, tool: "write_file", agent: null, args, digest: argsDigest(args), origins: {}, reasons: ["write"], wording: "Allow write_file?", counters: [], token: `t${i}`, created: 0, expires: Date.now() + 60_000 });
      // a `__proto__` key is an own property of what JSON.parse makes: it neither spoils a good mark nor lends a broken one its `v`
      expected.set(`p_${i.toString(16).padStart(16, "0")}`, kind < 0.3);
    }
    const lines: string[] = [];
    const withdrawn = await new GatewayOwners(h).sweep(store, Date.now(), (l) => lines.push(l));
    for (const [id, want] of expected) expect(store.get(id)?.withdrawn === true, id).toBe(want);
    expect(withdrawn).toBe([...expected.values()].filter(Boolean).length);
  });
});
