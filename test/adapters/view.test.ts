/**
 * The adapters' incremental inference view (cli/adapters/view.ts) answers what the engine's
 * `viewOfHistory` does, after every operation of 60 random sessions: turns, reads that ran or
 * failed, outcomes learned later, refusals and confirms, untrusted reads, and a history thrown
 * away (`history_invalid`, then a new one from step 0), calls that carry an untrusted label, the
 * session option `taint_model_after_untrusted`. Most operations are handed to the view as the
 * guard hands its own (`own`: not read back), the rest are read from the history; and inference
 * over the view (its scalar index) names the origins inference over `viewOfHistory` (a search of
 * every result) names, for values drawn from every result. The session's own view (engine
 * origins/follow.ts, what a guard on a `Client` session reads) gives the same answers too.
 */
import { describe, expect, it } from "vitest";
import { inferOrigins, loadCatalogue, prepareView, viewOfHistory, type Outcome } from "../../worker/portable/engine/index.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";
import { HistoryMirror } from "../../cli/adapters/view.js";
import { sessionInfo } from "../../cli/sdk/session-info.js";
import { prng } from "../helpers/prng.js";
import { CATALOGUE, freshSession } from "./fixture.js";

const compiled = loadCatalogue(CATALOGUE, { schemaCompiler: ajvCompiler });

