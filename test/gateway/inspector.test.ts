/**
 * The MCP Inspector's CLI mode (`npx @modelcontextprotocol/inspector --cli`, pinned as a
 * devDependency) as the downstream client: it starts the gateway over stdio, as a host does, in
 * front of the registry's filesystem server. A client with no elicitation: reads pass, a write
 * waits for a person, a path outside the folder is refused — and the disk says what ran.
 */
import { describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { allowedDir, filesystemCatalogue, FILESYSTEM, home, MAIN, ROOT } from "./helpers.js";

const run = promisify(execFile);

/** The Inspector's answer: its JSON on stdout, and its exit code (non-zero on a tool's `isError`). */
async function inspector(gatewayArgs: string[], method: string[]): Promise<{ code: number; out: any; err: string }> {
  try {
    const { stdout, stderr } = await run(
      "npx",
      ["--no-install", "@modelcontextprotocol/inspector", "--cli", ...method, "--", process.execPath, MAIN, "gateway", "--quiet", ...gatewayArgs],
      { cwd: ROOT, timeout: 90_000, maxBuffer: 16 * 1024 * 1024 },
    );
    return { code: 0, out: JSON.parse(stdout), err: stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    if (typeof x.code !== "number") throw e;
    return { code: x.code, out: x.stdout ? JSON.parse(x.stdout) : undefined, err: x.stderr ?? "" };
  }
}

describe("the MCP Inspector CLI through the gateway", () => {
  it("lists the catalogue's tools, reads, holds a write, refuses a path outside", async () => {
    const dir = allowedDir();
    const catalogue = filesystemCatalogue(dir, join(dir, "..", `agent-${Date.now()}.yaml`));
    const gw = ["--home", home(), "--catalogue", catalogue, "--", process.execPath, FILESYSTEM, dir];

    const list = await inspector(gw, ["--method", "tools/list"]);
    expect(list.code, list.err).toBe(0);
    expect(list.out.tools.map((t: { name: string }) => t.name).sort()).toEqual(["list_allowed_directories", "read_text_file", "write_file"]);

    const read = await inspector(gw, ["--method", "tools/call", "--tool-name", "read_text_file", "--tool-arg", `path=${join(dir, "hello.txt")}`]);
    expect(read.code, read.err).toBe(0);
    expect(read.out.structuredContent).toEqual({ content: "hello from the file\n" });

    // a tool result with isError: the Inspector prints it and exits 5
    const file = join(dir, "inspector.txt");
    const write = await inspector(gw, ["--method", "tools/call", "--tool-name", "write_file", "--tool-arg", `path=${file}`, "content=hi"]);
    expect(write.code, write.err).toBe(5);
    expect(write.out.isError).toBe(true);
    expect(write.out.content[0].text).toContain("waits for a person (pending p_");
    expect(write.out._meta["stalwart-agents/check"]).toMatchObject({ decision: "confirm", reasons: expect.arrayContaining(["argument_origin"]), pending: expect.stringMatching(/^p_/) });
    expect(existsSync(file)).toBe(false);

    const outside = join(dir, "..", `inspector-outside-${Date.now()}.txt`);
    const refused = await inspector(gw, ["--method", "tools/call", "--tool-name", "write_file", "--tool-arg", `path=${outside}`, "content=hi"]);
    expect(refused.code).toBe(5);
    expect(refused.out._meta["stalwart-agents/check"]).toMatchObject({ decision: "refuse", reasons: ["argument_schema"], detail: { pointer: "/path", rule: "pattern" } });
    expect(existsSync(outside)).toBe(false);
  }, 300_000);
});
