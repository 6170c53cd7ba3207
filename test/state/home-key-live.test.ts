/**
 * A process that keeps running while `stalwart key reset` (another process) gives the home a new
 * history key: the approvals page, the gateway, an application's SDK client. Each loaded the key
 * at its start; at its next use of it (a decision, a check) it finds the home's key is no longer
 * that one and refuses with `KeyChanged`, naming the file and saying to restart it. It never signs
 * with the old key, and never takes the new one mid-run: its own state (the gateway's history,
 * a client's sessions) was made under the old one. Restarted, it runs under the new key.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Client, StalwartError } from "../../cli/sdk/index.js";
import { closeState } from "../../cli/sdk/state/index.js";
import { licensedHome } from "../helpers/licensed-home.js";
import { stalwart } from "../helpers/licence-cli.js";
import { allowedDir, downstreamClient, filesystemCatalogue, FILESYSTEM, MAIN, overStdio, ROOT, text } from "../gateway/helpers.js";

const catalogue = join(resolve(import.meta.dirname, "../.."), "test/approvals/fixtures/refunds.yaml");
const get = (s: ReturnType<Client["session"]>) => s.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "context" } });

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill();
});

/** A home where a session waits for a person (a pending approval); its id. */
async function waitingHome(tag: string, at?: string): Promise<{ home: string; id: string }> {
  const home = at ?? licensedHome(tag);
  const s = new Client({ home }).session(`refunds-${Date.now()}`, { catalogue });
  const waiting = await s.run("refund_card", { order_id: "4411", amount: 40 }, { origins: { order_id: "context", amount: "model" } }, () => undefined);
  expect(waiting.status).toBe("waiting");
  closeState(home);
  const list = await stalwart(["approvals", "list", "--home", home, "--json"], {});
  return { home, id: (list.json() as unknown as { record: { id: string } }[])[0]!.record.id };
}

/** `stalwart approvals serve` as its own process; its URL and one-time code once it listens. */
function serve(home: string): Promise<{ url: string; code: string }> {
  const c = spawn(process.execPath, [MAIN, "approvals", "serve", "--home", home, "--port", "0", "--json"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  children.push(c);
  return new Promise((ok, fail) => {
    let out = "";
    let err = "";
    c.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    c.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) ok(JSON.parse(out.split("\n")[0]!));
    });
    c.on("exit", (code) => fail(new Error(`serve exited ${code}: ${err}`)));
  });
}

function post(url: string, path: string, body: unknown, cookie = ""): Promise<{ status: number; cookie: string; json: any }> {
  const u = new URL(path, url);
  const headers = { origin: u.origin, "stalwart-apply": "yes", "content-type": "application/json", ...(cookie ? { cookie } : {}) };
  return new Promise((ok, fail) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: "POST", headers, agent: false }, (res) => {
      let t = "";
      res.on("data", (d: Buffer) => (t += d.toString()));
      res.on("end", () => ok({ status: res.statusCode ?? 0, cookie: String(res.headers["set-cookie"]?.[0] ?? "").split(";")[0]!, json: JSON.parse(t) }));
    });
    req.on("error", fail);
    req.end(JSON.stringify(body));
  });
}

async function resetKey(home: string): Promise<void> {
  const r = await stalwart(["key", "reset", "--home", home, "--force"], {});
  expect(r.code, r.stderr).toBe(0);
}

