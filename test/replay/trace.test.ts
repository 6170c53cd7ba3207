/** The trace reader (cli/replay/trace.ts): what it gives, and every kind of error with its line. */
import { describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseTrace, TraceError, type TraceCall, type TraceProblem } from "../../cli/replay/trace.js";
import { readTrace } from "../../cli/replay/read-trace.js";

const SESSION = `{"v":1,"type":"session","name":"billing","language":"pt-BR","at":"2026-11-29T12:00:00Z"}`;

/** The problems of a trace that must not read. */
function problems(...lines: string[]): TraceProblem[] {
  try {
    parseTrace(lines.join("\n") + "\n", "t.jsonl");
  } catch (err) {
    expect(err).toBeInstanceOf(TraceError);
    expect((err as TraceError).code).toBe("TraceInvalid");
    return [...(err as TraceError).problems];
  }
  throw new Error("the trace read without error");
}

const one = (...lines: string[]) => {
  const p = problems(...lines);
  expect(p).toHaveLength(1);
  return p[0]!;
};

describe("parseTrace: what a good trace gives", () => {
  it("sessions, turns, calls with origins mapped to words or call ids, outcomes; `at` inherited", () => {
    const t = parseTrace(
      [
        `{"v":1,"type":"session","name":"billing","language":"pt-BR","context":{"customer":"c-208"},"agent":null,"at":"2026-11-29T09:00:00-03:00"}`,
        `{"type":"turn","text":"estorne 40,00 do pedido 4411","at":"2026-11-29T12:00:05Z"}`,
        `{"type":"call","id":"c1","tool":"get_order","args":{"order_id":"4411"},"origins":{"order_id":"typed"}}`,
        ``,
        `{"type":"outcome","call":"c1","outcome":"ran","result":{"total":40},"at":"2026-11-29T12:00:08.250Z"}`,
        `{"type":"call","id":"c2","tool":"refund_card","args":{"order_id":"4411","amount":40},"origins":{"order_id":"result:c1","amount":"result:c1.items[0].total"},"labels":{"call":["untrusted:read_inbox"]},"facts":{"tier":"gold"},"undo_of":"c1","approved":true,"approved_at":"2026-11-29T12:10:00Z","verdict":"fine","agent":"billing"}`,
        `{"v":1,"type":"session","name":"second","at":"2026-11-30T00:00:00Z"}`,
      ].join("\r\n"),
      "t.jsonl",
    );
    expect(t.calls).toBe(2);
    expect(t.sessions.map((s) => [s.name, s.language, s.line, s.events.length])).toEqual([["billing", "pt-BR", 1, 4], ["second", undefined, 7, 0]]);
    const [s] = t.sessions;
    expect(s!.at).toBe(Date.parse("2026-11-29T12:00:00Z"));
    expect(s!.context).toEqual({ customer: "c-208" });
    const c1 = s!.events[1] as TraceCall;
    expect(c1).toMatchObject({ type: "call", id: "c1", line: 3, at: Date.parse("2026-11-29T12:00:05Z"), origins: { order_id: { word: "typed" } } });
    const c2 = s!.events[3] as TraceCall;
    expect(c2.origins).toEqual({ order_id: { call: "c1", path: "" }, amount: { call: "c1", path: "items[0].total" } });
    expect(c2).toMatchObject({ undoOf: "c1", approved: true, approvedAt: Date.parse("2026-11-29T12:10:00Z"), verdict: "fine", agent: "billing", at: Date.parse("2026-11-29T12:00:08.250Z") });
  });

  it("a byte-order mark and a missing final newline are fine", () => {
    expect(parseTrace(`\uFEFF${SESSION}`, "t.jsonl").sessions).toHaveLength(1);
  });
});

