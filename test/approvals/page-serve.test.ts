/**
 * `stalwart approvals serve` over real HTTP: its JSON error answers spell codes as the worker's
 * approvals API does (`approval_decided`, not the in-process `ApprovalDecided`), and its sign-in
 * cookie belongs to the running server: a restart signs everyone out, and two servers on
 * different ports of 127.0.0.1 (one site to a browser's cookies, whatever the port) each keep
 * their own.
 */
import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveApprovals, type RunningPage } from "../../cli/approvals/serve.js";
import { addWaiting } from "../helpers/pending-record.js";
import { installationKey } from "../../cli/sdk/home.js";
import { FileApprovalStore } from "../../cli/approvals/store.js";
import { homeMac } from "../../cli/approvals/mac.js";
import { decide } from "../../worker/portable/engine/index.js";

const pages: RunningPage[] = [];
afterEach(async () => {
  for (const p of pages.splice(0)) await p.close();
});

/** A home with its key made first, as a session that leaves a pending record makes it. */
function newHome(): string {
  const home = mkdtempSync(join(tmpdir(), "stalwart-approvals-serve-"));
  installationKey(home);
  return home;
}

async function start(home: string, port = 0): Promise<RunningPage> {
  const p = await serveApprovals({ home, host: "127.0.0.1", port, code: "424242" });
  pages.push(p);
  return p;
}

function waiting(home: string, id: string): void {
  addWaiting(home, id);
}

interface Answer {
  status: number;
  setCookie: string;
  json(): unknown;
}

/** One request on a connection of its own (a restarted server is not reached on an old one). */
function send(page: RunningPage, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const u = new URL(path, page.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method, headers, agent: false }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, setCookie: String(res.headers["set-cookie"]?.[0] ?? ""), json: () => JSON.parse(text) }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** A POST from the page itself (its origin, the header), with `cookie`. */
function post(page: RunningPage, path: string, body: unknown, cookie = ""): Promise<Answer> {
  const headers = { origin: new URL(page.url).origin, "stalwart-apply": "yes", "content-type": "application/json", ...(cookie ? { cookie } : {}) };
  return send(page, "POST", path, headers, JSON.stringify(body));
}

async function signIn(page: RunningPage): Promise<string> {
  const r = await post(page, "/login", { code: page.code, by: "ana" });
  expect(r.status).toBe(200);
  return r.setCookie.split(";")[0]!;
}

/** The list page's status with `cookie` (200 signed in, 401 the sign-in form). */
async function list(page: RunningPage, cookie: string): Promise<number> {
  return (await send(page, "GET", "/", { cookie })).status;
}

describe("approvals serve: error answers", () => {
  it("deciding twice is 409 `approval_decided`, an unknown id 404 `approval_not_found`: the worker's spelling", async () => {
    const home = newHome();
    waiting(home, "p_00000000000000c1");
    const page = await start(home);
    const cookie = await signIn(page);
    const first = await post(page, "/p/p_00000000000000c1/decide", { decision: "deny" }, cookie);
    expect(first.status).toBe(200);
    const twice = await post(page, "/p/p_00000000000000c1/decide", { decision: "approve" }, cookie);
    expect(twice.status).toBe(409);
    expect(twice.json()).toMatchObject({ error: { code: "approval_decided", message: expect.stringContaining("denied by ana") } });
    const missing = await post(page, "/p/p_ffffffffffffffff/decide", { decision: "approve" }, cookie);
    expect(missing.status).toBe(404);
    expect(missing.json()).toMatchObject({ error: { code: "approval_not_found" } });
  });
});

