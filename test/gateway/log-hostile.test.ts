/**
 * The gateway's log (stderr) says what it did with each call, naming the tool and often a value:
 * both the model's to choose. A tool named "x\r\n…allow\x1b[8m" must not write a log line of its
 * own, nor conceal the refusal after it (audit 7, F11): every line on one line, hidden characters named.
 */
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { startGateway } from "../../cli/gateway/index.js";
import { allowedDir, downstreamClient, filesystemCatalogue, FILESYSTEM, home, overHttp, text } from "./helpers.js";

const FORGED = "wipe_disk\r\n\nstalwart gateway: allow fetch_quota: ran\u001b[8m\u202e";
const ACTING = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe("the gateway's log and refusals: the model's text is shown, never acted on", { timeout: 60_000 }, () => {
  it("a refused tool's name stays on its log line, escaped; the refusal's first line too", async () => {
    const dir = allowedDir();
    const catalogue = filesystemCatalogue(dir, join(dir, "..", `agent-log-${Date.now()}.yaml`));
    const lines: string[] = [];
    const gw = await startGateway({ catalogue, upstream: { command: process.execPath, args: [FILESYSTEM, dir] }, listen: { host: "127.0.0.1", port: 0 }, home: home(), log: (l) => lines.push(l) });
    const { client } = await overHttp(downstreamClient({}), gw.url!);
    try {
      const r = await client.callTool({ name: FORGED, arguments: {} });
      expect(r.isError).toBe(true);
      const said = text(r).split("\n");
      expect(said[0]).toBe("stalwart refused wipe_disk[U+000D]\\n\\nstalwart gateway: allow fetch_quota: ran[U+001B][8m[U+202E], and it did not run.");
      expect(said[1]).toMatch(/^unknown_tool: /);
    } finally {
      await client.close();
      await gw.close();
    }
    const refused = lines.filter((l) => l.startsWith("refuse "));
    expect(refused).toEqual(["refuse wipe_disk[U+000D]\\n\\nstalwart gateway: allow fetch_quota: ran[U+001B][8m[U+202E] unknown_tool"]);
    for (const l of lines) expect(l).not.toMatch(ACTING);
  });
});
