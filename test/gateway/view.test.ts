/**
 * The gateway's incremental history view (cli/gateway/view.ts) reads a history exactly as the
 * engine's `viewOfHistory` does, after every entry of random sessions (turns, reads, writes,
 * failed and re-reported calls, refusals), and again after the history is replaced.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "../../cli/sdk/index.js";
import { HistoryView } from "../../cli/gateway/view.js";
import { loadCatalogue, viewOfHistory, type Entry } from "../../worker/portable/engine/index.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";
import { copyLicence } from "../helpers/licensed-home.js";
import { prng } from "../helpers/prng.js";

const CATALOGUE = `
settings: {language: en}
tools:
  - name: get
    args: {type: object, properties: {id: {type: string}}, required: [id], additionalProperties: false}
    returns: {type: object, properties: {id: {type: string}, n: {type: number}}}
  - name: inbox
    reads_outside: true
    returns: {type: object, properties: {text: {type: string}}}
  - name: put
    writes: true
    confirm: when_held
    args: {type: object, properties: {id: {type: string}}, required: [id], additionalProperties: false}
`;

describe("the gateway's history view", () => {
  it("equals viewOfHistory after every entry of 30 random sessions", async () => {
    const c = new Client({ home: copyLicence(mkdtempSync(join(tmpdir(), "stalwart-view-"))) });
    const compiled = loadCatalogue(CATALOGUE, { schemaCompiler: ajvCompiler });
    const plain = (entries: Entry[]) => JSON.parse(JSON.stringify(entries)) as Entry[];
    let compared = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const rnd = prng(seed);
      const s = c.session(`v${seed}`, { catalogue: CATALOGUE, context: { k: "v" } });
      const view = new HistoryView(compiled, "en", { k: "v" });
      const steps: number[] = [];
      for (let i = 0; i < 25; i++) {
        const r = rnd();
        if (r < 0.15) await s.read(`turn ${i} about o${i}`);
        else if (r < 0.75) {
          const tool = r < 0.45 ? "get" : r < 0.6 ? "inbox" : "put";
          const check = await s.checkToolCall(tool, tool === "inbox" ? {} : { id: rnd() < 0.5 ? `o${i}` : "nope" }, { origins: { id: rnd() < 0.5 ? "context" : "model" } });
          if (check.decision === "allow") {
            steps.push(check.step);
            await s.report(check.step, rnd() < 0.8 ? "ran" : "failed", tool === "inbox" ? { text: `t${i}` } : { id: `o${i}`, n: i });
          }
        } else if (steps.length) {
          // a later report of an earlier call (its last report decides)
          const step = steps[Math.floor(rnd() * steps.length)]!;
          await s.report(step, rnd() < 0.5 ? "ran" : "failed", { id: `late${i}`, n: -i }).catch(() => undefined);
        }
        expect(view.view(s.history.entries)).toEqual(viewOfHistory(plain(s.history.entries), compiled, "en", { k: "v" }));
        compared++;
      }
      // another history (shorter, or another first entry) is read from its start
      const other = c.session(`w${seed}`, { catalogue: CATALOGUE, context: { k: "v" } });
      await other.read("another");
      expect(view.view(other.history.entries)).toEqual(viewOfHistory(plain(other.history.entries), compiled, "en", { k: "v" }));
    }
    expect(compared).toBe(750);
  });
});
