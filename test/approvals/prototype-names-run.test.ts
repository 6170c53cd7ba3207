/**
 * An argument named like an `Object.prototype` member (`__proto__`, `constructor`, …) in a call
 * that waits for a person: `run(…, {wait})` writes the pending record with that argument's origin
 * and labels as data, the person approves, and the tool runs once with exactly those arguments
 * (outside audit 23, F1: `__proto__` made `run()` throw while writing the record, so nobody was
 * asked). The history keeps each argument's value digest under its own name, so an undo is bound
 * to that argument as to any other.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "../../cli/sdk/index.js";
import { FileApprovalStore } from "../../cli/approvals/store.js";
import { homeMac } from "../../cli/approvals/mac.js";
import { decide, pendingFrom, type CheckResult } from "../../worker/portable/engine/index.js";
import { copyLicence } from "../helpers/licensed-home.js";
import { PROTO_NAMES } from "../helpers/proto-world.js";

// `undo`: the history keeps do_write's value digests (an undo is bound to them)
const catalogue = {
  settings: { language: "en" },
  tools: [
    { name: "do_write", writes: true, undo: "undo_write", args: { type: "object", additionalProperties: true } },
    { name: "undo_write", writes: true, args: { type: "object", additionalProperties: true } },
  ],
};

/** `{[k]: v, …}` with `k` an own property whatever it is (a literal `__proto__` would set the prototype). */
const withName = (k: string, v: unknown, rest: Record<string, unknown> = {}) => JSON.parse(`{${JSON.stringify(k)}:${JSON.stringify(v)}${Object.keys(rest).length ? "," + JSON.stringify(rest).slice(1, -1) : ""}}`) as Record<string, unknown>;

describe("prototype names in a call that waits for a person", () => {
  it("run() asks, the person approves, the tool runs once with the same arguments", async () => {
    const home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-proto-run-")));
    const client = new Client({ home });
    const store = new FileApprovalStore(home);
    for (const k of PROTO_NAMES) {
      const s = client.session(`proto-${k}`, { catalogue });
      const args = withName(k, { polluted: 1 }, { note: "x" });
      const origins = withName(k, "model", { note: "model" }) as Record<string, string>;
      const ran: unknown[] = [];
      const person = setInterval(() => {
        const waiting = store.list().find((a) => a.receipt === null && a.record.session === s.id);
        if (!waiting) return;
        clearInterval(person);
        void decide(store, homeMac(home), waiting.record.id, { decision: "approve", by: "ana", at: Date.now() });
      }, 10);
      try {
        const r = await s.run("do_write", args, { origins, wait: 10_000 }, (a) => void ran.push(a));
        expect(r, k).toMatchObject({ status: "ran", check: { decision: "allow", reasons: ["confirmed"] } });
      } finally {
        clearInterval(person);
      }
      expect(ran, k).toHaveLength(1);
      expect(JSON.stringify(ran[0]), k).toBe(JSON.stringify(args));
      const record = store.list().find((a) => a.record.session === s.id)!.record;
      expect(Object.hasOwn(record.origins, k), k).toBe(true);
      expect(record.origins[k], k).toMatchObject({ origin: "model" });
      expect(Object.hasOwn(record.args, k), k).toBe(true);
      // the checked call's entry holds a value digest for every argument, this one too
      const entry = s.history.entries.find((e) => e.kind === "check" && e.decision === "confirm");
      expect(entry && entry.kind === "check" && Object.hasOwn(entry.values, k), k).toBe(true);
    }
  }, 120_000);

  it("pendingFrom keeps an argument's labels under its own name", async () => {
    const home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-proto-pending-")));
    const s = new Client({ home }).session("labels", { catalogue });
    for (const k of PROTO_NAMES) {
      const args = withName(k, "v");
      const check = (await s.checkToolCall("do_write", args, { origins: withName(k, "model") as Record<string, string> })) as CheckResult;
      expect(check.decision, k).toBe("confirm");
      const record = pendingFrom({ session: s.id, tool: "do_write", args, check, origins: withName(k, "model") as Record<string, string>, labels: withName(k, ["untrusted:web"]) as Record<string, string[]>, now: Date.now() });
      expect(record, k).not.toBeNull();
      expect(Object.hasOwn(record!.origins, k), k).toBe(true);
      expect(record!.origins[k], k).toEqual({ origin: "model", labels: ["untrusted:web"] });
    }
  });
});
