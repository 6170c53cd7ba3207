/**
 * `stalwart gateway init` against listings an SDK server would not send (outside audit 13): the
 * same name twice, a tool that is not valid MCP, more pages than init reads, a cursor that never
 * ends. Each is said, by tool where one tool is at fault, and never as an internal error.
 * The tool server is fixtures/listing-server.mjs, raw JSON-RPC serving $LISTING_FILE as it is.
 */
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
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
  const dir = allowedDir();
  const path = join(dir, "agent.yaml");
  writeFileSync(join(dir, "listing.json"), JSON.stringify(listing));
  const saved = process.env.LISTING_FILE;
  process.env.LISTING_FILE = join(dir, "listing.json");
  try {
    const code = await runLeaf(command, ["init", ...flags, "-o", path, "--", process.execPath, SERVER], io);
    return { code, out, err, file: existsSync(path) ? readFileSync(path, "utf8") : undefined };
  } finally {
    if (saved === undefined) delete process.env.LISTING_FILE;
    else process.env.LISTING_FILE = saved;
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

  it("a tool that is not valid MCP (no inputSchema, one not an object, a hint not a boolean) is left out with its reason; the rest is written", async () => {
    const bad = [
      { name: "no_schema" },
      { name: "schema_text", inputSchema: "object" },
      { name: "ann_bad", inputSchema: { type: "object" }, annotations: { readOnlyHint: "yes" } },
      { name: "desc_null", description: null, inputSchema: { type: "object" } },
      { name: "type_string", inputSchema: { type: "string" } },
    ];
    // before: the SDK's schema threw on the whole page, "stalwart: internal error: SdkError …", nothing written (outside audit 13, F5)
    const r = await init({ pages: [[{ name: "fine", inputSchema: schema }, ...bad]] });
    expect(r.err).not.toContain("internal error");
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("wrote 1 tool (");
    expect((parse(r.file!).tools as { name: string }[]).map((t) => t.name)).toEqual(["fine"]);
    expect(r.file).toContain('# not written: "no_schema" (the server\'s listing of it is not valid MCP: it has no `inputSchema`, which MCP requires of every tool)');
    expect(r.file).toContain('# not written: "schema_text" (the server\'s listing of it is not valid MCP: its `inputSchema` is not an object)');
    expect(r.file).toContain('# not written: "ann_bad" (the server\'s listing of it is not valid MCP: its annotation `readOnlyHint` is "yes", not true or false, so its class cannot be guessed)');
    expect(r.file).toContain('# not written: "desc_null" (the server\'s listing of it is not valid MCP: its `description` is not text)');
    expect(r.file).toMatch(/# not written: "type_string" \(its schema is not one a catalogue takes: .*object/);

    // with --json: the result as JSON on stdout, each tool left out with its reason
    const j = await init({ pages: [[{ name: "fine", inputSchema: schema }, ...bad]] }, "--json");
    expect(j.code, j.err).toBe(0);
    const result = JSON.parse(j.out) as { tools: number; left_out: { name: string; why: string }[] };
    expect(result.tools).toBe(1);
    expect(result.left_out.map((l) => l.name)).toEqual(bad.map((b) => b.name));
    expect(result.left_out[0]!.why).toBe("the server's listing of it is not valid MCP: it has no `inputSchema`, which MCP requires of every tool");
  });

  it("a listing init cannot read whole (more pages than it reads, a cursor that comes back) is an error naming why; nothing is written", async () => {
    const page = (n: number) => [{ name: `t${n}`, inputSchema: { type: "object" } }];
    // before: 1000 of 1001 pages written, exit 0, not a word (outside audit 13, F7)
    const many = await init({ pages: Array.from({ length: 1001 }, (_, n) => page(n)) });
    expect(many.code).toBe(1);
    expect(many.err).toContain("stalwart: UpstreamUnreadable: the tool server's answer to `tools/list` could not be read: it lists more than 1000 pages of tools (1000 tools so far), and at most 1000 are read");
    expect(many.file).toBeUndefined();
    // before: the same page followed 1000 times, its tool named 999 times as "listed twice"
    const loop = await init({ pages: [page(0)], loop: true }, "--json");
    expect(loop.code).toBe(1);
    expect(JSON.parse(loop.out)).toMatchObject({ error: { code: "UpstreamUnreadable", message: 'the tool server\'s answer to `tools/list` could not be read: after page 2 it gave a cursor it gave before ("again"), so its list of tools never ends' } });
    expect(loop.file).toBeUndefined();
    // a listing of exactly 1000 pages is read whole
    const edge = await init({ pages: Array.from({ length: 1000 }, (_, n) => page(n)) });
    expect(edge.code, edge.err).toBe(0);
    expect(edge.out).toContain("wrote 1000 tools");
  });

  it("a server with more than one catalogue holds (10,000 tools of 8 arguments) is said at once, as such, not as a bug", async () => {
    const args = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`arg${i}`, { type: "string" }]));
    const tools = Array.from({ length: 10_000 }, (_, n) => ({ name: `tool${n}`, inputSchema: { type: "object", properties: args } }));
    const started = Date.now();
    // before: ~30 s linting each tool, then init's own file failed its lint, "this is a bug in `stalwart gateway init`" (outside audit 13, F8)
    const r = await init({ pages: [tools] });
    expect(r.code).toBe(1);
    expect(r.err).toContain("stalwart: InputError: the tool server's 10000 tools, with their schemas, are more than one catalogue holds (200000 values): nothing is written");
    expect(r.err).toContain("hint: write a catalogue by hand with only the tools this agent needs");
    expect(r.err).not.toContain("bug");
    expect(r.file).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
