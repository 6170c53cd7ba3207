/**
 * One trace file, several gateway runs (audit 7, F1 and F8): each line belongs to its run's
 * session, whatever another run wrote between; a trace that cannot say whose a line is (written
 * before `run`, two gateways at once, or a `session` line cut away) is an error, never a call
 * replayed in a session it was not made in; a line cut short by a crash says so and how to mend it.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../cli/commands/replay.js";
import { replayHome } from "../helpers/replay-home.js";

replayHome();

const CATALOGUE = "tools:\n  - name: fetch_quota\n    at_most: 1\n    args: {type: object, properties: {account: {type: string}}, additionalProperties: false}\n";
const A = "g1111111111111111";
const B = "g2222222222222222";

async function replay(lines: unknown[]) {
  const dir = mkdtempSync(join(tmpdir(), "stalwart-replay-runs-"));
  writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
  writeFileSync(join(dir, "t.jsonl"), lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n");
  let stdout = "";
  let stderr = "";
  const code = await run([join(dir, "t.jsonl"), "--catalogue", join(dir, "agent.yaml")], { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s), isTTY: false } });
  return { code, stdout, stderr: stderr.replaceAll(`${dir}/`, "") };
}

const session = (runId: string | undefined, at: string) => ({ v: 1, type: "session", name: "gw", gateway: true, ...(runId ? { run: runId } : {}), at });
const call = (runId: string | undefined, id: string, at: string) => ({ type: "call", ...(runId ? { run: runId } : {}), id, tool: "fetch_quota", args: { account: "x" }, origins: { account: "model" }, at });
const ran = (runId: string | undefined, id: string, at: string) => ({ type: "outcome", ...(runId ? { run: runId } : {}), call: id, outcome: "ran", at });

describe("stalwart replay: runs appended to one file", () => {
  it("two gateways writing at once: each line is replayed in its own run's session, as live answered it", async () => {
    const r = await replay([
      session(A, "2026-11-02T12:00:00Z"),
      call(A, `${A}-1`, "2026-11-02T12:00:01Z"),
      ran(A, `${A}-1`, "2026-11-02T12:00:01Z"),
      session(B, "2026-11-02T12:00:02Z"), // the other gateway starts
      call(B, `${B}-1`, "2026-11-02T12:00:02.500Z"),
      call(A, `${A}-2`, "2026-11-02T12:00:03Z"), // A's second: refused live (at_most 1)
      ran(B, `${B}-1`, "2026-11-02T12:00:02.900Z"), // B's clock, a little behind A's: its own order holds
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n").slice(0, 7)).toEqual([
      "session gw (en)",
      `${A}-1 fetch_quota: allow`,
      `${A}-2 fetch_quota: refuse order_rule (at_most 1)`,
      "",
      "session gw (en)",
      `${B}-1 fetch_quota: allow`,
      "",
    ]);
  });

  it("a trace written before `run`, by two gateways at once: an error naming both runs, not a call in the other run's session", async () => {
    const r = await replay([session(undefined, "2026-11-02T12:00:00Z"), call(undefined, `${A}-1`, "2026-11-02T12:00:01Z"), ran(undefined, `${A}-1`, "2026-11-02T12:00:01Z"), session(undefined, "2026-11-02T12:00:02Z"), call(undefined, `${A}-2`, "2026-11-02T12:00:03Z")]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(new RegExp(`^t\\.jsonl:5: error: call \`${A}-2\` is of gateway run \`${A}\`, but the session it would belong to \\(line 4\\) is another run's\n  hint: two gateways appended to this file at once`));
  });

  it("a run's `session` line deleted (a cut line taken out with it): its calls are not merged into the run before", async () => {
    const before = await replay([session(undefined, "2026-11-02T12:00:00Z"), call(undefined, `${A}-1`, "2026-11-02T12:00:01Z"), call(undefined, `${B}-1`, "2026-11-02T12:00:03Z")]);
    expect(before.code).toBe(1);
    expect(before.stderr).toMatch(new RegExp(`^t\\.jsonl:3: error: call \`${B}-1\` is of gateway run \`${B}\`, but the session it would belong to \\(line 1\\) is run \`${A}\`'s`));
    const now = await replay([session(A, "2026-11-02T12:00:00Z"), call(A, `${A}-1`, "2026-11-02T12:00:01Z"), call(B, `${B}-1`, "2026-11-02T12:00:03Z")]);
    expect(now.code).toBe(1);
    expect(now.stderr).toMatch(new RegExp(`^t\\.jsonl:3: error: this \`call\` event names run \`${B}\`, which no earlier \`session\` line opens`));
  });

  it("a line without `run` after a run's session is nobody's: an error", async () => {
    const r = await replay([session(A, "2026-11-02T12:00:00Z"), call(undefined, "c1", "2026-11-02T12:00:01Z")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^t\\.jsonl:2: error: this \`call\` event names no \`run\`, but the session it follows \\(line 1\\) is run \`${A}\`'s`));
  });

  it("a line cut short by a crash: said so, with how to mend it; with the next run glued to it, where to split", async () => {
    const cut = JSON.stringify(ran(A, `${A}-1`, "2026-11-02T12:00:01Z")).slice(0, 40);
    const alone = await replay([session(A, "2026-11-02T12:00:00Z"), call(A, `${A}-1`, "2026-11-02T12:00:01Z"), cut, session(B, "2026-11-02T12:00:02Z")]);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toMatch(/^t\.jsonl:3: error: not JSON: .*: the line ends before its JSON does \(cut short, as a writer stopped mid-line leaves it\?\)\n  hint: .* A line cut short by a crash cannot be mended: delete it/);
    const glued = await replay([session(undefined, "2026-11-02T12:00:00Z"), call(undefined, `${A}-1`, "2026-11-02T12:00:01Z"), cut + JSON.stringify(session(undefined, "2026-11-02T12:00:02Z"))]);
    expect(glued.code).toBe(1);
    expect(glued.stderr).toMatch(/^t\.jsonl:3: error: not JSON: the line is cut short, and a `session` line is glued to it at column 41: .*\n  hint: split the line before that column/);
  });

  it("a line giving a key twice is refused: it reads two ways (audit 7, F5)", async () => {
    const r = await replay([session(A, "2026-11-02T12:00:00Z"), `{"type":"call","run":"${A}","id":"${A}-1","tool":"fetch_quota","args":{"account":"x"},"tool":"wipe_disk"}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^t\.jsonl:2: error: the key `tool` is given twice in one object/);
  });
});
