/**
 * Fail closed on the caller's side: when the check worker dies mid-run, or accepts a request and
 * never answers, the SDK answers `refuse` / `check_unavailable` within its deadline.
 */
import { describe, expect, it } from "vitest";
import { createServer } from "node:http";
import { join } from "node:path";
import { Client } from "../../cli/sdk/index.js";
import { startCheckWorker } from "../helpers/check-worker.js";

const catalogue = join(import.meta.dirname, "../../examples/store/agent.yaml");

describe("check_unavailable", () => {
  it("a worker killed mid-run: the next check is refused within the deadline", async () => {
    const worker = await startCheckWorker();
    const client = new Client({ url: worker.url, key: worker.keys[0]!, timeoutMs: 1500 });
    const s = client.session("billing", { catalogue });
    await s.read("estorne 40,00 do pedido 4411");
    expect((await s.checkToolCall("get_order", { order_id: "4411" })).decision).toBe("allow");
    process.kill(-worker.pid, "SIGKILL");
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    const answer = await s.checkToolCall("refund_card", { order_id: "4411", amount: 40 }, { origins: { order_id: "typed", amount: "typed" } });
    const elapsed = Date.now() - t0;
    expect(answer).toMatchObject({ decision: "refuse", reasons: ["check_unavailable"] });
    expect(elapsed).toBeLessThan(1500 + 500);
    await worker.stop();
  }, 120_000);

  it("a server that never answers: refused at the deadline, not later", async () => {
    const hang = createServer(() => {});
    await new Promise<void>((r) => hang.listen(0, "127.0.0.1", () => r()));
    const port = (hang.address() as { port: number }).port;
    const client = new Client({ url: `http://127.0.0.1:${port}`, key: "sk_whatever_0123456789", timeoutMs: 400 });
    const s = client.resume({ v: 1 } as never, { catalogue: "store" });
    const t0 = Date.now();
    const answer = await s.checkToolCall("get_order", { order_id: "1" });
    const elapsed = Date.now() - t0;
    expect(answer).toMatchObject({ decision: "refuse", reasons: ["check_unavailable"] });
    expect(elapsed).toBeGreaterThanOrEqual(350);
    expect(elapsed).toBeLessThan(400 + 600);
    hang.closeAllConnections();
    hang.close();
  });

  it("nothing listening at all: refused at once", async () => {
    const client = new Client({ url: "http://127.0.0.1:9", key: "sk_whatever_0123456789", timeoutMs: 2000 });
    const s = client.resume({ v: 1 } as never, { catalogue: "store" });
    const answer = await s.checkToolCall("get_order", { order_id: "1" });
    expect(answer.reasons).toEqual(["check_unavailable"]);
  });

  it("an answer that is not a check (a proxy's or another service's 200): refused check_unavailable, never handed on", async () => {
    let body = "";
    const other = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(body);
      });
    });
    await new Promise<void>((r) => other.listen(0, "127.0.0.1", () => r()));
    const port = (other.address() as { port: number }).port;
    for (body of ["{}", '{"check":null}', '"allow"', '{"check":{"decision":"maybe"}}', '{"check":{"decision":"allow"}}', '{"check":{"decision":"allow","reasons":"none","step":1}}']) {
      const client = new Client({ url: `http://127.0.0.1:${port}`, key: "sk_whatever_0123456789", timeoutMs: 1000 });
      const s = client.resume({ v: 1, catalogue: "x", entries: [] } as never, { catalogue: "store" });
      expect(await s.checkToolCall("get_order", { order_id: "1" }), body).toMatchObject({ decision: "refuse", reasons: ["check_unavailable"] });
    }
    other.closeAllConnections();
    other.close();
  });
});
