/**
 * A read's `filter` applied by the gateway (result-filter.ts): the catalogue says which records of
 * `search_jobs`' result are passed on (a salary of at least 70,000, and a skill from the resume
 * read earlier), and the client, so the model, gets only those — in `structuredContent` and in
 * `content`, whose other blocks could carry the dropped records. The history records what was
 * passed on. A result the filter cannot read (prose) is not passed on at all; the call is still
 * reported `ran`. For 2025-era and 2026-07-28 clients alike.
 * Upstream: fixtures/jobs-server.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startGateway, type RunningGateway } from "../../cli/gateway/index.js";
import { allowedDir, downstreamClient, home, overHttp, text, type Downstream } from "./helpers.js";
import { JOBS_CATALOGUE } from "../helpers/jobs.js";

const SERVER = join(import.meta.dirname, "fixtures/jobs-server.ts");

let gw: RunningGateway;
const logs: string[] = [];

beforeAll(async () => {
  const dir = allowedDir();
  writeFileSync(join(dir, "agent.yaml"), JOBS_CATALOGUE);
  gw = await startGateway({ catalogue: join(dir, "agent.yaml"), upstream: { command: process.execPath, args: ["--import", "tsx", SERVER] }, listen: { host: "127.0.0.1", port: 0 }, home: home(), log: (l) => logs.push(l) });
}, 60_000);

afterAll(async () => {
  await gw?.close();
});

const ids = (v: unknown) => (v as { jobs: { id: string }[] }).jobs.map((j) => j.id);

describe("a read's filter, applied by the gateway", { timeout: 60_000 }, () => {
  for (const modern of [false, true]) {
    describe(modern ? "2026-07-28 client" : "2025-era client", () => {
      let d: Downstream;
      beforeAll(async () => {
        d = await overHttp(downstreamClient({ modern }), gw.url!);
        expect((await d.client.callTool({ name: "read_resume", arguments: {} })).isError ?? false).toBe(false);
      });
      afterAll(async () => {
        await d?.client.close();
      });

      it("structuredContent and content: only the kept records, and the history records those", async () => {
        const r = await d.client.callTool({ name: "search_jobs", arguments: { as: "structured" } });
        expect(r.isError ?? false).toBe(false);
        expect(ids(r.structuredContent)).toEqual(["a", "d"]);
        // one text block, the kept JSON: the server's prose about job c is not passed on
        expect(r.content).toEqual([{ type: "text", text: JSON.stringify(r.structuredContent) }]);
        expect(text(r)).not.toContain("95");
        expect(r._meta).toMatchObject({ source: "jobs-board" });
        await gw.settled();
        const checked = gw.entries().findLast((e) => e.kind === "check" && e.tool === "search_jobs")!;
        const report = gw.entries().find((e) => e.kind === "report" && e.of === checked.step) as { outcome: string; result: unknown };
        expect(report.outcome).toBe("ran");
        expect(ids(report.result)).toEqual(["a", "d"]);
      });

      it("one JSON text block: filtered the same", async () => {
        const r = await d.client.callTool({ name: "search_jobs", arguments: { as: "text" } });
        expect(r.isError ?? false).toBe(false);
        expect(ids(JSON.parse(text(r)))).toEqual(["a", "d"]);
      });

      it("prose, which the filter cannot read: not passed on, and the call is reported ran", async () => {
        const from = logs.length;
        const r = await d.client.callTool({ name: "search_jobs", arguments: { as: "prose" } });
        expect(r.isError).toBe(true);
        expect(text(r)).toMatch(/^search_jobs ran, but its result could not be filtered as the catalogue asks, so it is not passed on: it is not a JSON object or list/);
        expect(text(r)).not.toContain("95k");
        await gw.settled();
        const checked = gw.entries().findLast((e) => e.kind === "check" && e.tool === "search_jobs")!;
        expect(gw.entries().find((e) => e.kind === "report" && e.of === checked.step)).toMatchObject({ outcome: "ran", result: null });
        expect(logs.slice(from)).toContain("allow search_jobs: ran, its result not passed on (its filter could not be applied)");
      });

      it("an error result, which could carry every record: nothing of it passed on, and the call is reported failed", async () => {
        const r = await d.client.callTool({ name: "search_jobs", arguments: { as: "error" } });
        expect(r.isError).toBe(true);
        expect(r.structuredContent).toBeUndefined();
        expect(r.content).toEqual([{ type: "text", text: "search_jobs failed (its tool server answered an error); what it returned is not passed on, because the catalogue filters what search_jobs returns" }]);
        await gw.settled();
        const checked = gw.entries().findLast((e) => e.kind === "check" && e.tool === "search_jobs")!;
        expect(gw.entries().find((e) => e.kind === "report" && e.of === checked.step)).toMatchObject({ outcome: "failed" });
      });
    });
  }
});
