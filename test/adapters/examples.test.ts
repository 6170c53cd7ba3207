/**
 * The adapters' examples (examples/adapters/) run offline as a user runs them — plain Node ESM
 * against the built package, the frameworks' own mock models, an activated home — and do what
 * they say: the store refund runs once after the person's approval in both frameworks, and the
 * payment an injected page asks for is held and never runs, with no host code beyond guard().
 */
import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { licensedHome } from "../helpers/licensed-home.js";

const repo = resolve(import.meta.dirname, "../..");

function runExample(file: string): { printed: string; summary: Record<string, unknown> } {
  if (!existsSync(join(repo, "dist/cli/adapters/ai/index.js"))) throw new Error("the examples import the built package: run `npm run build` first");
  const printed = execFileSync("node", [join(repo, "examples/adapters", file)], { cwd: repo, encoding: "utf8", env: { ...process.env, STALWART_HOME: licensedHome("examples") } });
  const lines = printed.trim().split("\n");
  return { printed, summary: JSON.parse(lines[lines.length - 1]!) as Record<string, unknown> };
}

describe("adapter examples", () => {
  it.each(["ai-refund.mjs", "agents-refund.mjs"])("%s: the refund waits for the person, then runs once", (file) => {
    const { printed, summary } = runExample(file);
    expect(summary).toEqual({ refunds: 1, decisions: ["get_order allow", "refund_card confirm write", "refund_card allow confirmed"] });
    expect(printed).toMatch(/order_id = "4411" {3}\(typed by you\)\n {2}amount = 40 {3}\(typed by you\)/);
  });

  it.each(["ai-injection.mjs", "agents-injection.mjs"])("%s: the injected payment is held and never runs", (file) => {
    const { printed, summary } = runExample(file);
    expect(summary).toEqual({ payments: 0, decision: "confirm", reasons: ["argument_origin", "tainted_call"] });
    expect(printed).toMatch(/to = "acct-7731-evil" {3}\(written by the model\)/);
    expect(printed).toMatch(/carries values from outside \(fetch_page\)/);
  });
});
