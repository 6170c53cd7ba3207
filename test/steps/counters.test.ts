/**
 * Counters are reserved atomically when a call is allowed: 1,000 concurrent checks at one
 * ceiling never overshoot it; a failed report releases; a restart of the process keeps them;
 * a store that cannot answer refuses (fail closed).
 */
import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "../../cli/sdk/index.js";
import { Engine } from "../../worker/portable/engine/engine.js";
import { Session } from "../../worker/portable/engine/session.js";
import { nodeCore } from "../../cli/sdk/wasm-node.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";
import { catalogueFrom } from "../../cli/sdk/catalogue-input.js";
import { copyLicence } from "../helpers/licensed-home.js";
import { builtModule } from "../helpers/built-cli.js";

const repo = resolve(import.meta.dirname, "../..");
const catalogue = join(repo, "test/fixtures/ceiling.yaml");
const now = () => new Date("2026-11-15T12:00:00Z");

describe("counters", () => {
  it("1,000 concurrent spend checks from 40 sessions never overshoot the ceiling", async () => {
    const client = new Client({ home: copyLicence(mkdtempSync(join(tmpdir(), "stalwart-ceiling-"))), now });
    const sessions = Array.from({ length: 40 }, (_, i) => client.session(`s${i}`, { catalogue }));
    // 1,000 calls of 1..3 (mean 2) at a 500 ceiling: about half must be refused.
    const calls = Array.from({ length: 1000 }, (_, i) => ({ s: sessions[i % 40]!, tool: i % 3 ? "pay" : "tip", amount: 1 + (i % 3) }));
    const answers = await Promise.all(calls.map((c) => c.s.checkToolCall(c.tool, { amount: c.amount }, { origins: { amount: "context" } })));
    let allowed = 0;
    answers.forEach((a, i) => {
      if (a.decision === "allow") allowed += calls[i]!.amount;
      else expect(a.reasons).toEqual(["spend_exceeded"]);
    });
    expect(allowed).toBeLessThanOrEqual(500);
    expect(allowed).toBeGreaterThan(495); // the ceiling is used, not just respected
    expect(answers.filter((a) => a.decision === "refuse").length).toBeGreaterThan(0);
  });

  it("1,000 concurrent rate-limited reads allow exactly the limit", async () => {
    const client = new Client({ home: copyLicence(mkdtempSync(join(tmpdir(), "stalwart-rate-"))), now });
    const sessions = Array.from({ length: 10 }, (_, i) => client.session(`r${i}`, { catalogue }));
    const answers = await Promise.all(Array.from({ length: 1000 }, (_, i) => sessions[i % 10]!.checkToolCall("ping", { n: i })));
    expect(answers.filter((a) => a.decision === "allow").length).toBe(100);
    expect(new Set(answers.filter((a) => a.decision !== "allow").map((a) => a.reasons[0]))).toEqual(new Set(["limit_reached"]));
  });

  it("a failed report releases what the call reserved", async () => {
    const client = new Client({ home: copyLicence(mkdtempSync(join(tmpdir(), "stalwart-release-"))), now });
    const s = client.session("x", { catalogue });
    const a = await s.checkToolCall("pay", { amount: 450 }, { origins: { amount: "context" } });
    expect(a.decision).toBe("allow");
    expect((await s.checkToolCall("pay", { amount: 100 }, { origins: { amount: "context" } })).reasons).toEqual(["spend_exceeded"]);
    await s.report(a.step, "failed");
    await s.report(a.step, "failed"); // twice releases once
    expect((await s.checkToolCall("pay", { amount: 100 }, { origins: { amount: "context" } })).decision).toBe("allow");
    expect((await s.checkToolCall("pay", { amount: 401 }, { origins: { amount: "context" } })).reasons).toEqual(["spend_exceeded"]);
  });

  it("a restart of the process keeps the counters", () => {
    const home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-restart-")));
    const script = `
      import { Client } from ${JSON.stringify(builtModule("cli/sdk/index.js"))};
      const client = new Client({ home: process.argv[1], now: () => new Date("2026-11-15T12:00:00Z") });
      const s = client.session("p", { catalogue: ${JSON.stringify(catalogue)} });
      const out = [];
      for (const amount of JSON.parse(process.argv[2])) out.push((await s.checkToolCall("pay", { amount }, { origins: { amount: "context" } })).decision);
      console.log(JSON.stringify(out));`;
    const run = (amounts: number[]) =>
      JSON.parse(execFileSync("node", ["--input-type=module", "-e", script, home, JSON.stringify(amounts)], { cwd: repo, encoding: "utf8" }).trim().split("\n").pop()!);
    expect(run([200, 200])).toEqual(["allow", "allow"]);
    expect(run([50, 60, 50])).toEqual(["allow", "refuse", "allow"]);
    expect(run([1])).toEqual(["refuse"]);
  }, 60_000);

  it("a counter store that cannot answer refuses: usage_unknown / spend_unknown", async () => {
    const core = nodeCore();
    const cat = catalogueFrom(catalogue, { schemaCompiler: ajvCompiler, sha256: (b) => core.sha256(b) });
    const broken = { reserve: () => Promise.reject(new Error("down")), peek: () => Promise.reject(new Error("down")), release: () => Promise.resolve() };
    const hanging = { reserve: () => new Promise<never>(() => {}), peek: () => new Promise<never>(() => {}), release: () => Promise.resolve() };
    for (const counters of [broken, hanging]) {
      const engine = new Engine({ core, key: new Uint8Array(32).fill(7), schemaCompiler: ajvCompiler, counters, now });
      const s = new Session(engine, "x", cat);
      expect((await s.checkToolCall("pay", { amount: 1 }, { origins: { amount: "context" } })).reasons).toEqual(["spend_unknown"]);
      expect((await s.checkToolCall("ping", { n: 1 })).reasons).toEqual(["usage_unknown"]);
    }
    const none = new Session(new Engine({ core, key: new Uint8Array(32).fill(7), schemaCompiler: ajvCompiler, now }), "x", cat);
    expect((await none.checkToolCall("ping", { n: 1 })).reasons).toEqual(["usage_unknown"]);
  }, 20_000);
});
