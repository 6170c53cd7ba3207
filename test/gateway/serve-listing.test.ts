/**
 * A tool server that lists one tool that is not valid MCP beside valid ones (outside audit 13, F5):
 * the SDK's schema refused the whole `tools/list` page for it, so the serving gateway answered
 * every `tools/list` with an error and offered nothing. Each tool is now read alone: the bad one is
 * left out (and said at the start when the catalogue names it), the others are offered and run.
 * The tool server is fixtures/listing-server.mjs, raw JSON-RPC serving $LISTING as it is.
 */
import { describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startGateway } from "../../cli/gateway/index.js";
import { allowedDir, downstreamClient, home, overHttp, text } from "./helpers.js";

const SERVER = join(import.meta.dirname, "fixtures/listing-server.mjs");
const schema = { type: "object", properties: { text: { type: "string" } } };

describe("the serving gateway in front of a listing with a tool that is not valid MCP", { timeout: 60_000 }, () => {
  it("offers and runs the valid tools, and says at its start which named tool it left out", async () => {
    const dir = allowedDir();
    const at = join(dir, "agent.yaml");
    writeFileSync(at, ["tools:", "  - name: fine", "    args: {type: object, properties: {text: {type: string}}, additionalProperties: false}", "  - name: ann_bad", ""].join("\n"));
    const listing = { pages: [[{ name: "fine", inputSchema: schema }, { name: "ann_bad", inputSchema: { type: "object" }, annotations: { readOnlyHint: "yes" } }, { name: "no_schema" }], [{ name: "later", inputSchema: schema }]] };
    const gw = await startGateway({ catalogue: at, upstream: { command: process.execPath, args: [SERVER], env: { LISTING: JSON.stringify(listing) } }, listen: { host: "127.0.0.1", port: 0 }, home: home(), log: () => undefined });
    try {
      const { client } = await overHttp(downstreamClient({}), gw.url!);
      // before: "MCP error -32603: the tool server did not answer …" for every page
      const first = await client.request({ method: "tools/list", params: {} }, (await import("@modelcontextprotocol/sdk/types.js")).ListToolsResultSchema);
      expect(first.tools.map((t) => t.name)).toEqual(["fine"]);
      expect(first.nextCursor).toBe("1");
      const r = await client.callTool({ name: "fine", arguments: { text: "hi" } });
      expect(r.isError, text(r)).toBeFalsy();
      expect(text(r)).toBe('fine {"text":"hi"}');
      await client.close();
    } finally {
      await gw.close();
    }
    expect(gw.warnings.join("\n")).toContain("the tool server lists `ann_bad` in a form that is not valid MCP");
    expect(gw.warnings.join("\n")).not.toContain("no_schema"); // the catalogue does not name it
  });
});
