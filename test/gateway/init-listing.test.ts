/**
 * `stalwart gateway init` against listings an SDK server would not send (outside audit 13): the
 * same name twice, a tool that is not valid MCP, more pages than init reads, a cursor that never
 * ends. Each is said, by tool where one tool is at fault, and never as an internal error.
 * The tool server is fixtures/listing-server.mjs, raw JSON-RPC serving $LISTING as it is.
 */
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { runLeaf, type Io } from "../../cli/command.js";
import { command } from "../../cli/commands/gateway.js";
import { allowedDir } from "./helpers.js";

const SERVER = join(import.meta.dirname, "fixtures/listing-server.mjs");
const schema = { type: "object", properties: { text: { type: "string" } } };

/** `gateway init` with the server listing `pages`: its exit code, stdout, stderr, and the file it wrote (or undefined). */
async function init(listing: { pages: unknown[][]; loop?: boolean }, ...flags: string[]): Promise<{ code: number; out: string; err: string; file: string | undefined }> {
  let out = "", err = "";
  const io: Io = { stdout: { write: (s: string) => ((out += s), true) }, stderr: { write: (s: string) => ((err += s), true) } };
  const path = join(allowedDir(), "agent.yaml");
  const saved = process.env.LISTING;
  process.env.LISTING = JSON.stringify(listing);
  try {
    const code = await runLeaf(command, ["init", ...flags, "-o", path, "--", process.execPath, SERVER], io);
    return { code, out, err, file: existsSync(path) ? readFileSync(path, "utf8") : undefined };
  } finally {
    if (saved === undefined) delete process.env.LISTING;
    else process.env.LISTING = saved;
  }
}

describe("gateway init: listings no SDK server sends", { timeout: 60_000 }, () => {
  it("a name listed twice is one tool left out: with nothing else, nothing is written and init says why", async () => {
    const only = await init({ pages: [[{ name: "dup", inputSchema: schema }, { name: "dup", inputSchema: schema }]] });
    // counted as listed less left out, this wrote an empty list, which failed init's own lint ("a bug")
    expect(only.code).toBe(1);
    expect(only.err).toContain("none of the tool server's 2 tools can be written to a catalogue");
    expect(only.err).toContain('"dup" (the server lists this name 2 times');
    expect(only.err).not.toContain("bug");
    expect(only.file).toBeUndefined();
    const more = await init({ pages: [[{ name: "dup", inputSchema: schema }, { name: "fine", inputSchema: schema }, { name: "dup", inputSchema: schema }]] });
    expect(more.code, more.err).toBe(0);
    expect(more.out).toContain("wrote 1 tool (");
    expect((parse(more.file!).tools as { name: string }[]).map((t) => t.name)).toEqual(["fine"]);
  });
});
