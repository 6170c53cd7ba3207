/**
 * Copies of one saved session resumed in one Client, each presenting the same valid token at
 * once: exactly one is allowed, the others are `history_invalid`. Found from outside: with five
 * copies, usually none was allowed. The copies wrote the same entry, so the same reservation id
 * (an entry's link); a copy that found it taken answered `spend_unknown` ("the counter store did
 * not answer") and committed that refusal, which took the head from under the copy that held the
 * reservation. A taken reservation now means another copy is answering the same step: that copy
 * answers `history_invalid` and writes nothing.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Client } from "../../cli/sdk/index.js";
import { licensedHome } from "../helpers/licensed-home.js";

const catalogue = join(import.meta.dirname, "../approvals/fixtures/refunds.yaml");
const args = { order_id: "4411", amount: 40 };
const origins = { order_id: "typed", amount: "model" };

describe("copies of one saved session, resumed in one client, presenting one token at once", () => {
  it.each([2, 5, 8])("%i copies: one is allowed, the others history_invalid, and the spend is counted once", async (n) => {
    for (let round = 0; round < 3; round++) {
      const client = new Client({ home: licensedHome("resumed-copies") });
      const s = client.session("refunds", { catalogue });
      await s.read("refund 40 on order 4411");
      const asked = await s.checkToolCall("refund_card", args, { origins });
      expect(asked.decision).toBe("confirm");
      const saved = JSON.stringify(s.toJSON());
      const answers = await Promise.all(Array.from({ length: n }, () => client.resume(saved).checkToolCall("refund_card", args, { origins, confirmation: asked.confirmation! })));
      const decisions = answers.map((a) => `${a.decision}:${a.reasons.join(",")}`).sort();
      expect(decisions).toEqual(["allow:confirmed", ...Array<string>(n - 1).fill("refuse:history_invalid")]);
      // the ceiling (500 a month) holds exactly one refund of 40
      const probe = client.session("probe", { catalogue });
      await probe.read("refund 460");
      const p = await probe.checkToolCall("refund_card", { order_id: "1", amount: 461 }, { origins: { order_id: "typed", amount: "typed" } });
      expect(p).toMatchObject({ decision: "refuse", reasons: ["spend_exceeded"], detail: { used: 40 } });
      client.close();
    }
  }, 60_000);
});
