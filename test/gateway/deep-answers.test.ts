/**
 * A tool server whose answer the MCP SDK cannot read: a tool's input schema nested thousands of
 * levels deep overflows the SDK's validation (a RangeError). `gateway init` stops with a typed
 * error that says so, not an internal error with a stack; the gateway answers the client's
 * `tools/list` with a JSON-RPC error saying so, and keeps serving the calls it can forward.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runLeaf, type Io } from "../../cli/command.js";
import { command } from "../../cli/commands/gateway.js";
import { allowedDir, downstreamClient, home, overStdio, text } from "./helpers.js";

const DEEP = [process.execPath, join(import.meta.dirname, "fixtures/deep-server.mjs")];

describe("a tool server whose answer is nested too deeply to read", { timeout: 60_000 }, () => {
  it("`gateway init`: UpstreamUnreadable naming the request, no internal error", async () => {
    let err = "";
    const io: Io = { stdout: { write: () => true }, stderr: { write: (s: string) => (err += s) } };
    const out = join(allowedDir(), "agent.yaml");
    expect(await runLeaf(command, ["init", "-o", out, "--", ...DEEP], io)).toBe(1);
    expect(err).toContain("stalwart: UpstreamUnreadable: the tool server's answer to `tools/list` could not be read: it is nested too deeply (Maximum call stack size exceeded)");
    expect(err).not.toContain("internal error");
  });

  it("the gateway: tools/list is a JSON-RPC error saying so; a call of another tool still runs", async () => {
    const catalogue = join(allowedDir(), "agent.yaml");
    writeFileSync(catalogue, "settings: {language: en}\ntools:\n  - {name: echo, args: {type: object, properties: {text: {type: string}}}}\n");
    const d = await overStdio(downstreamClient({}), ["--home", home(), "--catalogue", catalogue, "--", ...DEEP]);
    try {
      await expect(d.client.listTools()).rejects.toThrow("the tool server's answer to `tools/list` could not be read: it is nested too deeply");
      const r = await d.client.callTool({ name: "echo", arguments: { text: "still here" } });
      expect(r.isError).toBeFalsy();
      expect(text(r)).toBe("still here");
    } finally {
      await d.client.close();
    }
  });
});
