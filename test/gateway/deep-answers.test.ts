/**
 * A tool server whose answer the MCP SDK cannot read: a tool's input schema nested thousands of
 * levels deep overflows the SDK's validation (a RangeError). `gateway init`, which reads the
 * listing raw, leaves that tool out and says why; the gateway reads each listed tool alone too,
 * so it offers the others (it answered the whole `tools/list` with an error before: outside audit
 * 13, F5), and keeps serving the calls it can forward.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runLeaf, type Io } from "../../cli/command.js";
import { command } from "../../cli/commands/gateway.js";
import { allowedDir, downstreamClient, home, overStdio, text } from "./helpers.js";

const DEEP = [process.execPath, join(import.meta.dirname, "fixtures/deep-server.mjs")];

describe("a tool server whose answer is nested too deeply to read", { timeout: 60_000 }, () => {
  it("`gateway init`: that tool is left out, saying why, and the rest is written; no internal error", async () => {
    let err = "";
    const io: Io = { stdout: { write: () => true }, stderr: { write: (s: string) => (err += s) } };
    const out = join(allowedDir(), "agent.yaml");
    // init reads tools/list raw (outside audit 13, F5): the SDK's schema no longer overflows on the
    // page, so the one deep tool is judged alone (it was UpstreamUnreadable for the whole listing)
    expect(await runLeaf(command, ["init", "-o", out, "--", ...DEEP], io), err).toBe(0);
    expect(err).not.toContain("internal error");
    const text = readFileSync(out, "utf8");
    expect(text).toContain('# not written: "deep" (its schema is nested deeper than 100 levels, more than a catalogue takes)');
    expect(text).toContain("  - name: echo");
  });

  it("the gateway: tools/list offers the other tools, and a call of another tool still runs", async () => {
    const catalogue = join(allowedDir(), "agent.yaml");
    writeFileSync(catalogue, "settings: {language: en}\ntools:\n  - {name: echo, args: {type: object, properties: {text: {type: string}}}}\n");
    const d = await overStdio(downstreamClient({}), ["--home", home(), "--catalogue", catalogue, "--", ...DEEP]);
    try {
      expect((await d.client.listTools()).tools.map((t) => t.name)).toEqual(["echo"]);
      const r = await d.client.callTool({ name: "echo", arguments: { text: "still here" } });
      expect(r.isError).toBeFalsy();
      expect(text(r)).toBe("still here");
    } finally {
      await d.client.close();
    }
  });
});
