/**
 * A call asked before tokens were `st2` (tokens/v1.ts) is still approvable after the upgrade: its
 * `st1` token opens at step 10 and lets the call through once, and a receipt for its pending
 * record (whose id is that token's) enters the history. A receipt naming neither token's id does not.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { approvalIdOf, decide, Engine, MemoryApprovalStore, pendingFrom, Session, type CheckResult } from "../../worker/portable/engine/index.js";
import { tokenClaims } from "../../worker/portable/engine/approvals/build.js";
import { tokenV1Of } from "../../worker/portable/engine/tokens/confirmation.js";
import { nodeCore } from "../../cli/sdk/wasm-node.js";
import { catalogueFrom } from "../../cli/sdk/catalogue-input.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";

const T0 = Date.UTC(2031, 4, 6, 12);
const refund = { order_id: "4411", amount: 40 };
const opts = { origins: { order_id: "typed", amount: "model" } };

async function asked() {
  const core = await nodeCore();
  const catalogue = catalogueFrom(join(import.meta.dirname, "../../examples/store/agent.yaml"), { schemaCompiler: ajvCompiler, sha256: (b) => core.sha256(b) });
  const engine = new Engine({ core, key: new Uint8Array(32).fill(9), schemaCompiler: ajvCompiler, now: () => new Date(T0) });
  const session = new Session(engine, "billing", catalogue);
  await session.read("estorne 40,00 do pedido 4411");
  const check = await session.checkToolCall("refund_card", refund, opts);
  expect(check.decision).toBe("confirm");
  expect(check.confirmation).toMatch(/^st2\./);
  // the token this ask had before the upgrade: the same claims, in the st1 form
  const v1 = tokenV1Of((b) => engine.mac(b), tokenClaims(check.confirmation!)!);
  expect(v1).toMatch(/^st1\./);
  return { engine, session, check, v1 };
}

describe("a token of the st1 form, after the upgrade", () => {
  it("opens at step 10 and lets the asked call through once", async () => {
    const { session, v1 } = await asked();
    const approved = await session.checkToolCall("refund_card", refund, { ...opts, confirmation: v1 });
    expect(approved.decision).toBe("allow");
    expect(approved.reasons).toEqual(["confirmed"]);
    const again = await session.checkToolCall("refund_card", refund, { ...opts, confirmation: v1 });
    expect(again.decision).toBe("confirm");
    // another call's token covers nothing
    const other = await session.checkToolCall("refund_card", { ...refund, amount: 41 }, { ...opts, confirmation: v1 });
    expect(other.decision).toBe("confirm");
  });

  it("a receipt for its pending record enters the history; one for neither token's id does not", async () => {
    const { engine, session, check, v1 } = await asked();
    const mac = (text: string) => engine.macText(text);
    for (const [token, ok] of [[v1, true], [check.confirmation!.replace(/.$/, (c) => (c === "A" ? "B" : "A")), false]] as const) {
      const store = new MemoryApprovalStore();
      const answer: CheckResult = { ...check, confirmation: token };
      const record = pendingFrom({ session: session.id, tool: "refund_card", args: refund, check: answer, origins: opts.origins, now: T0 })!;
      expect(record.id).toBe(approvalIdOf(token));
      store.add(record);
      const approval = await decide(store, mac, record.id, { decision: "approve", by: "ana", at: T0 + 1 });
      if (ok) await expect(session.receipt(approval.receipt)).resolves.toEqual({ step: session.history.entries.length - 1 });
      else await expect(session.receipt(approval.receipt)).rejects.toThrow(/decides another ask/);
    }
  });
});
