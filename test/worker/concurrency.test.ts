/**
 * 500 parallel spend checks from several clients through the real worker (wrangler dev) against
 * one ceiling: the per-tenant Durable Object reserves atomically, so the total allowed never
 * exceeds it, however the requests interleave.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { Client } from "../../cli/sdk/index.js";
import { startCheckWorker, type RunningWorker } from "../helpers/check-worker.js";

const catalogue = join(import.meta.dirname, "../fixtures/ceiling.yaml");
let worker: RunningWorker;
beforeAll(async () => {
  worker = await startCheckWorker(["shop"]);
}, 120_000);
afterAll(async () => {
  await worker?.stop();
});

describe("shared ceiling through the worker", () => {
  it("500 parallel spend checks from 5 clients never overshoot", async () => {
    const now = () => new Date("2026-11-15T12:00:00Z");
    const clients = Array.from({ length: 5 }, () => new Client({ url: worker.url, key: worker.keys[0]!, timeoutMs: 60_000, now }));
    // Each client's sessions; a session answers one call at a time, so spread over 50 sessions.
    const sessions = Array.from({ length: 50 }, (_, i) => clients[i % 5]!.session(`s${i}`, { catalogue }));
    await Promise.all(sessions.map((s) => s.read("go")));
    const calls = Array.from({ length: 500 }, (_, i) => ({ s: sessions[i % 50]!, tool: i % 2 ? "pay" : "tip", amount: 1 + (i % 3) }));
    const answers = await Promise.all(calls.map((c) => c.s.checkToolCall(c.tool, { amount: c.amount }, { origins: { amount: "context" } })));
    let allowed = 0;
    answers.forEach((a, i) => {
      if (a.decision === "allow") allowed += calls[i]!.amount;
      else expect(a.reasons, JSON.stringify(a)).toEqual(["spend_exceeded"]);
    });
    expect(allowed).toBeLessThanOrEqual(500);
    expect(allowed).toBeGreaterThan(495);
  }, 120_000);
});
