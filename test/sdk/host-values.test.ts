/**
 * What the host hands the SDK and cannot be read is a typed StalwartError, never the host's own
 * error or a TypeError from inside (found from outside: a report whose result had a throwing
 * getter, a clock giving a number, null, a string, or throwing). A clock at the ends of what a
 * Date can hold is unreadable too: a check used to refuse `internal_error` ("Invalid time value")
 * when a counter's week or month began before the first Date.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Client, StalwartError } from "../../cli/sdk/index.js";
import { licensedHome } from "../helpers/licensed-home.js";

const catalogue = join(import.meta.dirname, "../../examples/store/agent.yaml");

async function thrown(f: () => Promise<unknown>): Promise<unknown> {
  try {
    await f();
  } catch (err) {
    return err;
  }
  throw new Error("it did not throw");
}

describe("values the host hands the SDK", () => {
  it("a report whose result throws when read (a getter, a proxy) is an InputError at /result", async () => {
    const s = new Client({ home: licensedHome("host-values") }).session("billing", { catalogue });
    const c = await s.checkToolCall("get_order", { order_id: "4411" });
    expect(c.decision).toBe("allow");
    for (const result of [{ get id() { throw new Error("getter"); } }, new Proxy({}, { ownKeys() { throw new Error("ownKeys"); } })]) {
      const err = await thrown(() => s.report(c.step, "ran", result));
      expect(err).toBeInstanceOf(StalwartError);
      expect(err).toMatchObject({ code: "InputError", pointer: "/result", message: expect.stringMatching(/^the result cannot be read: (getter|ownKeys)$/) });
    }
    // still reportable with a readable result
    await expect(s.report(c.step, "ran", { id: "4411" })).resolves.toEqual({ step: c.step + 1 });
  });

  it.each([
    ["a number", () => Date.now(), /gave a number/],
    ["a string", () => new Date().toISOString(), /gave a string/],
    ["null", () => null, /gave null/],
    ["an invalid date", () => new Date(NaN), /gave an invalid date/],
    ["the first date there is", () => new Date(-8.64e15), /a date before 1970/],
    // a week of 1969 ended before 1970: its counters could not keep it (outside audit 12, R5)
    ["a date in 1969", () => new Date("1969-12-28T12:00:00Z"), /gave a date before 1970 \(1969-12-28T12:00:00.000Z\)/],
    ["the last date there is", () => new Date(8.64e15), /too near the end of time/],
    ["nothing but an error", () => { throw new Error("no clock here"); }, /threw: no clock here/],
  ])("a clock that gives %s is ClockUnreadable", async (_what, now, message) => {
    const err = await thrown(async () => {
      const s = new Client({ home: licensedHome("host-clock"), now: now as () => Date }).session("billing", { catalogue });
      await s.read("hi");
      await s.checkToolCall("refund_card", { order_id: "4411", amount: 40 });
    });
    expect(err).toBeInstanceOf(StalwartError);
    expect(err).toMatchObject({ code: "ClockUnreadable", message: expect.stringMatching(message) });
  });
});
