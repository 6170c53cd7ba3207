/**
 * What replay hands the SDK (cli/replay/replay.ts), seen through a recording fake session:
 * trace ids become the replayed session's step numbers (in `result:` origins, `undo_of` and
 * reports), an approval presents the confirm's token, the clock reads each event's `at`, and
 * outcomes are reported only for calls the replay allowed. The fake decides like a simple check:
 * writes are confirmed with a token, a presented token allows, reads are allowed.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseTrace, TraceError } from "../../cli/replay/trace.js";
import { ReplayClock, replayTrace, type ReplaySession, type SessionSpec } from "../../cli/replay/replay.js";
import type { CallOptions, CheckResult } from "../../worker/portable/engine/check/types.js";
import { InputError } from "../../worker/portable/engine/errors.js";

const WRITES = new Set(["refund_card", "charge_card", "send_receipt"]);

type Logged =
  | { read: string; step: number; at: string }
  | { check: string; options: CallOptions; step: number; at: string }
  | { report: number; outcome: string; result?: unknown; at: string };

class FakeSession implements ReplaySession {
  readonly log: Logged[] = [];
  private step = 0;
  constructor(readonly spec: SessionSpec, private readonly clock: ReplayClock) {}
  private at() {
    return this.clock.now().toISOString();
  }
  async read(text: string) {
    this.log.push({ read: text, step: this.step, at: this.at() });
    return { step: this.step++ };
  }
  async checkToolCall(tool: string, _args: unknown, options: CallOptions = {}): Promise<CheckResult> {
    const step = this.step++;
    this.log.push({ check: tool, options, step, at: this.at() });
    if (options.confirmation === `tok-${step - 1}`) return { decision: "allow", reasons: ["confirmed"], detail: { asked_at: step - 1 }, step };
    if (WRITES.has(tool)) return { decision: "confirm", reasons: ["write"], detail: {}, confirmation: `tok-${step}`, step };
    return { decision: "allow", reasons: [], detail: {}, step };
  }
  async report(step: number, outcome: string, result?: unknown) {
    this.log.push({ report: step, outcome, ...(result !== undefined ? { result } : {}), at: this.at() });
    return { step: this.step++ };
  }
}

async function replayFake(file: string) {
  const clock = new ReplayClock();
  const sessions: FakeSession[] = [];
  // the store session ships with its example (examples/store/trace.jsonl); the others are fixtures
  const url = file === "store.jsonl" ? new URL("../../examples/store/trace.jsonl", import.meta.url) : new URL(`../fixtures/traces/${file}`, import.meta.url);
  const trace = parseTrace(readFileSync(url, "utf8"), file);
  const result = await replayTrace(trace, {
    clock,
    open: (spec) => {
      const s = new FakeSession(spec, clock);
      sessions.push(s);
      return s;
    },
  });
  return { result, sessions };
}

describe("replay → SDK: ids become steps", () => {
  it("store.jsonl: result origins, approvals with their token, reports on the allowed step", async () => {
    const { result, sessions } = await replayFake("store.jsonl");
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.spec).toEqual({ name: "billing", language: "pt-BR", context: { customer: "c-208" } });
    const log = sessions[0]!.log;
    // step 0 turn, 1 c1, 2 report, 3 c2, 4 report, 5 c3 asked, 6 c3 with the token, 7 report
    expect(log.slice(0, 8)).toEqual([
      { read: expect.stringContaining("4411"), step: 0, at: "2026-11-29T12:00:05.000Z" },
      { check: "get_order", options: { origins: { order_id: "typed" } }, step: 1, at: "2026-11-29T12:00:07.000Z" },
      { report: 1, outcome: "ran", result: { order_id: "4411", status: "entregue", total: 40, card: "visa-1881" }, at: "2026-11-29T12:00:08.000Z" },
      { check: "list_orders", options: { origins: { customer: "context" } }, step: 3, at: "2026-11-29T12:00:09.000Z" },
      { report: 3, outcome: "ran", result: expect.any(Object), at: "2026-11-29T12:00:10.000Z" },
      { check: "refund_card", options: { origins: { order_id: "result:1.order_id", amount: "result:1.total" } }, step: 5, at: "2026-11-29T12:00:12.000Z" },
      // approved_at: the token is presented when the person answered
      { check: "refund_card", options: { origins: { order_id: "result:1.order_id", amount: "result:1.total" }, confirmation: "tok-5" }, step: 6, at: "2026-11-29T12:01:30.000Z" },
      { report: 6, outcome: "ran", result: { refund_id: "re-9001" }, at: "2026-11-29T12:01:32.000Z" },
    ]);
    const checks = log.filter((e): e is Extract<Logged, { check: string }> => "check" in e);
    // c13: a path with a list item, into c2's result
    expect(checks.find((e) => e.options.origins?.tag === "model")!.options.origins).toEqual({ order_id: "result:3.orders[1].order_id", tag: "model" });
    // labels pass through as written
    expect(checks.find((e) => e.check === "refund_card" && e.options.labels)!.options.labels).toEqual({ call: ["untrusted:read_inbox"] });
    // c5 is declined (`approved: false`): asked once, no token presented
    expect(checks.filter((e) => e.check === "refund_card" && e.options.origins?.amount === "model" && !e.options.labels)).toHaveLength(1);
    // outcomes only for calls the (fake) replay allowed: c11 `delete_order` is a read to the fake, so reported
    expect(result.calls.map((c) => [c.id, c.allowedStep !== null])).toEqual([
      ["c1", true], ["c2", true], ["c3", true], ["c4", true], ["c5", false], ["c6", true], ["c7", true],
      ["c8", false], ["c9", false], ["c10", true], ["c11", true], ["c12", true], ["c13", true], ["c14", true],
    ]);
  });

  it("undo.jsonl: undo_of and a whole-result origin map to the step that ran; an unallowed call's outcome is not reported", async () => {
    const { result, sessions } = await replayFake("undo.jsonl");
    const log = sessions[0]!.log;
    expect(log).toEqual([
      { read: "cobre 25,00 no pedido 4411", step: 0, at: "2026-11-29T12:00:01.000Z" },
      { check: "charge_card", options: { origins: { order_id: "typed", amount: "typed" } }, step: 1, at: "2026-11-29T12:00:02.000Z" },
      { check: "charge_card", options: { origins: { order_id: "typed", amount: "typed" }, confirmation: "tok-1" }, step: 2, at: "2026-11-29T12:00:02.000Z" },
      { report: 2, outcome: "ran", result: { charge_id: "ch-4411" }, at: "2026-11-29T12:00:03.000Z" },
      { check: "tag_order", options: { origins: { order_id: "typed", tag: "result:2.charge_id" } }, step: 4, at: "2026-11-29T12:00:04.000Z" },
      { report: 4, outcome: "failed", at: "2026-11-29T12:00:05.000Z" },
      { check: "refund_card", options: { origins: { order_id: "result:2", amount: "typed" }, undoOf: 2 }, step: 6, at: "2026-11-29T12:00:06.000Z" },
    ]);
    const k3 = result.calls.find((c) => c.id === "k3")!;
    expect(k3.allowedStep).toBeNull();
    expect(k3.outcomes).toEqual([{ outcome: "ran", line: 8, reported: false }]);
  });

  it("expiry.jsonl: several sessions, each opened with its own spec and clock", async () => {
    const { sessions } = await replayFake("expiry.jsonl");
    expect(sessions.map((s) => s.spec)).toEqual([{ name: "desk", language: "en" }, { name: "billing" }]);
    const [, second] = sessions;
    // `at` inherited from the session event (-03:00 read as UTC 14:00); a failed outcome is still reported
    expect(second!.log).toEqual([
      { check: "get_order", options: {}, step: 0, at: "2026-12-01T14:00:00.000Z" },
      { report: 0, outcome: "failed", at: "2026-12-01T14:00:00.000Z" },
      { check: "tag_order", options: { origins: { order_id: "result:0.order_id", tag: "context" } }, step: 2, at: "2026-12-01T14:00:00.000Z" },
    ]);
  });

  it("an SDK error while replaying a line is that line's problem (file:line), not a crash", async () => {
    const trace = parseTrace(
      [`{"v":1,"type":"session","name":"b","at":"2026-11-29T12:00:00Z"}`, `{"type":"turn","text":"oi"}`].join("\n"),
      "t.jsonl",
    );
    const clock = new ReplayClock();
    const broken: ReplaySession = {
      read: async () => {
        throw new InputError("a turn must be a string", "/text");
      },
      checkToolCall: async () => {
        throw new Error("unreachable");
      },
      report: async () => ({}),
    };
    const err = await replayTrace(trace, { clock, open: () => broken }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TraceError);
    expect((err as TraceError).problems).toEqual([{ file: "t.jsonl", line: 2, message: "the check could not replay this line: InputError: a turn must be a string" }]);
  });
});