describe("approvals serve: the sign-in cookie", () => {
  it("is named for the port, HttpOnly, SameSite=Strict, for the whole page", async () => {
    const page = await start(newHome());
    const r = await post(page, "/login", { code: page.code, by: "ana" });
    const set = r.setCookie;
    expect(set.startsWith(`stalwart_approvals_${new URL(page.url).port}=`)).toBe(true);
    expect(set).toMatch(/; HttpOnly/);
    expect(set).toMatch(/; SameSite=Strict/);
    expect(set).toMatch(/; Path=\//);
  });

  it("a restart of serve signs everyone out: the old cookie is refused", async () => {
    const home = newHome();
    const page = await start(home);
    const cookie = await signIn(page);
    expect(await list(page, cookie)).toBe(200);
    const port = Number(new URL(page.url).port);
    await pages.pop()!.close();
    const again = await start(home, port);
    expect(again.url).toBe(page.url);
    expect(await list(again, cookie)).toBe(401);
    expect(await list(again, await signIn(again))).toBe(200);
  });

  it("two servers on different ports, one browser: each sign-in stays, neither's cookie opens the other", async () => {
    const home = newHome();
    const a = await start(home);
    const b = await start(home);
    // a browser keeps cookies for 127.0.0.1 whatever the port: a second one of the same name replaces the first
    const jar = new Map<string, string>();
    for (const p of [a, b]) {
      const [name, value] = (await signIn(p)).split("=");
      jar.set(name!, value!);
    }
    const all = [...jar].map(([n, v]) => `${n}=${v}`).join("; ");
    expect(jar.size).toBe(2);
    expect(await list(a, all)).toBe(200);
    expect(await list(b, all)).toBe(200);
    // each server's cookie, sent to the other under the other's name, is refused
    const [va, vb] = [...jar.values()];
    expect(await list(a, `stalwart_approvals_${new URL(a.url).port}=${vb}`)).toBe(401);
    expect(await list(b, `stalwart_approvals_${new URL(b.url).port}=${va}`)).toBe(401);
  });
});

describe("a port another process holds", () => {
  it("is a usage error naming it, not an internal error with a stack (the page's own default port, 8700, the likeliest)", async () => {
    const first = await start(newHome());
    const port = Number(new URL(first.url).port);
    await expect(serveApprovals({ home: newHome(), host: "127.0.0.1", port, code: "424242" })).rejects.toMatchObject({
      code: "InputError",
      message: `\`--port ${port}\`: another process listens there`,
      hint: "choose another port, or stop what listens there (`ss -ltnp` names it)",
    });
  });
});

describe("approvals serve: the page's live stream", () => {
  /** The `changed` events of `/events`, as they come. */
  function events(page: RunningPage, cookie: string): { seen: string[]; stop(): void } {
    const seen: string[] = [];
    const ac = new AbortController();
    void fetch(new URL("/events", page.url), { headers: { cookie }, signal: ac.signal }).then(async (r) => {
      let text = "";
      const reader = r.body!.getReader();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        text += Buffer.from(chunk.value).toString();
        for (let at = text.indexOf("\n\n"); at !== -1; at = text.indexOf("\n\n")) {
          const data = /^data: ?(.*)$/m.exec(text.slice(0, at));
          if (data) seen.push(data[1]!);
          text = text.slice(at + 2);
        }
      }
    }).catch(() => undefined);
    return { seen, stop: () => ac.abort() };
  }
  const until = async (what: () => boolean, ms: number) => {
    for (let waited = 0; waited < ms && !what(); waited += 50) await new Promise((r) => setTimeout(r, 50));
    return what();
  };

  it("after a quiet spell (the store's folders untouched for seconds), a record another process adds, decides or spends is seen at once", async () => {
    const home = newHome();
    waiting(home, "p_00000000000000e1");
    const page = await start(home);
    const cookie = await signIn(page);
    const stream = events(page, cookie);
    try {
      expect(await until(() => stream.seen.length > 0, 5000)).toBe(true);
      expect(stream.seen.at(-1)).toBe("p_00000000000000e1:pending");
      // past the store's racy window: the page now goes by the folders' version, not a read of every record
      await new Promise((r) => setTimeout(r, 3500));
      const other = new FileApprovalStore(home); // as another process on the home would
      addWaiting(home, "p_00000000000000e2");
      expect(await until(() => stream.seen.at(-1)?.includes("p_00000000000000e2:pending") === true, 3000), stream.seen.join(" | ")).toBe(true);
      await new Promise((r) => setTimeout(r, 3500));
      await decide(other, homeMac(home), "p_00000000000000e1", { decision: "approve", by: "bob", at: Date.now() });
      expect(await until(() => stream.seen.at(-1)?.includes("p_00000000000000e1:approved") === true, 3000), stream.seen.join(" | ")).toBe(true);
      await new Promise((r) => setTimeout(r, 3500));
      other.markUsed("p_00000000000000e1");
      expect(await until(() => stream.seen.at(-1)?.includes("p_00000000000000e1:used") === true, 3000), stream.seen.join(" | ")).toBe(true);
    } finally {
      stream.stop();
    }
  }, 30_000);
});
