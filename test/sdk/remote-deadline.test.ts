/**
 * The remote client's deadline (interfaces.md, "Errors"; checks.md, outside the order): a check
 * past `timeoutMs` is a refusal with `check_unavailable`, never an exception and never an allow;
 * any other operation past it throws `CheckTimeout`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CheckTimeout, Client } from "../../cli/sdk/index.js";

let server: Server;
let url = "";
const held: import("node:http").ServerResponse[] = [];

beforeAll(async () => {
  // A worker that takes every request and never answers.
  server = createServer((_req, res) => void held.push(res));
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const r of held) r.destroy();
  await new Promise((done) => server.close(done));
});

describe("remote deadline", () => {
  it("a check past the deadline refuses check_unavailable; a turn past it throws CheckTimeout", async () => {
    const client = new Client({ url, timeoutMs: 150 });
    const s = client.session("late", { catalogue: "examples/store/agent.yaml" });
    const check = await s.checkToolCall("get_order", { order_id: "4411" });
    expect(check).toMatchObject({ decision: "refuse", reasons: ["check_unavailable"] });
    const s2 = client.session("late", { catalogue: "a-registered-name" });
    const read = s2.read("hello");
    await expect(read).rejects.toBeInstanceOf(CheckTimeout);
    await expect(read).rejects.toMatchObject({ code: "CheckTimeout" });
  });
});
