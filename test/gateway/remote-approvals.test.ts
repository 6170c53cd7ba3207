/**
 * `stalwart gateway --check-url URL --key K` in front of a client without elicitation: the check
 * worker records every confirm it answers in the tenant's approvals, and its receipts are signed
 * under the tenant's key — so the gateway's pending id, its decisions and its standing approvals
 * are the worker's (its page, `/v1/approvals`), and a call approved there runs once. The real
 * check worker under `wrangler dev`, the real filesystem server (the disk says what ran).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { startCheckWorker, type RunningWorker } from "../helpers/check-worker.js";
import { startGateway } from "../../cli/gateway/index.js";
import { allowedDir, downstreamClient, filesystemCatalogue, FILESYSTEM, gatewayProcess, home, overHttp, text } from "./helpers.js";
import { thisProcess } from "../../cli/approvals/owners.js";

let worker: RunningWorker;
beforeAll(async () => {
  worker = await startCheckWorker(["gw"]);
}, 180_000);
afterAll(async () => {
  await worker?.stop();
});

async function api(method: string, path: string, body?: unknown) {
  const r = await fetch(worker.url + path, { method, headers: { authorization: `Bearer ${worker.keys[0]!}`, "content-type": "application/json" }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  return { status: r.status, body: (await r.json()) as Record<string, any> };
}

async function remoteGateway(tag: string, approvalWaitMs?: number) {
  const dir = allowedDir();
  const h = home();
  const gw = await startGateway({ catalogue: filesystemCatalogue(dir, join(dir, "..", `agent-${tag}-${Date.now()}.yaml`)), upstream: { command: process.execPath, args: [FILESYSTEM, dir] }, listen: { host: "127.0.0.1", port: 0 }, home: h, checkUrl: worker.url, key: worker.keys[0]!, checkTimeoutMs: SLOW_WORKER_MS, log: () => undefined, ...(approvalWaitMs ? { approvalWaitMs } : {}) });
  const { client } = await overHttp(downstreamClient({}), gw.url!);
  const write = async (path: string, content: string) => {
    const r = await client.callTool({ name: "write_file", arguments: { path, content } });
    return { r, pending: (r._meta?.["stalwart-agents/check"] as { pending?: string } | undefined)?.pending };
  };
  return { dir, h, gw, write, close: async () => { await client.close(); await gw.close(); } };
}

/**
 * The check worker runs under `wrangler dev` on the test machine, beside the rest of the suite: a
 * check there once took past the 5 s default in a full run. What these tests assert is not speed.
 */
const SLOW_WORKER_MS = 60_000;

