/**
 * The MCP conformance suite (@modelcontextprotocol/conformance, pinned) against a server that
 * passes it directly (fixtures/conformance-server.mjs, streamable HTTP), then through an allow-all
 * gateway in front of that same server (`--url` upstream, `--listen` downstream): every scenario
 * passes but those named in conformance-expected-failures.yml, each with its reason; the suite
 * itself fails the run on an unexpected failure or a stale entry.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { startGateway, type RunningGateway } from "../../cli/gateway/index.js";
import { home, ROOT } from "./helpers.js";

const SERVER = join(import.meta.dirname, "fixtures/conformance-server.mjs");
const EXPECTED = join(import.meta.dirname, "conformance-expected-failures.yml");
// allow-all: every tool a read, every argument allowed
const open = "{type: object, additionalProperties: true}";
const TOOLS = ["test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource", "test_multiple_content_types", "test_tool_with_logging", "test_error_handling", "test_tool_with_progress", "test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums", "json_schema_2020_12_tool"];

function conformance(url: string, extra: string[]): Promise<{ code: number; out: string }> {
  const out = mkdtempSync(join(tmpdir(), "stalwart-conformance-"));
  return new Promise((resolve) => {
    execFile("npx", ["--no-install", "conformance", "server", "--url", url, "-o", out, ...extra], { cwd: ROOT, timeout: 300_000, maxBuffer: 32 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === "number" ? ((err as { code: number }).code) : 99) : 0;
      resolve({ code, out: `${stdout}\n${stderr}` });
    });
  });
}

const summary = (out: string) => out.slice(out.lastIndexOf("=== SUMMARY ==="));

let upstream: ChildProcess;
let upstreamUrl: string;
let gw: RunningGateway;
beforeAll(async () => {
  upstream = spawn(process.execPath, [SERVER], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  upstreamUrl = await new Promise<string>((resolve, reject) => {
    createInterface({ input: upstream.stdout! }).once("line", resolve);
    upstream.once("exit", (c) => reject(new Error(`the conformance server exited (${c})`)));
  });
  const dir = mkdtempSync(join(tmpdir(), "stalwart-conformance-cat-"));
  writeFileSync(join(dir, "agent.yaml"), `settings: {language: en}\ntools:\n${TOOLS.map((t) => `  - {name: ${t}, args: ${open}}`).join("\n")}\n`);
  gw = await startGateway({ catalogue: join(dir, "agent.yaml"), upstream: { url: upstreamUrl }, listen: { host: "127.0.0.1", port: 0 }, home: home() });
}, 120_000);
afterAll(async () => {
  await gw?.close();
  upstream?.kill();
});

describe("the MCP conformance suite", () => {
  it("the fixture server passes it directly", async () => {
    const r = await conformance(upstreamUrl, []);
    expect(r.code, summary(r.out)).toBe(0);
    expect(summary(r.out)).toMatch(/Total: \d+ passed, 0 failed/);
    const schema = await conformance(upstreamUrl, ["--scenario", "json-schema-2020-12"]);
    expect(schema.code, schema.out).toBe(0);
  }, 300_000);

  it("through an allow-all gateway, only the expected failures fail", async () => {
    const r = await conformance(gw.url!, ["--expected-failures", EXPECTED]);
    expect(r.code, summary(r.out)).toBe(0);
    // the tool calls, resources and prompts scenarios pass through the check; logging, the tool
    // server's own requests to the client and subscriptions are relayed (relay.ts)
    for (const s of ["tools-call-simple-text", "tools-call-with-progress", "tools-call-error", "resources-read-binary", "prompts-get-embedded-resource", "completion-complete", "dns-rebinding-protection",
      "logging-set-level", "tools-call-with-logging", "tools-call-sampling", "tools-call-elicitation", "elicitation-sep1034-defaults", "elicitation-sep1330-enums", "resources-subscribe", "resources-unsubscribe"]) {
      expect(summary(r.out)).toMatch(new RegExp(`✓ ${s}:`));
    }
    const schema = await conformance(gw.url!, ["--scenario", "json-schema-2020-12"]);
    expect(schema.code, schema.out).toBe(0);
    // the gateway reported what it saw: the tool that answers isError is `failed`, the others `ran`
    await gw.settled();
    const entries = gw.entries();
    const outcome = (tool: string) => entries.filter((e) => e.kind === "report" && entries.some((c) => c.kind === "check" && c.step === e.of && c.tool === tool)).map((e) => (e as { outcome: string }).outcome);
    expect(outcome("test_error_handling")).toEqual(["failed"]);
    expect(outcome("test_simple_text")).toEqual(["ran"]);
  }, 300_000);
});
