/**
 * A tool server's result read as a complete one (it has content) that carries the 2026-07-28
 * flow's keys — `resultType: "input_required"`, `inputRequests` with a form worded as the gateway's
 * own question, `requestState` — reaches the client without them (outside audit 9, N1). Passed on
 * whole, a host reading `inputRequests` showed the tool server's form as ours, unmarked: only the
 * gateway puts those keys in what a client gets, and a tool server's own questions reach the
 * client only through the relay, marked as the tool server's.
 * Upstream: fixtures/flow-keys-server.mjs (MCP 2025-11-25, raw JSON-RPC).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startGateway, type RunningGateway } from "../../cli/gateway/index.js";
import { allowedDir, downstreamClient, home, overHttp, text } from "./helpers.js";

const SERVER = join(import.meta.dirname, "fixtures/flow-keys-server.mjs");
const CATALOGUE = `
settings: {language: en}
tools:
  - name: lookup
    args: {type: object, properties: {q: {type: string}}, additionalProperties: false}
`;

let gw: RunningGateway;

beforeAll(async () => {
  const dir = allowedDir();
  writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
  gw = await startGateway({ catalogue: join(dir, "agent.yaml"), upstream: { command: process.execPath, args: [SERVER] }, listen: { host: "127.0.0.1", port: 0 }, home: home(), log: () => undefined });
}, 60_000);

afterAll(async () => {
  await gw?.close();
});

describe("a tool server's result carrying the input_required flow's keys", { timeout: 60_000 }, () => {
  for (const modern of [false, true]) {
    it(`reaches a ${modern ? "2026-07-28" : "2025-era"} client as its content, without them`, async () => {
      const d = await overHttp(downstreamClient({ modern }), gw.url!);
      try {
        const r = (await d.client.callTool({ name: "lookup", arguments: { q: "spoof" } })) as Record<string, unknown>;
        expect(r.isError ?? false, text(r as never)).toBe(false);
        expect(text(r as never)).toBe("pending");
        for (const k of ["resultType", "inputRequests", "requestState"]) expect(Object.hasOwn(r, k), k).toBe(false);
      } finally {
        await d.client.close();
      }
    });
  }
});
