/**
 * The gateway's trace writer (cli/gateway/trace-file.ts) alone: origins named by call ids, time
 * that never goes backwards on a clock that does, hostile argument names, and a file that stops
 * taking writes (tracing stops, nothing thrown).
 */
import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CheckResult } from "../../worker/portable/engine/index.js";
import { TraceFile } from "../../cli/gateway/trace-file.js";
import { parseTrace } from "../../cli/replay/trace.js";

const allow = (step: number): CheckResult => ({ decision: "allow", reasons: [], detail: {}, step });
const confirm = (step: number, token: string): CheckResult => ({ decision: "confirm", reasons: ["write"], detail: {}, step, confirmation: token });
const model = { origin: "model", labels: [] };

describe("the gateway's trace writer", () => {
  it("names results by call id, leaves out an origin it has no call for, and keeps time from going backwards", () => {
    const file = join(mkdtempSync(join(tmpdir(), "stalwart-trace-file-")), "t.jsonl");
    const times = [Date.parse("2031-01-01T10:00:05Z"), Date.parse("2031-01-01T10:00:01Z")];
    let i = 0;
    const t = new TraceFile(file, () => new Date(times[Math.min(i++, times.length - 1)]!), () => undefined).open({ name: "gateway", language: "en", context: {} });
    t.call("read", { id: "a" }, { id: model }, allow(1));
    const args = JSON.parse('{"__proto__": "x", "to": "y", "from": "z"}') as Record<string, unknown>;
    const origins = JSON.parse('{"__proto__": {"origin": "result:1.id", "labels": []}, "to": {"origin": "result:9.x", "labels": []}, "from": {"origin": "context", "labels": []}}') as Record<string, { origin: string; labels: string[] }>;
    t.call("write", args, origins, confirm(3, "tok"));
    t.answer("tok", true, allow(4));
    t.answer("tok", true, allow(5)); // answered already: nothing
    t.outcome(4, "ran", { ok: true });
    t.outcome(7, "ran"); // no call allowed at 7
    t.close();
    const lines = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.type)).toEqual(["session", "call", "call", "answer", "outcome"]);
    const [read, write] = [lines[1]!, lines[2]!];
    expect(Object.getOwnPropertyNames(write.origins)).toEqual(["__proto__", "from"]);
    expect((write.origins as Record<string, string>)["__proto__"]).toBe(`result:${read.id as string}.id`);
    expect(lines[4]).toMatchObject({ type: "outcome", call: write.id, outcome: "ran", result: { ok: true } });
    expect(new Set(lines.map((l) => l.at))).toEqual(new Set(["2031-01-01T10:00:05.000Z"]));
    // what replay reads: every line parses
    expect(parseTrace(readFileSync(file, "utf8"), file).calls).toBe(2);
  });

  it("names a run's calls by a random word long enough that runs appended to one file never share one", () => {
    // Replay refuses a file where two calls share an id, so a clash loses the whole trace. A
    // gateway is started again and again on the same file (and a 2026-07-28 stdio client starts
    // it twice each time, once for its probe): 24 random bits clashed within a few thousand runs.
    const file = join(mkdtempSync(join(tmpdir(), "stalwart-trace-file-")), "t.jsonl");
    for (let run = 0; run < 3; run++) {
      const t = new TraceFile(file, () => new Date("2031-01-01T10:00:00Z"), () => undefined).open({ name: "gateway", language: "en", context: {} });
      t.call("read", {}, {}, allow(1));
      t.close();
    }
    const ids = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { id?: string }).flatMap((l) => (l.id ? [l.id] : []));
    expect(ids).toHaveLength(3);
    for (const id of ids) expect(id).toMatch(/^g[0-9a-f]{16}-1$/);
    expect(parseTrace(readFileSync(file, "utf8"), file).calls).toBe(3);
  });

  it("two gateways appending at once: every line names its run, and replay files each under its own run's session (audit 7, F1)", () => {
    const file = join(mkdtempSync(join(tmpdir(), "stalwart-trace-file-")), "t.jsonl");
    const clock = () => new Date("2031-01-01T10:00:00Z");
    const a = new TraceFile(file, clock, () => undefined).open({ name: "gateway", language: "en", context: {} });
    a.call("read", {}, {}, allow(1));
    const b = new TraceFile(file, clock, () => undefined).open({ name: "gateway", language: "en", context: {} });
    b.call("read", {}, {}, allow(1));
    a.call("read", {}, {}, allow(2)); // after b's session line
    a.outcome(2, "ran");
    b.outcome(1, "ran");
    a.close();
    b.close();
    const lines = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { run?: string });
    const runs = [...new Set(lines.map((l) => l.run))];
    expect(runs).toHaveLength(2);
    for (const r of runs) expect(r).toMatch(/^g[0-9a-f]{16}$/);
    const t = parseTrace(readFileSync(file, "utf8"), file);
    expect(t.sessions.map((s) => s.events.map((e) => (e.type === "call" ? e.id : `${e.type}`)))).toEqual([
      [`${runs[0]!}-1`, `${runs[0]!}-2`, "outcome"],
      [`${runs[1]!}-1`, "outcome"],
    ]);
  });

  it("a file whose last line was cut by a crash: the next run starts on a line of its own (audit 7, F8)", () => {
    const file = join(mkdtempSync(join(tmpdir(), "stalwart-trace-file-")), "t.jsonl");
    const a = new TraceFile(file, () => new Date("2031-01-01T10:00:00Z"), () => undefined).open({ name: "gateway", language: "en", context: {} });
    a.call("read", {}, {}, allow(1));
    a.close();
    const whole = readFileSync(file, "utf8");
    writeFileSync(file, whole.slice(0, -20)); // killed mid-write
    const b = new TraceFile(file, () => new Date("2031-01-01T10:00:01Z"), () => undefined).open({ name: "gateway", language: "en", context: {} });
    b.call("read", {}, {}, allow(1));
    b.close();
    const lines = readFileSync(file, "utf8").split("\n");
    expect(lines[1]).toBe(whole.split("\n")[1]!.slice(0, -19));
    expect(JSON.parse(lines[2]!)).toMatchObject({ type: "session", gateway: true });
    // the cut line is one line, said as cut; the run after it is whole
    expect(() => parseTrace(lines.join("\n"), file)).toThrow(/t\.jsonl:2: error: not JSON: .*the line ends before its JSON does/);
    const mended = lines.filter((_, i) => i !== 1).join("\n");
    expect(parseTrace(mended, file).sessions.map((s) => s.events.length)).toEqual([0, 1]);
  });

  it.skipIf(!existsSync("/dev/full"))("a file that stops taking writes is said once; tracing stops and nothing is thrown", () => {
    const lines: string[] = [];
    const t = new TraceFile("/dev/full", () => new Date(), (l) => lines.push(l)).open({ name: "gateway", language: "en", context: {} });
    expect(() => t.call("read", {}, {}, allow(1))).not.toThrow();
    expect(() => t.outcome(1, "ran")).not.toThrow();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^trace: `\/dev\/full` could not be written \(.*\); tracing stops, calls go on$/);
  });
});
