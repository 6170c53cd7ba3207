/**
 * The adapters' incremental inference view (cli/adapters/view.ts) answers what the engine's
 * `viewOfHistory` does, after every operation of 60 random sessions: turns, reads that ran or
 * failed, outcomes learned later, refusals and confirms, untrusted reads, and a history thrown
 * away (`history_invalid`, then a new one from step 0). Half the results that ran are handed to the
 * view as the guard hands its own reports (`reported`), the rest are read back from the history;
 * and inference over the view (its scalar index) names the origins inference over
 * `viewOfHistory` (a search of every result) names, for values drawn from every result.
 */
import { describe, expect, it } from "vitest";
import { inferOrigins, loadCatalogue, prepareView, viewOfHistory, type Outcome } from "../../worker/portable/engine/index.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";
import { HistoryMirror } from "../../cli/adapters/view.js";
import { prng } from "../helpers/prng.js";
import { CATALOGUE, freshSession } from "./fixture.js";

const compiled = loadCatalogue(CATALOGUE, { schemaCompiler: ajvCompiler });

describe("the incremental inference view", { timeout: 60_000 }, () => {
  it("equals viewOfHistory after every operation (60 random sessions)", async () => {
    const { client } = freshSession();
    for (let seed = 1; seed <= 60; seed++) {
      const rnd = prng(seed);
      const s = client.session(`v${seed}`, { catalogue: CATALOGUE, context: { customer: "c-1" } });
      const mirror = new HistoryMirror(() => compiled, () => "en", { customer: "c-1" });
      const same = () => {
        const expected = viewOfHistory(s.history.entries, compiled, "en", { customer: "c-1" });
        const got = mirror.view(s.history.entries);
        expect(got.results).toEqual(expected.results);
        expect(mirror.turnTexts(s.history.entries)).toEqual(expected.turns);
        const folded = prepareView(expected).turns;
        for (const probe of ["4411", 40, "vip", "acct-1"]) expect(got.turns.has(probe)).toBe(folded.has(probe));
        const args: Record<string, unknown> = { none: "zz-nobody", nil: null, obj: { order_id: "4401" } };
        for (const r of expected.results) for (const [k, v] of Object.entries((r.result ?? {}) as object)) args[`${k}@${r.step}`] = v;
        expect(inferOrigins(args, got)).toEqual(inferOrigins(args, expected));
      };
      /** what the guard does with a result it reported: its own copy, to the view */
      const ran = async (step: number, result: object, tool: string) => {
        const copy = JSON.parse(JSON.stringify(result));
        const at = (await s.report(step, "ran", copy)).step;
        if (rnd() < 0.5) mirror.reported(s.history.entries, at, step, tool, copy);
      };
      const ids: number[] = [];
      for (let i = 0; i < 14; i++) {
        const k = rnd();
        if (k < 0.15) await s.read(`please look at order ${Math.floor(rnd() * 9000) + 1000} and tag it vip`);
        else if (k < 0.45) {
          const c = await s.checkToolCall("get_order", { order_id: String(4400 + i) }, { origins: { order_id: "model" } });
          const result = { order_id: String(4400 + Math.floor(rnd() * 4)), total: Math.floor(rnd() * 4), customer: rnd() < 0.5 ? "c-1" : `acct-${i % 3}`, extra: "not declared" };
          if (rnd() < 0.7) await ran(c.step, result, "get_order");
          else await s.report(c.step, "failed", result);
          ids.push(c.step);
        } else if (k < 0.6) {
          const c = await s.checkToolCall("read_inbox", {}, {});
          await ran(c.step, { from: "x@y.test", account: `acct-${i % 3}`, amount: Math.floor(rnd() * 4) }, "read_inbox");
        } else if (k < 0.7 && ids.length) {
          // what is learned later: a call that failed turns out to have run, or one that ran is undone
          const step = ids[Math.floor(rnd() * ids.length)]!;
          const last = [...s.history.entries].reverse().find((e) => e.kind === "report" && e.of === step);
          const next: Outcome | undefined = last?.kind === "report" ? (last.outcome === "failed" ? "ran" : last.outcome === "ran" ? "compensated" : undefined) : undefined;
          if (next) await s.report(step, next).catch(() => undefined);
        } else if (k < 0.85) await s.checkToolCall("refund_card", { order_id: "1", amount: 1 }, { origins: { order_id: "model", amount: "model" } });
        else if (k < 0.9 && seed % 5 === 0) {
          s.history.entries = []; // thrown away: the next check answers history_invalid and starts again
          await s.checkToolCall("get_order", { order_id: "1" }, {});
        } else await s.checkToolCall("tag_order", { order_id: "1", tag: "vip" }, { origins: { order_id: "model", tag: "typed" } });
        same();
      }
    }
  });
});
