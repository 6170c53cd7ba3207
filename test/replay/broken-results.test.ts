/**
 * A trace whose outcome carries a result JSON parses but canonical JSON refuses: a lone UTF-16
 * surrogate (text cut inside an emoji: `"\ud83d"`) or a number too large for a double (`1e400`,
 * which parses as Infinity), in any field. The gateway and the SDK record such a result as
 * `recordable` makes it (the surrogate as U+FFFD, the number left out), so replay does too: the
 * trace replays, and answers as the same trace with the result written that way does — the
 * subject copied out of the message read from outside is still untrusted.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { run } from "../../cli/commands/replay.js";
import { replayHome } from "../helpers/replay-home.js";

const CATALOGUE = fileURLToPath(new URL("../../examples/store/agent.yaml", import.meta.url));

async function replay(lines: string[]) {
  const file = join(mkdtempSync(join(tmpdir(), "stalwart-broken-trace-")), "trace.jsonl");
  writeFileSync(file, lines.join("\n") + "\n");
  let stdout = "";
  let stderr = "";
  const code = await run([file, "--catalogue", CATALOGUE, "--json"], { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s), isTTY: false } });
  return { code, stderr, out: code === 0 ? (JSON.parse(stdout) as { calls: unknown[] }) : undefined };
}

replayHome();

/** The trace, with `result` as the text of read_inbox's result. */
const trace = (result: string) => [
  `{"v":1,"type":"session","name":"desk","language":"en","at":"2031-03-02T10:00:00Z"}`,
  `{"type":"turn","text":"tag order 4411 as vip, or with what the customer wrote"}`,
  `{"type":"call","id":"c1","tool":"read_inbox","args":{},"origins":{}}`,
  `{"type":"outcome","call":"c1","outcome":"ran","result":${result}}`,
  `{"type":"call","id":"c2","tool":"tag_order","args":{"order_id":"4411","tag":"cut \\ufffd"},"origins":{"order_id":"typed","tag":"result:c1.messages[0].subject"}}`,
  `{"type":"call","id":"c3","tool":"tag_order","args":{"order_id":"4411","tag":"vip"},"origins":{"order_id":"typed","tag":"typed"}}`,
];

describe("stalwart replay: a result canonical JSON refuses", () => {
  const cases: [string, string, string][] = [
    ["a lone surrogate in a declared field", `{"messages":[{"from":"a@example.com","subject":"cut \\ud83d"}]}`, `{"messages":[{"from":"a@example.com","subject":"cut \\ufffd"}]}`],
    ["a number past a double in an undeclared field", `{"messages":[{"from":"a@example.com","subject":"cut \\ufffd","score":1e400}]}`, `{"messages":[{"from":"a@example.com","subject":"cut \\ufffd"}]}`],
    ["a lone surrogate in a key", `{"messages":[{"from":"a@example.com","subject":"cut \\ufffd","\\udc00":1}]}`, `{"messages":[{"from":"a@example.com","subject":"cut \\ufffd","\\ufffd":1}]}`],
  ];
  for (const [name, broken, repaired] of cases) {
    it(`${name}: replays as the repaired result does`, async () => {
      const a = await replay(trace(broken));
      expect(a.stderr).toBe("");
      expect(a.code).toBe(0);
      const b = await replay(trace(repaired));
      expect(b.code).toBe(0);
      expect(a.out!.calls).toEqual(b.out!.calls);
      // the copied subject is still the outside's: held, not allowed
      expect(a.out!.calls[1]).toMatchObject({ id: "c2", decision: "confirm", reasons: expect.arrayContaining(["tainted_call"]) });
      expect(a.out!.calls[2]).toMatchObject({ id: "c3", decision: "allow" });
    });
  }
});
