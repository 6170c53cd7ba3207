/**
 * What `gateway init` pins (the tool as its listing reads, every field) is what the running
 * gateway compares: a tool server that lists fields MCP does not define, in the tool and in its
 * annotations, keeps its tools offered and callable after init.
 */
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { startGateway } from "../../cli/gateway/index.js";
import { writeStarter } from "../../cli/gateway/init.js";
import { allowedDir, downstreamClient, home, overHttp, text } from "./helpers.js";

const EXTRA = join(import.meta.dirname, "fixtures/extra-fields-server.mjs");

describe("pins of a tool with fields of its own", { timeout: 60_000 }, () => {
  it("init, then the gateway: the tool is offered and its call runs", async () => {
    const dir = allowedDir();
    const at = join(dir, "agent.yaml");
    const upstream = { command: process.execPath, args: [EXTRA] };
    await writeStarter(upstream, at, { force: false });
    const gw = await startGateway({ catalogue: at, upstream, listen: { host: "127.0.0.1", port: 0 }, home: home(), log: () => undefined });
    try {
      const { client } = await overHttp(downstreamClient({}), gw.url!);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["lookup"]);
      const r = await client.callTool({ name: "lookup", arguments: { word: "pin" } });
      expect(r.isError, text(r)).toBeFalsy();
      expect(text(r)).toBe("looked up pin");
      await client.close();
    } finally {
      await gw.close();
    }
  });
});
