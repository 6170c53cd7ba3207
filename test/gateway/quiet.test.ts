/**
 * `--quiet`: no decision line on stderr (the gateway then builds none), while the lines about the
 * start itself still come; without it, each decision has its line.
 */
import { describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { allowedDir, downstreamClient, home, MAIN, ROOT, text } from "./helpers.js";

const FAULTS = join(import.meta.dirname, "fixtures/faults-server.mjs");
const CATALOGUE = "settings: {language: en}\ntools:\n  - {name: note, args: {type: object, properties: {text: {type: string}}, additionalProperties: false}}\n";

async function stderrOfOneCall(flags: string[]): Promise<string> {
  const dir = allowedDir();
  const catalogue = join(dir, "agent.yaml");
  writeFileSync(catalogue, CATALOGUE);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, "gateway", ...flags, "--home", home(), "--catalogue", catalogue, "--", process.execPath, FAULTS],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), FAULTS_LOG: join(dir, "faults.log") },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (b: Buffer) => void (stderr += b.toString()));
  const d = downstreamClient({});
  await d.client.connect(transport, { timeout: 60_000 });
  try {
    const r = await d.client.callTool({ name: "note", arguments: { text: "hello" } });
    expect(r.isError).not.toBe(true);
    expect(text(r)).toContain("noted");
    // the report, and its line, come after the reply
    await new Promise((r) => setTimeout(r, 300));
  } finally {
    await d.client.close();
  }
  return stderr;
}

describe("stalwart gateway --quiet", { timeout: 120_000 }, () => {
  it("says each decision without it, none with it, and the start line either way", async () => {
    const [loud, quiet] = await Promise.all([stderrOfOneCall([]), stderrOfOneCall(["--quiet"])]);
    expect(loud).toContain("stalwart gateway: checking 1 tool; serving on stdio");
    expect(loud).toContain("stalwart gateway: allow note: ran");
    expect(quiet).toContain("stalwart gateway: checking 1 tool; serving on stdio");
    expect(quiet).not.toMatch(/allow note|refuse|confirm/);
  });
});
