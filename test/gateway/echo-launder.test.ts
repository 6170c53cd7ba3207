/**
 * The model cannot launder a value it wrote through a read that echoes it (outside audit F12): the
 * gateway infers `result:` for a value an earlier result holds, but not for one that result only
 * gave back from what the call was sent. A real gateway in front of a tool server whose lookup
 * answers with the id it was asked about; the tool server's log says what ran.
 */
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startGateway } from "../../cli/gateway/index.js";
import { allowedDir, downstreamClient, home, overHttp } from "./helpers.js";

const SERVER = join(import.meta.dirname, "fixtures/echo-server.mjs");
const CATALOGUE = `
settings: {language: en}
tools:
  - name: get_order
    args: {type: object, properties: {order_id: {type: string}}, required: [order_id], additionalProperties: false}
    returns: {type: object, properties: {order_id: {type: string}, ref: {type: string}, status: {type: string}}}
  - name: ship_order
    writes: true
    confirm: when_held
    after: [get_order]
    args: {type: object, properties: {order_id: {type: string}}, required: [order_id], additionalProperties: false}
`;

describe("a value the model wrote, echoed back by a read", { timeout: 60_000 }, () => {
  it("is still the model's: the write that carries it is asked about; a value the read found itself is its result", async () => {
    const dir = allowedDir();
    writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
    const log = join(dir, "echo.log");
    const gw = await startGateway({ catalogue: join(dir, "agent.yaml"), upstream: { command: process.execPath, args: [SERVER], env: { ...(process.env as Record<string, string>), ECHO_LOG: log } }, listen: { host: "127.0.0.1", port: 0 }, home: home(), log: () => undefined });
    const { client } = await overHttp(downstreamClient({}), gw.url!);
    const check = (r: { _meta?: Record<string, unknown> | undefined }) => r._meta?.["stalwart-agents/check"] as { decision?: string; reasons?: string[]; detail?: Record<string, unknown> };
    try {
      const read = await client.callTool({ name: "get_order", arguments: { order_id: "9999" } });
      expect(read.isError).not.toBe(true);
      const echoed = await client.callTool({ name: "ship_order", arguments: { order_id: "9999" } });
      expect(echoed.isError).toBe(true);
      expect(check(echoed)).toMatchObject({ decision: "confirm", reasons: ["argument_origin"], detail: { arguments: ["order_id"] } });
      expect(existsSync(log)).toBe(false);
      // `ref` is what the lookup found, not what it was sent: that result vouches for it
      const found = await client.callTool({ name: "ship_order", arguments: { order_id: "R-9999" } });
      expect(found.isError, JSON.stringify(found)).not.toBe(true);
      expect(readFileSync(log, "utf8")).toBe("ship R-9999\n");
    } finally {
      await client.close();
      await gw.close();
    }
  });
});
