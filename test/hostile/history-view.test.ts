/**
 * Issue 9, "The caller's objects": an edit of the history the caller holds, however it is made —
 * through the Proxy's own traps or around them (`Object.getOwnPropertyDescriptor(entries, "3").value`,
 * `Object.getOwnPropertyDescriptors`, `Object.entries`, spreading) — is detected at the next check;
 * the engine never checks against an object the caller can reach. And `run()` hands the tool a copy
 * of exactly the arguments that were checked, never the caller's object.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { Client } from "../../cli/sdk/index.js";
import { copyLicence } from "../helpers/licensed-home.js";
import { prng } from "../helpers/prng.js";

const catalogue = join(import.meta.dirname, "../fixtures/guarded.yaml");
const fresh = () => new Client({ home: copyLicence(mkdtempSync(join(tmpdir(), "stalwart-view-"))), now: () => new Date("2026-11-29T12:00:00Z") });
const digest = (v: unknown) => createHash("sha256").update(JSON.stringify(v)).digest("hex").slice(0, 32);
const ctx = { origins: { order_id: "context", amount: "context" } };

type Reach = (entries: unknown[], i: number) => Record<string, any>;
/** Ways of getting hold of entry `i`, through the traps and around them. */
const REACHES: Record<string, Reach> = {
  index: (e, i) => e[i] as Record<string, any>,
  descriptor: (e, i) => Object.getOwnPropertyDescriptor(e, String(i))!.value,
  descriptors: (e, i) => (Object.getOwnPropertyDescriptors(e) as Record<string, PropertyDescriptor>)[String(i)]!.value,
  reflect: (e, i) => Reflect.getOwnPropertyDescriptor(e, String(i))!.value,
  entries: (e, i) => Object.entries(e)[i]![1] as Record<string, any>,
  values: (e, i) => Object.values(e)[i] as Record<string, any>,
  spread: (e, i) => [...e][i] as Record<string, any>,
  at: (e, i) => e.at(i) as Record<string, any>,
  slice: (e, i) => e.slice(i, i + 1)[0] as Record<string, any>,
};

async function chargedSession() {
  const s = fresh().session("view", { catalogue });
  const charged = await s.run("charge_card", { order_id: "A1", amount: 5 }, ctx, () => ({ charge_id: "ch_1" }));
  expect(charged.status).toBe("ran");
  return { s, step: charged.check.step };
}

describe("the caller's history view", () => {
  it("the issue's attack: an undo of 5,000 against a charge of 5, edited around the write trap, is not compensation", async () => {
    const { s, step } = await chargedSession();
    const entry = Object.getOwnPropertyDescriptor(s.history.entries, String(step))!.value as { values: Record<string, string> };
    entry.values.amount = digest(5000);
    const undo = await s.checkToolCall("refund_charge", { charge_id: "ch_1", amount: 5000 }, { undoOf: step, origins: { charge_id: "computed", amount: "computed" } });
    expect(undo).toMatchObject({ decision: "refuse", reasons: ["history_invalid"] });
  });

  for (const [how, reach] of Object.entries(REACHES)) {
    it(`an edit of an entry reached by ${how}, at any depth, is detected at the next check`, async () => {
      const r = prng(how.length * 7919);
      for (let round = 0; round < 6; round++) {
        const { s, step } = await chargedSession();
        const entries = s.history.entries as unknown as unknown[];
        const i = Math.floor(r() * entries.length);
        const e = reach(entries, i);
        const edits = [
          () => (e.at = e.at + 1),
          () => (e.step = 99),
          () => { if (e.values) e.values.amount = digest(5000); else e.kind = "turn"; },
          () => { if (Array.isArray(e.reasons)) e.reasons.push("confirmed"); else e.link = "0".repeat(64); },
          () => Object.defineProperty(e, "decision", { value: e.decision === "refuse" ? "allow" : "refuse", enumerable: true, writable: true, configurable: true }),
          () => delete e.link,
        ];
        edits[Math.floor(r() * edits.length)]!();
        const next = await s.checkToolCall("get_order", { order_id: "A1" });
        expect(next.reasons, `${how}, entry ${i} of ${entries.length}, after step ${step}`).toEqual(["history_invalid"]);
      }
    });
  }

  it("an untouched view verifies, and each check sees only what the engine signed", async () => {
    const { s } = await chargedSession();
    const view = s.history.entries as unknown as Record<string, unknown>[];
    const copy = JSON.parse(JSON.stringify(view));
    expect((await s.checkToolCall("get_order", { order_id: "A1" })).decision).toBe("allow");
    expect(JSON.parse(JSON.stringify(s.history.entries)).slice(0, copy.length)).toEqual(copy);
  });
});

describe("run() calls the tool with the checked arguments", () => {
  it("a getter that answers one thing to the check and another to the tool: the tool gets what was checked", async () => {
    const s = fresh().session("getter", { catalogue });
    let reads = 0;
    const args = {
      get order_id() {
        return reads++ === 0 ? "4411" : "https://evil.example/steal";
      },
      amount: 5,
    };
    let seen: unknown;
    const ran = await s.run("charge_card", args as Record<string, unknown>, ctx, (a) => {
      seen = JSON.parse(JSON.stringify(a));
      a.order_id = "changed by the tool"; // the tool's copy is its own
      return { charge_id: "ch_9" };
    });
    expect(ran.status).toBe("ran");
    expect(seen).toEqual({ order_id: "4411", amount: 5 });
    expect(reads).toBe(1);
  });

  it("the caller changing its object after the call, while a step waits for a person, changes nothing", async () => {
    const s = fresh().session("waiting", { catalogue });
    const args: Record<string, unknown> = { to: "ana" };
    const sent: unknown[] = [];
    const waiting = await s.run("send_invoice", args, { origins: { to: "model" } }, (a) => void sent.push({ ...a }));
    expect(waiting.status).toBe("waiting");
    args.to = "mallory@evil.example";
    const approved = await s.approve(waiting.check.step);
    expect(approved.status).toBe("ran");
    expect(sent).toEqual([{ to: "ana" }]);
  });

  it("arguments that are not JSON data are refused and nothing runs", async () => {
    const s = fresh().session("json", { catalogue });
    let ran = 0;
    const cyclic: Record<string, unknown> = { order_id: "A1", amount: 5 };
    cyclic.self = cyclic;
    const throwing = Object.defineProperty({ amount: 5 }, "order_id", { enumerable: true, get: () => { throw new Error("boom"); } });
    for (const args of [cyclic, throwing]) {
      const r = await s.run("charge_card", args, ctx, () => void ran++);
      expect(r.status).toBe("refused");
      expect(r.check.reasons).toEqual(["argument_schema"]);
    }
    expect(ran).toBe(0);
  });
});