describe("a running process after `stalwart key reset` in another", () => {
  it("`stalwart approvals serve`: deciding is KeyChanged (500 key_changed), no receipt signed; restarted, it signs under the new key (records made under it)", async () => {
    const { home, id } = await waitingHome("key-live-serve");
    const page = await serve(home);
    const cookie = (await post(page.url, "/login", { code: page.code, by: "ana" })).cookie;
    await resetKey(home);
    const r = await post(page.url, `/p/${id}/decide`, { decision: "approve" }, cookie);
    expect(r.status).toBe(500);
    expect(r.json.error.code).toBe("key_changed");
    expect(r.json.error.message).toContain(join(home, "history.key"));
    expect(existsSync(join(home, "approvals", "receipts", `${id}.json`))).toBe(false);

    children.pop()!.kill();
    const again = await serve(home);
    const signedIn = (await post(again.url, "/login", { code: again.code, by: "ana" })).cookie;
    // the record made under the replaced key cannot be told from one edited by hand
    const old = await post(again.url, `/p/${id}/decide`, { decision: "deny" }, signedIn);
    expect(old.json.error?.code, JSON.stringify(old.json)).toBe("approval_unreadable");
    expect(existsSync(join(home, "approvals", "receipts", `${id}.json`))).toBe(false);
    // one made under the new key is decided, and signed under it
    const fresh = (await waitingHome("", home)).id;
    const ok = await post(again.url, `/p/${fresh}/decide`, { decision: "deny" }, signedIn);
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
    expect(existsSync(join(home, "approvals", "receipts", `${fresh}.json`))).toBe(true);
  }, 90_000);

  it("`stalwart gateway`: the next call is refused, naming the key, and nothing runs; restarted, calls run", async () => {
    const dir = allowedDir();
    const home = licensedHome("key-live-gateway");
    const cat = filesystemCatalogue(dir, join(dir, "..", `agent-${Date.now()}.yaml`));
    const args = ["--home", home, "--catalogue", cat, "--", process.execPath, FILESYSTEM, dir];
    const read = { name: "read_text_file", arguments: { path: join(dir, "hello.txt") } };
    const d = await overStdio(downstreamClient({}), args);
    expect((await d.client.callTool(read)).isError).toBeFalsy();
    await resetKey(home);
    const after = await d.client.callTool(read);
    expect(after.isError).toBe(true);
    expect(text(after)).toContain(join(home, "history.key"));
    expect(text(after)).toMatch(/restart/);
    expect(text(after)).not.toContain("hello from the file");
    // the error's stable code where a host reads the decision, and in the words the model reads
    expect(after._meta?.["stalwart-agents/check"]).toMatchObject({ decision: "refuse", reasons: ["internal_error"], detail: { code: "KeyChanged" } });
    expect(text(after)).toContain("internal_error (KeyChanged)");
    await d.client.close();

    const d2 = await overStdio(downstreamClient({}), args);
    const fresh = await d2.client.callTool(read);
    expect(fresh.isError, text(fresh)).toBeFalsy();
    await d2.client.close();
  }, 90_000);

  it("an SDK client: a session's next check and a new session are KeyChanged; a new client runs", async () => {
    const home = licensedHome("key-live-sdk");
    const client = new Client({ home });
    const s = client.session("running", { catalogue });
    expect((await get(s)).decision).toBe("allow");
    await resetKey(home);
    const err = await get(s).catch((e: unknown) => e as StalwartError);
    expect(err).toBeInstanceOf(StalwartError);
    expect((err as StalwartError).code).toBe("KeyChanged");
    expect((err as StalwartError).message).toContain(join(home, "history.key"));
    expect(() => s.toJSON()).toThrow(/history key/);
    expect(() => client.session("new", { catalogue })).toThrow(expect.objectContaining({ code: "KeyChanged" }));
    expect((await get(new Client({ home }).session("restarted", { catalogue }))).decision).toBe("allow");
  }, 60_000);

  it("a key file changed in place long after it was loaded (its stat seen settled) is caught; the same key written back is not a change", async () => {
    const home = licensedHome("key-live-settled");
    const file = join(home, "history.key");
    expect((await get(new Client({ home }).session("first", { catalogue }))).decision).toBe("allow");
    const key = readFileSync(file, "utf8");
    // past the window in which a change could carry the time stamp the key was read with
    await new Promise((r) => setTimeout(r, 3_200));
    const swapped = new Client({ home }).session("swapped", { catalogue });
    const rewritten = new Client({ home }).session("rewritten", { catalogue });
    expect((await get(swapped)).decision).toBe("allow");
    expect((await get(rewritten)).decision).toBe("allow");
    writeFileSync(file, "ab".repeat(32) + "\n");
    expect(await get(swapped).catch((e: { code?: string }) => e.code)).toBe("KeyChanged");
    writeFileSync(file, key);
    expect((await get(rewritten)).decision).toBe("allow");
  }, 60_000);
});
