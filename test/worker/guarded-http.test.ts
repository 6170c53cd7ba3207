/** The guarded step over HTTP: the same run / approve / rollback / filter against the real worker. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { Client } from "../../cli/sdk/index.js";
import { loadRulebookNode } from "../../cli/sdk/rulebook-node.js";
import { REGISTRY_FILE, registryText } from "../../worker/portable/engine/rulebook/index.js";
import { startCheckWorker, type RunningWorker } from "../helpers/check-worker.js";
import { nameLast } from "../helpers/rulebook-csv.js";

const catalogue = join(import.meta.dirname, "../fixtures/guarded.yaml");
let worker: RunningWorker;
beforeAll(async () => {
  worker = await startCheckWorker(["guarded"]);
}, 120_000);
afterAll(async () => {
  await worker?.stop();
});

describe("rulebooks over HTTP", () => {
  it("a compiled registry folder, a CSV spreadsheet and YAML all gate the same way through the worker", async () => {
    const store = join(import.meta.dirname, "../../examples/store");
    const dir = mkdtempSync(join(tmpdir(), "stalwart-registry-"));
    writeFileSync(join(dir, REGISTRY_FILE), registryText(loadRulebookNode(join(store, "rulebook.yaml"))));
    for (const rulebook of [dir, join(store, "rules.csv"), join(store, "rulebook.yaml")]) {
      const s = new Client({ url: worker.url, key: worker.keys[0]!, timeoutMs: 20_000 }).session("b", { catalogue: join(store, "agent.yaml"), rulebook });
      const r = await s.checkToolCall("refund_card", { order_id: "4411", amount: 40 }, { origins: { order_id: "context", amount: "context" }, facts: { order_status: "shipped" } });
      expect(r, rulebook).toMatchObject({ decision: "refuse", reasons: ["refund_only_paid_orders"], detail: { flow: "refunds" } });
    }
  }, 60_000);

  it("a `.csv` rulebook whose header does not start with `name` goes up as CSV, as it loads in process", async () => {
    const store = join(import.meta.dirname, "../../examples/store");
    const dir = mkdtempSync(join(tmpdir(), "stalwart-csv-"));
    const csv = join(dir, "rules.csv");
    writeFileSync(csv, nameLast(readFileSync(join(store, "rules.csv"), "utf8")));
    const s = new Client({ url: worker.url, key: worker.keys[0]!, timeoutMs: 20_000 }).session("c", { catalogue: join(store, "agent.yaml"), rulebook: csv });
    const r = await s.checkToolCall("refund_card", { order_id: "4411", amount: 40 }, { origins: { order_id: "context", amount: "context" }, facts: { order_status: "shipped" } });
    expect(r).toMatchObject({ decision: "refuse", reasons: ["refund_only_paid_orders"], detail: { flow: "refunds" } });
  }, 60_000);
});

describe("guarded step over HTTP", () => {
  it("runs, waits, approves, rolls back and filters through the worker", async () => {
    const s = new Client({ url: worker.url, key: worker.keys[0]!, timeoutMs: 20_000 }).session("g", { catalogue });
    await s.read("book flight LX12 and pay");
    const undone: string[] = [];
    const seat = await s.run("reserve_seat", { flight: "LX12" }, { origins: { flight: "typed" }, undo: (a) => void undone.push(JSON.stringify(a)) }, () => ({ seat: "14C" }));
    expect(seat.status).toBe("ran");
    const waiting = await s.run("send_invoice", { to: "ana" }, { origins: { to: "model" } }, () => "sent");
    expect(waiting.status).toBe("waiting");
    expect((await s.approve(waiting.check.step)).status).toBe("ran");
    const steps = await s.rollback();
    expect(steps.map((x) => [x.tool, x.status])).toEqual([["release_seat", "ran"]]);
    expect(undone).toEqual([`{"flight":"LX12","seat":"14C"}`]);
    await s.run("read_resume", {}, {}, () => ({ skills: ["ts"] }));
    const search = await s.run("search_jobs", {}, {}, () => ({ jobs: [{ id: "a", salary_min: 90000, required_skills: ["ts"] }, { id: "b", salary_min: 10, required_skills: ["ts"] }] }));
    expect(((await s.filter(search.check.step, search.result)) as { jobs: unknown[] }).jobs).toHaveLength(1);
  }, 60_000);
});
