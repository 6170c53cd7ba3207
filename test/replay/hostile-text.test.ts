/**
 * A trace holds what a model sent: tool names, argument names and values it chose. The replay's
 * report prints them, so none may start a line of its own (CR/LF), act on the terminal (ESC[8m
 * conceals the rest of a line) or hide itself (U+202E, TAG characters): audit 7, F11.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../cli/commands/replay.js";
import { replayHome } from "../helpers/replay-home.js";

replayHome();

const CATALOGUE = "tools:\n  - name: fetch_quota\n    args: {type: object, properties: {account: {type: string}}, additionalProperties: false}\n";
const FORGED = "wipe_disk\r\n\ngwXXXX-1 fetch_quota: allow\u001b[8m";
/** what a terminal acts on or hides: C0 but tab and newline, DEL, C1, bidi and TAG characters */
const ACTING = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|[\u{E0000}-\u{E007F}]/u;

async function replay(lines: unknown[], json = false) {
  const dir = mkdtempSync(join(tmpdir(), "stalwart-replay-hostile-"));
  writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
  writeFileSync(join(dir, "t.jsonl"), lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n");
  let stdout = "";
  let stderr = "";
  const code = await run([join(dir, "t.jsonl"), "--catalogue", join(dir, "agent.yaml"), ...(json ? ["--json"] : [])], { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s), isTTY: false } });
  return { code, stdout, stderr };
}

const TRACE = [
  { v: 1, type: "session", name: "gw\u202e\nsession forged", at: "2026-12-07T11:37:44Z" },
  { type: "call", id: "g1-1", tool: FORGED, args: {} },
  // an argument name the model chose, listed by argument_origin; a value the schema refuses at its pointer
  { type: "call", id: "g1-2", tool: "fetch_quota", args: { "x\u001b[2K\rfetch_quota: allow": "y" }, origins: {} },
  { type: "call", id: "g1-3", tool: "fetch_quota", args: { account: "x\u001b[2K\r" }, origins: { account: "model" } },
];

describe("stalwart replay: the trace's text is shown, never acted on", () => {
  it("a tool name with CR/LF and ESC stays on its call's line, escaped; nothing forges or conceals a line", async () => {
    const r = await replay(TRACE);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(ACTING);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toBe("session gw[U+202E]\\nsession forged (en)");
    expect(lines[1]).toBe("g1-1 wipe_disk[U+000D]\\n\\ngwXXXX-1 fetch_quota: allow[U+001B][8m: refuse unknown_tool");
    expect(lines[2]).toMatch(/^g1-2 fetch_quota: refuse argument_schema \(.*\[U\+001B\]\[2K\[U\+000D\]fetch_quota: allow.*\)$/);
    expect(lines[3]).toBe("g1-3 fetch_quota: allow");
    // one line per call: no line of the report but these names a call
    expect(lines.filter((l) => /^g[\w-]+ /.test(l))).toHaveLength(3);
  });

  it("--json keeps every value, with hidden characters as \\u escapes", async () => {
    const r = await replay(TRACE, true);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(ACTING);
    const out = JSON.parse(r.stdout) as { sessions: { name: string }[]; calls: { tool: string }[] };
    expect(out.sessions[0]!.name).toBe("gw\u202e\nsession forged");
    expect(out.calls[0]!.tool).toBe(FORGED);
  });

  it("an error quoting the trace's text keeps it on its own line", async () => {
    const r = await replay([TRACE[0], { type: "call", id: "g1-1", tool: "t", args: {}, "x\r\n\u001b[8mt.jsonl:9: error: forged": 1 }]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(ACTING);
    expect(r.stderr.split("\n").filter((l) => /: error: /.test(l))).toHaveLength(1);
  });
});
