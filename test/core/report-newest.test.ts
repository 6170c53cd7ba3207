/**
 * A report is recorded only on the newest history the store holds for its session — held by the
 * commit's compare-and-set on the head alone (session.ts, `report`: no load before it). Copies of
 * one saved session reporting the same step, in turn or at once: exactly one is recorded; an older
 * snapshot's report, after the session moved on, is HistoryInvalid and records nothing.
 */
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { Client } from "../../cli/sdk/index.js";
import { licensedHome } from "../helpers/licensed-home.js";

const catalogue = join(import.meta.dirname, "../../examples/store/agent.yaml");
const order = { order_id: "4411", status: "paid", total: 40, card: "visa-4242" };

async function checked(client: Client) {
  const s = client.session("report-newest", { catalogue });
  await s.read("consulte o pedido 4411");
  const c = await s.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "typed" } });
  expect(c.decision).toBe("allow");
  return { s, step: c.step, saved: JSON.parse(JSON.stringify(s.toJSON())) };
}

describe("a report on a copy of a saved session", () => {
  it("two copies report the same step in turn: the first is recorded, the second is HistoryInvalid", async () => {
    const client = new Client({ home: licensedHome("report-newest") });
    const { saved, step } = await checked(client);
    const a = client.resume(structuredClone(saved), { catalogue });
    const b = client.resume(structuredClone(saved), { catalogue });
    await a.report(step, "ran", order);
    await expect(b.report(step, "ran", order)).rejects.toMatchObject({ code: "HistoryInvalid" });
    expect(b.history.entries.at(-1)?.kind).toBe("check");
    // the copy whose report was recorded goes on; the other one is an older snapshot
    expect((await a.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "typed" } })).decision).toBe("allow");
    expect((await b.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "typed" } })).reasons).toEqual(["history_invalid"]);
    client.close();
  });

  it("an older snapshot reports after the session moved on: HistoryInvalid, nothing recorded", async () => {
    const client = new Client({ home: licensedHome("report-newest") });
    const { s, saved, step } = await checked(client);
    await s.report(step, "ran", order);
    const old = client.resume(structuredClone(saved), { catalogue });
    await expect(old.report(step, "failed")).rejects.toMatchObject({ code: "HistoryInvalid" });
    // the newest history still continues, with its own report standing
    expect((await s.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "typed" } })).decision).toBe("allow");
    client.close();
  });

  it("ten copies report the same step at once: exactly one is recorded", async () => {
    const client = new Client({ home: licensedHome("report-newest") });
    const { saved, step } = await checked(client);
    const copies = Array.from({ length: 10 }, () => client.resume(structuredClone(saved), { catalogue }));
    const results = await Promise.allSettled(copies.map((c) => c.report(step, "ran", order)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toMatchObject({ code: "HistoryInvalid" });
    client.close();
  });
});