describe("gateway --check-url, a client without elicitation", { timeout: 120_000 }, () => {
  it("the pending id is the worker's; approved there, the same call runs once", async () => {
    const { dir, write, close } = await remoteGateway("approve");
    try {
      const file = join(dir, "approved.txt");
      const first = await write(file, "hello");
      expect(first.r.isError).toBe(true);
      expect(text(first.r)).toContain(`waits for a person (pending ${first.pending}`);
      const got = await api("GET", `/v1/approvals/${first.pending}`);
      expect(got.status, JSON.stringify(got.body)).toBe(200);
      expect(got.body.approval.record).toMatchObject({ tool: "write_file", args: { path: file, content: "hello" } });
      expect((await api("POST", `/v1/approvals/${first.pending}/decide`, { decision: "approve", by: "ana" })).status).toBe(200);
      const again = await write(file, "hello");
      expect(again.r.isError, text(again.r)).toBeFalsy();
      expect(readFileSync(file, "utf8")).toBe("hello");
      expect((await api("GET", `/v1/approvals/${first.pending}`)).body.approval.used).toBe(true);
      rmSync(file);
      const third = await write(file, "hello");
      expect(third.r.isError).toBe(true);
      expect(existsSync(file)).toBe(false);
    } finally {
      await close();
    }
  });

  it("an approval of an ask older than the worker's 200 newest records still lets that call run, once", async () => {
    const { dir, write, close } = await remoteGateway("older");
    try {
      const file = join(dir, "older.txt");
      const first = await write(file, "older");
      expect(first.pending).toMatch(/^p_/);
      // 200 other calls asked after it (the worker's list holds its 200 newest records and the undecided)
      for (let i = 0; i < 200; i++) expect((await write(join(dir, `other-${i}.txt`), "x")).pending).toMatch(/^p_/);
      expect((await api("POST", `/v1/approvals/${first.pending}/decide`, { decision: "approve", by: "ana" })).status).toBe(200);
      const listed = (await api("GET", "/v1/approvals")).body.approvals as { record: { id: string } }[];
      expect(listed.some((a) => a.record.id === first.pending), "the worker no longer lists it").toBe(false);
      const again = await write(file, "older");
      expect(again.r.isError, text(again.r)).toBeFalsy();
      expect(readFileSync(file, "utf8")).toBe("older");
      rmSync(file);
      expect((await write(file, "older")).r.isError, "approved once: it runs once").toBe(true);
      expect(existsSync(file)).toBe(false);
    } finally {
      await close();
    }
  });

  it("approved with always there, later asks of the same call run at once, also several at once; a denial during --approval-wait runs nothing", async () => {
    const { dir, write, close } = await remoteGateway("always");
    try {
      const file = join(dir, "always.txt");
      const first = await write(file, "again");
      expect((await api("POST", `/v1/approvals/${first.pending}/decide`, { decision: "approve", by: "ana", always: true })).status).toBe(200);
      expect((await write(file, "again")).r.isError).toBeFalsy();
      rmSync(file);
      const later = await write(file, "again");
      expect(later.r.isError, text(later.r)).toBeFalsy();
      expect(readFileSync(file, "utf8")).toBe("again");
      // identical calls at once, each covered by its own record (outside audit 10, F2): before, all
      // but one took the same record and failed "approved, but the decision could not be recorded"
      const together = await Promise.all([1, 2, 3, 4].map(() => write(file, "again")));
      for (const t of together) expect(t.r.isError, text(t.r)).toBeFalsy();
      // approved once, the same calls at once: one runs, the others wait for a person
      const once = join(dir, "once.txt");
      const asked = await write(once, "once");
      expect((await api("POST", `/v1/approvals/${asked.pending}/decide`, { decision: "approve", by: "ana" })).status).toBe(200);
      const raced = await Promise.all([1, 2, 3, 4].map(() => write(once, "once")));
      expect(raced.filter((t) => !t.r.isError).length).toBe(1);
      for (const t of raced.filter((t) => t.r.isError)) expect(text(t.r)).toContain("needs your approval before it runs");
    } finally {
      await close();
    }
    const waiting = await remoteGateway("wait", 20_000);
    try {
      const file = join(waiting.dir, "denied.txt");
      const t = setInterval(() => {
        void api("GET", "/v1/approvals").then(async (l) => {
          const open = (l.body.approvals as { record: { id: string; args: { path?: string } }; receipt: unknown }[]).find((a) => a.receipt === null && a.record.args.path === file);
          if (open) {
            clearInterval(t);
            await api("POST", `/v1/approvals/${open.record.id}/decide`, { decision: "deny", by: "bo" });
          }
        });
      }, 200);
      const r = await waiting.write(file, "no");
      clearInterval(t);
      expect(r.r.isError).toBe(true);
      expect(text(r.r)).toContain("denied by bo");
      expect(existsSync(file)).toBe(false);
    } finally {
      await waiting.close();
    }
  });

  it("the same call asked again waits on the worker's open record; the open ones are withdrawn as the gateway stops", async () => {
    const { dir, write, close } = await remoteGateway("withdraw");
    const file = join(dir, "asked-twice.txt");
    const records = async () => ((await api("GET", "/v1/approvals")).body.approvals as { record: { id: string; args: { path?: string } }; status: string }[]).filter((a) => a.record.args.path === file);
    let first: Awaited<ReturnType<typeof write>>;
    try {
      first = await write(file, "once");
      const second = await write(file, "once");
      expect(second.r.isError).toBe(true);
      expect(second.pending).toBe(first.pending);
      // the worker recorded the second ask as it answered; the gateway closed that copy
      const both = await records();
      expect(both.map((a) => a.status).sort()).toEqual(["pending", "withdrawn"]);
      expect(both.find((a) => a.status === "pending")!.record.id).toBe(first.pending);
      // another call is a record of its own
      const other = await write(file, "twice");
      expect(other.pending).not.toBe(first.pending);
    } finally {
      await close();
    }
    expect((await records()).map((a) => a.status)).toEqual(["withdrawn", "withdrawn", "withdrawn"]);
    const late = await api("POST", `/v1/approvals/${first.pending}/decide`, { decision: "approve", by: "ana" });
    expect(late.status).toBe(409);
    expect(late.body.error.message).toContain("withdrawn: the gateway that asked stopped");
    expect(existsSync(file)).toBe(false);
    // withdrawn once; an unknown id is not found
    expect((await api("POST", `/v1/approvals/${first.pending}/withdraw`)).body).toMatchObject({ withdrawn: false, approval: { status: "withdrawn" } });
    expect((await api("POST", "/v1/approvals/p_0000000000000000/withdraw")).status).toBe(404);
  });

  it("a gateway killed with a record waiting: the next gateway on the home with the same worker withdraws it there", async () => {
    const dir = allowedDir();
    const h = home();
    const catalogue = filesystemCatalogue(dir, join(dir, "..", `agent-killed-${Date.now()}.yaml`));
    const killed = await gatewayProcess(h, catalogue, [process.execPath, FILESYSTEM, dir], ["--check-url", worker.url, "--key", worker.keys[0]!, "--check-timeout", String(SLOW_WORKER_MS / 1000)]);
    let pending: string | undefined;
    try {
      const { client } = await overHttp(downstreamClient({}), killed.url);
      const r = await client.callTool({ name: "write_file", arguments: { path: join(dir, "killed.txt"), content: "x" } });
      pending = (r._meta?.["stalwart-agents/check"] as { pending?: string } | undefined)?.pending;
      await client.close();
    } finally {
      killed.child.kill("SIGKILL");
      await new Promise((r) => killed.child.once("exit", r));
    }
    expect(pending).toMatch(/^p_/);
    expect((await api("GET", `/v1/approvals/${pending}`)).body.approval.status).toBe("pending");
    // a gateway on the home's own approvals leaves the worker's records alone: they are not where its own are
    const local = await startGateway({ catalogue, upstream: { command: process.execPath, args: [FILESYSTEM, dir] }, listen: { host: "127.0.0.1", port: 0 }, home: h, log: () => undefined });
    await local.close();
    expect((await api("GET", `/v1/approvals/${pending}`)).body.approval.status).toBe("pending");
    const lines: string[] = [];
    const next = await startGateway({ catalogue, upstream: { command: process.execPath, args: [FILESYSTEM, dir] }, listen: { host: "127.0.0.1", port: 0 }, home: h, checkUrl: `${worker.url}/`, key: worker.keys[0]!, checkTimeoutMs: SLOW_WORKER_MS, log: (l) => lines.push(l) });
    await next.close();
    if (!thisProcess()) return; // no /proc: nothing can tell that it ended
    expect((await api("GET", `/v1/approvals/${pending}`)).body.approval.status).toBe("withdrawn");
    expect(lines).toContain(`withdrew 1 pending confirmation of a gateway (pid ${killed.child.pid}) that stopped without withdrawing them: nothing can run those calls any more`);
  });

  it("edited on the worker's page during --approval-wait, the edited call is checked again and waits there as a new record", async () => {
    const page = (path: string, body: unknown, cookie = "") => fetch(`${worker.url}/approvals${path}`, { method: "POST", headers: { "stalwart-apply": "yes", origin: worker.url, "content-type": "application/json", ...(cookie ? { cookie } : {}) }, body: JSON.stringify(body) });
    const login = await page("/login", { code: worker.keys[0]!, by: "ana" });
    expect(login.status).toBe(200);
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
    // the edited call, asked about again, waits this long too
    const { dir, write, close } = await remoteGateway("edit", 8_000);
    try {
      const file = join(dir, "edited.txt");
      const t = setInterval(() => {
        void api("GET", "/v1/approvals").then(async (l) => {
          const open = (l.body.approvals as { record: { id: string; args: { path?: string } }; receipt: unknown }[]).find((a) => a.receipt === null && a.record.args.path === file);
          if (open) {
            clearInterval(t);
            expect((await page(`/p/${open.record.id}/edit`, { "arg:content": "edited" }, cookie)).status).toBe(200);
          }
        });
      }, 200);
      const r = await write(file, "first");
      clearInterval(t);
      expect(r.r.isError).toBe(true);
      expect(existsSync(file)).toBe(false);
      const again = (await api("GET", `/v1/approvals/${r.pending}`)).body.approval;
      expect(again).toMatchObject({ receipt: null, record: { args: { path: file, content: "edited" }, origins: { content: { origin: "reply" } } } });
    } finally {
      await close();
    }
  });
});