describe("parseTrace: errors name the line, say what is wrong and how to fix it", () => {
  it("bad JSON, not an object, no type", () => {
    expect(one(SESSION, `{"type":"turn","text":"oi"`)).toMatchObject({ file: "t.jsonl", line: 2, message: expect.stringMatching(/^not JSON: /), hint: expect.stringContaining("one JSON object") });
    expect(one(SESSION, `[1,2]`).message).toBe("an event must be a JSON object, not a list");
    expect(one(SESSION, `{"text":"oi"}`).message).toBe("the event has no `type`");
  });

  it("unknown types and fields, with a suggestion", () => {
    expect(one(SESSION, `{"type":"cal","id":"c1","tool":"x","args":{}}`)).toMatchObject({ line: 2, message: "unknown event type `cal`", hint: "did you mean `call`? event types are `session`, `turn`, `call`, `answer`, `outcome`" });
    expect(one(SESSION, `{"type":"call","id":"c1","tool":"x","args":{},"undo":"c0"}`)).toMatchObject({ message: "unknown field `undo` in a `call` event", hint: expect.stringMatching(/^did you mean `undo_of`\? a `call` event has `v`, `type`, `run`, `id`/) });
    expect(one(`{"v":1,"type":"session","name":"b","at":"2026-11-29T12:00:00Z","lang":"en"}`)).toMatchObject({ line: 1, message: "unknown field `lang` in a `session` event" });
  });

  it("the trace version: required on a session, only 1", () => {
    expect(one(`{"type":"session","name":"b","at":"2026-11-29T12:00:00Z"}`)).toMatchObject({ message: "a `session` event needs the trace version `v`", hint: 'write "v":1' });
    expect(one(`{"v":2,"type":"session","name":"b","at":"2026-11-29T12:00:00Z"}`).message).toBe("trace version 2 is not one this stalwart reads");
    expect(one(SESSION, `{"v":2,"type":"turn","text":"oi"}`).message).toBe("`v` must be 1 (or left out) on a `turn` event, not number `2`");
  });

  it("a trace starts with a session; an empty trace says so", () => {
    expect(one(`{"type":"turn","text":"oi","at":"2026-11-29T12:00:00Z"}`)).toMatchObject({ line: 1, message: "the trace starts with a `turn` event, before any `session`" });
    expect(one(``)).toMatchObject({ line: 1, message: "the trace has no events" });
  });

  it("times: RFC 3339 with a zone, never backwards (approved_at included)", () => {
    expect(one(`{"v":1,"type":"session","name":"b"}`).message).toBe("a `session` event needs its time `at`");
    expect(one(SESSION, `{"type":"turn","text":"oi","at":"2026-11-29 12:00"}`).message).toBe("`at` must be an RFC 3339 time with a time zone, not a string `2026-11-29 12:00`");
    // a day the month does not have is no time, not the first days of the next month
    expect(one(SESSION, `{"type":"turn","text":"oi","at":"2026-12-01T00:00:00Z"}`, `{"type":"turn","text":"oi","at":"2027-02-29T12:00:00Z"}`).message).toBe("`at` must be an RFC 3339 time with a time zone, not a string `2027-02-29T12:00:00Z`");
    expect(one(SESSION, `{"type":"turn","text":"oi","at":"2026-12-01T00:00:00Z"}`, `{"type":"turn","text":"oi","at":"2027-04-31T12:00:00-03:00"}`).message).toBe("`at` must be an RFC 3339 time with a time zone, not a string `2027-04-31T12:00:00-03:00`");
    expect(one(SESSION, `{"type":"call","id":"c1","tool":"x","args":{},"approved":true,"approved_at":"tomorrow"}`).message).toBe("`approved_at` must be an RFC 3339 time with a time zone, not a string `tomorrow`");
    expect(one(SESSION, `{"type":"turn","text":"oi","at":"2026-11-29T11:59:59Z"}`).message).toBe("time goes backwards: `at` is 2026-11-29T11:59:59.000Z, before the previous event's 2026-11-29T12:00:00.000Z");
    const p = problems(
      SESSION,
      `{"type":"call","id":"c1","tool":"refund_card","args":{},"approved":true,"approved_at":"2026-11-29T13:00:00Z"}`,
      `{"type":"outcome","call":"c1","outcome":"ran","at":"2026-11-29T12:30:00Z"}`,
      `{"type":"call","id":"c2","tool":"refund_card","args":{},"approved_at":"2026-11-29T14:00:00Z"}`,
      `{"type":"call","id":"c3","tool":"refund_card","args":{},"approved":true,"approved_at":"2026-11-29T12:00:00Z","at":"2026-11-29T15:00:00Z"}`,
    );
    expect(p.map((x) => [x.line, x.message])).toEqual([
      [3, "time goes backwards: `at` is 2026-11-29T12:30:00.000Z, before the previous event's 2026-11-29T13:00:00.000Z"],
      [4, "`approved_at` without `\"approved\": true`"],
      [5, "`approved_at` 2026-11-29T12:00:00.000Z is before the call's `at` 2026-11-29T15:00:00.000Z"],
    ]);
  });

  it("calls: id, tool, args, and the shape of every field", () => {
    expect(one(SESSION, `{"type":"call","id":"3","tool":"x","args":{}}`).message).toMatch(/^a call's `id` must be a word .* not a string `3`$/);
    expect(one(SESSION, `{"type":"call","id":"c1","tool":"","args":{}}`).message).toBe("a call's `tool` must be the tool's name, not a string ``");
    expect(one(SESSION, `{"type":"call","id":"c1","tool":"x"}`).message).toBe("a call needs its `args`");
    expect(one(SESSION, `{"type":"call","id":"c1","tool":"x","args":{},"origins":{"a":1}}`).message).toBe("`origins.a` must be an origin string, not number `1`");
    expect(one(SESSION, `{"type":"call","id":"c1","tool":"x","args":{},"labels":{"call":"untrusted:x"}}`).message).toBe("`labels.call` must be a list of label strings, not a string `untrusted:x`");
    expect(one(SESSION, `{"type":"call","id":"c1","tool":"x","args":{},"approved":"yes"}`).message).toBe("`approved` must be true or false, not a string `yes`");
    expect(one(SESSION, `{"type":"call","id":"c1","tool":"x","args":{},"verdict":"ok"}`).message).toBe("`verdict` must be `fine` or `harmful`, not a string `ok`");
    expect(one(SESSION, `{"type":"call","id":"c1","tool":"x","args":{},"facts":[]}`).message).toBe("`facts` must be an object, not a list");
    expect(one(SESSION, `{"type":"call","id":"c1","tool":"x","args":{}}`, `{"type":"call","id":"c1","tool":"x","args":{}}`)).toMatchObject({ line: 3, message: "call id `c1` is used twice" });
  });

  it("references: to an earlier call of the same session, by id — never a step number", () => {
    const call = `{"type":"call","id":"c1","tool":"get_order","args":{}}`;
    expect(one(SESSION, `{"type":"outcome","call":"c9","outcome":"ran"}`)).toMatchObject({ line: 2, message: "`call` names call `c9`, which no earlier line defines" });
    expect(one(SESSION, `{"type":"call","id":"c2","tool":"x","args":{},"undo_of":"c3"}`, `{"type":"call","id":"c3","tool":"x","args":{}}`)).toMatchObject({ line: 2, message: "`undo_of` names call `c3`, which no earlier line defines" });
    expect(one(SESSION, call, `{"type":"call","id":"c2","tool":"x","args":{"a":1},"origins":{"a":"result:4.total"}}`)).toMatchObject({
      line: 3,
      message: "`origins.a` names a step number (`result:4.total`); a trace names calls by id",
      hint: "write `result:<id>.total` with the id of the call whose result this is; replay maps it to its step",
    });
    expect(one(SESSION, call, `{"type":"call","id":"c2","tool":"x","args":{},"origins":{"a":"result:c7.total"}}`).message).toBe("`origins.a` names call `c7`, which no earlier line defines");
    expect(one(SESSION, call, `{"type":"call","id":"c2","tool":"x","args":{},"origins":{"a":"result:"}}`).message).toBe("`origins.a` is not `result:<call id>` or `result:<call id>.<path>`: `result:`");
    expect(one(SESSION, call, `{"v":1,"type":"session","name":"other","at":"2026-11-29T12:00:00Z"}`, `{"type":"outcome","call":"c1","outcome":"ran"}`)).toMatchObject({
      line: 4,
      message: "`call` names call `c1` of the session on line 1, not of this one (`other`, line 3)",
    });
    expect(one(SESSION, call, `{"type":"outcome","call":"c1","outcome":"done"}`).message).toBe("`outcome` must be one of `ran`, `failed`, `outcome_unknown`, `compensated`, not a string `done`");
  });

  it("sessions: name, language (chosen, never guessed), context, agent", () => {
    expect(one(`{"v":1,"type":"session","name":"","at":"2026-11-29T12:00:00Z"}`).message).toBe("a session's `name` must be a string of 1–200 characters, not a string ``");
    expect(one(`{"v":1,"type":"session","name":"b","language":"pt","at":"2026-11-29T12:00:00Z"}`)).toMatchObject({ message: "`language` must be `en` or `pt-BR`, not a string `pt`", hint: "did you mean `pt-BR`?" });
    expect(one(`{"v":1,"type":"session","name":"b","context":"c-208","at":"2026-11-29T12:00:00Z"}`).message).toBe("`context` must be an object, not a string `c-208`");
    expect(one(`{"v":1,"type":"session","name":"b","agent":3,"at":"2026-11-29T12:00:00Z"}`).message).toBe("a session's `agent` must be a string or null, not number `3`");
    expect(one(`{"v":1,"type":"session","name":"b","gateway":"yes","at":"2026-11-29T12:00:00Z"}`).message).toBe("a session's `gateway` must be true or false, not a string `yes`");
  });

  it("every problem is reported, in line order, up to 50", () => {
    const lines = [SESSION, ...Array.from({ length: 60 }, (_, i) => `{"type":"turn","text":${i}}`)];
    try {
      parseTrace(lines.join("\n"), "t.jsonl");
      throw new Error("read");
    } catch (err) {
      const e = err as TraceError;
      expect(e.problems).toHaveLength(50);
      expect(e.more).toBe(10);
      expect(e.problems[0]!.line).toBe(2);
      expect(e.problems[49]!.line).toBe(51);
    }
  });
});

describe("reading a trace file line by line (cli/replay/read-trace.ts)", () => {
  it("gives the lines a split of the whole text gives, lines across its read chunks and characters across them included", () => {
    const dir = mkdtempSync(join(tmpdir(), "stalwart-read-trace-"));
    const file = join(dir, "t.jsonl");
    try {
      // a line of 17 MiB of two-byte characters, past the 16 MiB read, then short ones and an empty one
      const text = `${SESSION}\r\n{"type":"turn","text":"${"é".repeat(17 * 512 * 1024 + 1)}","at":"2026-11-29T12:00:05Z"}\n\n{"type":"turn","text":"ok","at":"2026-11-29T12:00:06Z"}`;
      writeFileSync(file, text);
      const lines = readTrace(file);
      expect(lines.length).toBe(4);
      expect(lines).toEqual(text.split("\n"));
      expect(parseTrace(lines, file).sessions[0]!.events).toHaveLength(2);
      writeFileSync(file, text + "\n");
      expect(readTrace(file)).toEqual(text.split("\n"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a line over the limit is an error at its own line; the lines around it are read", () => {
    const dir = mkdtempSync(join(tmpdir(), "stalwart-read-trace-"));
    const file = join(dir, "t.jsonl");
    try {
      writeFileSync(file, [SESSION, "x".repeat(2000), "{}", "y".repeat(1025)].join("\n"));
      const err = (() => {
        try {
          readTrace(file, 1024);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(TraceError);
      expect((err as TraceError).problems.map((p) => [p.line, p.message])).toEqual([
        [2, "the line is 2000 bytes long: too long to read (replay reads lines of at most 0.0009765625 MiB)"],
        [4, "the line is 1025 bytes long: too long to read (replay reads lines of at most 0.0009765625 MiB)"],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