describe("the incremental inference view", { timeout: 60_000 }, () => {
  it("equals viewOfHistory after every operation (60 random sessions)", async () => {
    const { client } = freshSession();
    for (let seed = 1; seed <= 60; seed++) {
      const rnd = prng(seed);
      const s = client.session(`v${seed}`, { catalogue: CATALOGUE, context: { customer: "c-1" }, ...(seed % 3 === 0 ? { taintModelAfterUntrusted: true } : {}) });
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
        // Bound arguments (an `after` rule's bind): looked up in the index, the same answer as the search.
        const binds: Record<string, { tool: string; field: string }> = {};
        for (const k of Object.keys(args)) {
          const [field = "", step] = k.split("@");
          const tool = step === undefined ? "get_order" : expected.results.find((r) => String(r.step) === step)?.tool ?? "get_order";
          binds[k] = { tool: rnd() < 0.2 ? "read_inbox" : tool, field: rnd() < 0.1 ? "order_id" : field };
        }
        expect(inferOrigins(args, got, { binds })).toEqual(inferOrigins(args, expected, { binds }));
        // The session's own view (engine origins/follow.ts), which a guard on it reads instead.
        const own = sessionInfo(s)!.inference!();
        expect(own.view.results).toEqual(expected.results);
        expect(own.turns).toEqual(expected.turns);
        for (const probe of ["4411", 40, "vip", "acct-1"]) expect(own.view.turns.has(probe)).toBe(folded.has(probe));
        expect(inferOrigins(args, own.view)).toEqual(inferOrigins(args, expected));
        expect(inferOrigins(args, own.view, { binds })).toEqual(inferOrigins(args, expected, { binds }));
      };
      // Each operation is, at random, the guard's own (the view is told what it appended, as the
      // guard tells it) or someone else's (the view reads the entry).
      const mine = () => rnd() < 0.6;
      const read = async (text: string) => {
        const { step } = await s.read(text);
        if (mine()) mirror.own(s.history.entries, step, { kind: "turn", text });
      };
      const check = async (tool: string, args: Record<string, unknown>, origins: Record<string, string>) => {
        const c = await s.checkToolCall(tool, args, { origins });
        if (mine()) mirror.own(s.history.entries, c.step, { kind: "check", tool, decision: c.decision, origins });
        return c;
      };
      const report = async (of: number, outcome: Outcome, tool: string, result?: object) => {
        const copy = result === undefined ? undefined : JSON.parse(JSON.stringify(result));
        const { step } = await s.report(of, outcome, copy);
        if (mine()) mirror.own(s.history.entries, step, { kind: "report", of, outcome, tool, recorded: copy });
      };
      const ids: number[] = [];
      let inbox = -1;
      let lastOrder: { step: number; id: string } | undefined;
      for (let i = 0; i < 16; i++) {
        const k = rnd();
        if (k < 0.15) await read(`please look at order ${Math.floor(rnd() * 9000) + 1000} and tag it vip`);
        else if (k < 0.45) {
          // an order id the model wrote, or one copied out of the inbox (the call then carries its label)
          // or one copied out of an earlier order (that call's labels, a host's own included, come along)
          const fromInbox = inbox >= 0 && rnd() < 0.4;
          const fromOrder = !fromInbox && lastOrder && rnd() < 0.4 ? lastOrder : undefined;
          const args = { order_id: fromInbox ? `acct-${inbox % 3}` : fromOrder ? fromOrder.id : String(4400 + i) };
          const origins = { order_id: fromInbox ? `result:${inbox}.account` : fromOrder ? `result:${fromOrder.step}.order_id` : "model" };
          // now and then the host's own call, with a label of its own
          const c = rnd() < 0.15 ? await s.checkToolCall("get_order", args, { origins, labels: { order_id: ["pii"] } }) : await check("get_order", args, origins);
          const result = { order_id: String(4400 + Math.floor(rnd() * 4)), total: Math.floor(rnd() * 4), customer: rnd() < 0.5 ? "c-1" : `acct-${i % 3}`, extra: "not declared" };
          if (c.decision === "allow" && rnd() < 0.7) lastOrder = { step: c.step, id: result.order_id };
          if (c.decision === "allow") {
            if (rnd() < 0.7) await report(c.step, "ran", "get_order", result);
            else await report(c.step, "failed", "get_order");
            ids.push(c.step);
          }
        } else if (k < 0.6) {
          const c = await check("read_inbox", {}, {});
          if (c.decision === "allow") {
            await report(c.step, "ran", "read_inbox", { from: "x@y.test", account: `acct-${c.step % 3}`, amount: Math.floor(rnd() * 4) });
            inbox = c.step;
          }
        } else if (k < 0.7 && ids.length) {
          // what is learned later: a call that failed turns out to have run, or one that ran is undone
          const step = ids[Math.floor(rnd() * ids.length)]!;
          const last = [...s.history.entries].reverse().find((e) => e.kind === "report" && e.of === step);
          const next: Outcome | undefined = last?.kind === "report" ? (last.outcome === "failed" ? "ran" : last.outcome === "ran" ? "compensated" : undefined) : undefined;
          if (next) await report(step, next, "get_order").catch(() => undefined);
        } else if (k < 0.85) await check("refund_card", { order_id: "1", amount: 1 }, { order_id: "model", amount: "model" });
        else if (k < 0.9 && seed % 5 === 0) {
          s.history.entries = []; // thrown away: the next check answers history_invalid and starts again
          await check("get_order", { order_id: "1" }, {});
          inbox = -1;
          lastOrder = undefined;
        } else await check("tag_order", { order_id: "1", tag: "vip" }, { order_id: "model", tag: "typed" });
        same();
      }
    }
  });

  it("reads a long history new to it from the session's plain copy, with the same answer", async () => {
    const { client } = freshSession();
    const s = client.session("long", { catalogue: CATALOGUE, context: { customer: "c-1" } });
    await s.read("look at order 4411");
    for (let i = 0; i < 60; i++) {
      const c = await s.checkToolCall(i % 4 === 0 ? "read_inbox" : "get_order", i % 4 === 0 ? {} : { order_id: String(4400 + (i % 7)) }, { origins: i % 4 === 0 ? {} : { order_id: "model" } });
      if (c.decision === "allow") await s.report(c.step, "ran", i % 4 === 0 ? { from: "x", account: `acct-${i % 3}`, amount: i } : { order_id: String(4400 + (i % 7)), total: i, customer: "c-1" });
    }
    let copies = 0;
    const mirror = new HistoryMirror(() => compiled, () => "en", { customer: "c-1" }, () => (copies++, s.toJSON().entries));
    const expected = viewOfHistory(s.history.entries, compiled, "en", { customer: "c-1" });
    expect(mirror.view(s.history.entries).results).toEqual(expected.results);
    expect(copies).toBe(1);
    const c = await s.checkToolCall("get_order", { order_id: "4401" }, { origins: { order_id: "model" } });
    await s.report(c.step, "ran", { order_id: "4401", total: 1, customer: "c-2" });
    expect(mirror.view(s.history.entries).results).toEqual(viewOfHistory(s.history.entries, compiled, "en", { customer: "c-1" }).results);
    expect(copies).toBe(1); // two new entries: read from the view
  });
});
