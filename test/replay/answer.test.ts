/**
 * A trace whose person's answers come on lines of their own (`answer` events), as a recorder that
 * writes each call when it is made writes them (`stalwart gateway --trace`): the confirmation's
 * token is presented at the answer's time, after whatever happened in between, and an answer too
 * late for the token is asked about again. A call is answered once.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { run } from "../../cli/commands/replay.js";
import { replayHome } from "../helpers/replay-home.js";

const CATALOGUE = fileURLToPath(new URL("../../examples/store/agent.yaml", import.meta.url));

async function replay(lines: object[]) {
  const file = join(mkdtempSync(join(tmpdir(), "stalwart-answer-trace-")), "trace.jsonl");
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  let stdout = "";
  let stderr = "";
  const code = await run([file, "--catalogue", CATALOGUE, "--json"], { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s), isTTY: false } });
  // a trace that cannot be replayed is the JSON error on stdout (--json): its problems as the text lines they print as without it
  const error = code === 0 ? undefined : (JSON.parse(stdout) as { error: { problems: { line: number; message: string }[] } }).error;
  return { code, stdout, stderr, out: code === 0 ? JSON.parse(stdout) : undefined, problems: error ? error.problems.map((p) => `:${p.line}: error: ${p.message}`).join("\n") : "" };
}

replayHome();

const start: Record<string, unknown>[] = [
  { v: 1, type: "session", name: "billing", language: "en", at: "2031-03-02T10:00:00Z" },
  { type: "turn", text: "refund order 4411" },
  { type: "call", id: "c1", tool: "get_order", args: { order_id: "4411" }, origins: { order_id: "typed" } },
  { type: "outcome", call: "c1", outcome: "ran", result: { order_id: "4411", status: "paid", total: 40, card: "visa-4242" } },
  { type: "call", id: "c2", tool: "refund_card", args: { order_id: "4411", amount: 40 }, origins: { order_id: "result:c1.order_id", amount: "result:c1.total" }, at: "2031-03-02T10:00:05Z" },
  { type: "call", id: "c3", tool: "get_order", args: { order_id: "4411" }, origins: { order_id: "typed" }, at: "2031-03-02T10:00:09Z" },
];

describe("stalwart replay: answers on lines of their own", () => {
  it("presents the token at the answer, after the calls between; the outcome is then reported", async () => {
    const r = await replay([...start, { type: "answer", call: "c2", approved: true, at: "2031-03-02T10:03:00Z" }, { type: "outcome", call: "c2", outcome: "ran", result: { refund_id: "re-1" } }]);
    expect(r.stderr).toBe("");
    const c2 = r.out.calls.find((c: { id: string }) => c.id === "c2");
    expect(c2).toMatchObject({ decision: "confirm", approved: true, after_approval: { decision: "allow", reasons: ["confirmed"] }, would_run: true, outcomes: ["ran"] });
    // the token was presented after c3's check: its step is the later one
    const c3 = r.out.calls.find((c: { id: string }) => c.id === "c3");
    expect(c2.after_approval.step).toBeGreaterThan(c3.step);
  });

  it("a decline is the person's answer too; an approval after the token expired is asked about again", async () => {
    const declined = await replay([...start, { type: "answer", call: "c2", approved: false }]);
    expect(declined.out.calls.find((c: { id: string }) => c.id === "c2")).toMatchObject({ decision: "confirm", approved: false, after_approval: null, would_run: false });
    const late = await replay([...start, { type: "answer", call: "c2", approved: true, at: "2031-03-04T10:00:00Z" }]);
    const c2 = late.out.calls.find((c: { id: string }) => c.id === "c2");
    expect(c2).toMatchObject({ approved: true, would_run: false });
    expect(c2.after_approval.decision).toBe("confirm");
  });

  it("a call is answered once, and an answer names a call written before it", async () => {
    const twice = await replay([...start, { type: "answer", call: "c2", approved: true }, { type: "answer", call: "c2", approved: false }]);
    expect(twice.code).toBe(1);
    expect(twice.problems).toContain(":8: error: call `c2` was answered already");
    const inline = await replay([...start.slice(0, 4), { ...start[4]!, approved: true }, start[5]!, { type: "answer", call: "c2", approved: true }]);
    expect(inline.problems).toContain("call `c2` was answered already");
    const unknown = await replay([...start, { type: "answer", call: "c9", approved: true }]);
    expect(unknown.problems).toContain("`call` names call `c9`, which no earlier line defines");
    const word = await replay([...start, { type: "answer", call: "c2", approved: "yes" }]);
    expect(word.problems).toContain("an answer's `approved` must be true or false");
  });
});
