/**
 * A check the client gave up on (`timeoutMs`) that the worker answered all the same: the worker's
 * newest history has the answer's entry, the client's copy does not. The next call carries an
 * older copy than the worker's newest, so it is refused `history_invalid` and starts a new history
 * (checks.md, "History"): never run twice, never allowed on the old copy; the call after that is
 * answered again. Through the worker's app on memory stores behind a real HTTP server.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../../cli/sdk/index.js";
import { KEY_A, storeYaml, testApp } from "../worker/app-env.js";

let server: Server;
let url = "";
let holdNext = 0;
const answered: Promise<void>[] = [];
const { app, env, call } = testApp();

beforeAll(async () => {
  expect((await call("PUT", "/v1/catalogues/store", storeYaml, undefined, "application/yaml")).status).toBeLessThan(300);
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      const hold = holdNext > 0 && req.url === "/v1/check" ? (holdNext--, true) : false;
      const done = (async () => {
        const r = await app.request(req.url!, { method: req.method!, headers: { authorization: String(req.headers.authorization), "content-type": String(req.headers["content-type"]) }, body: text }, env);
        const body = await r.text();
        // the worker has answered (and recorded) it; the client hears it only after its deadline
        if (hold) await new Promise((ok) => setTimeout(ok, 800));
        if (res.destroyed) return;
        const headers: Record<string, string> = {};
        r.headers.forEach((v, k) => (headers[k] = v));
        res.writeHead(r.status, headers);
        res.end(body);
      })();
      answered.push(done.catch(() => {}));
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((done) => server.close(done));
});

describe("a check answered after the client's deadline", () => {
  it("is refused check_unavailable; the next call is history_invalid, the one after answered", async () => {
    const client = new Client({ url, key: KEY_A, timeoutMs: 400 });
    const s = client.session("late", { catalogue: "store" });
    expect((await s.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "context" } })).decision).toBe("allow");
    holdNext = 1;
    const late = await s.checkToolCall("get_order", { order_id: "4412" }, { origins: { order_id: "context" } });
    expect(late).toMatchObject({ decision: "refuse", reasons: ["check_unavailable"] });
    await Promise.all(answered);
    const next = await s.checkToolCall("get_order", { order_id: "4413" }, { origins: { order_id: "context" } });
    expect(next).toMatchObject({ decision: "refuse", reasons: ["history_invalid"] });
    const after = await s.checkToolCall("get_order", { order_id: "4414" }, { origins: { order_id: "context" } });
    expect(after.decision).toBe("allow");
  });
});
