/**
 * `stalwart gateway init -- CMD`: a starter catalogue from the server's tools and annotations,
 * which `stalwart check` passes.
 */
import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { starterCatalogue } from "../../cli/gateway/init.js";
import { loadCatalogue } from "../../worker/portable/engine/index.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";
import { allowedDir, downstreamClient, EVERYTHING, FILESYSTEM, home, MAIN, overHttp, ROOT } from "./helpers.js";
import { startGateway } from "../../cli/gateway/index.js";
import { Client } from "../../cli/sdk/index.js";
import { licensedHome } from "../helpers/licensed-home.js";

const cli = (...args: string[]) => execFileSync(process.execPath, [MAIN, ...args], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

describe("stalwart gateway init", () => {
  it("writes the filesystem server's tools with classes from their annotations, and stalwart check passes it", () => {
    const dir = allowedDir();
    const out = join(dir, "agent.yaml");
    expect(cli("gateway", "init", "-o", out, "--", process.execPath, FILESYSTEM, dir)).toContain("wrote 14 tools");
    expect(cli("check", out)).toContain("ok (14 tools)");
    const text = readFileSync(out, "utf8");
    const tools = new Map((parse(text).tools as { name: string }[]).map((t) => [t.name, t as Record<string, unknown>]));
    expect(tools.get("read_text_file")).not.toHaveProperty("writes");
    expect(tools.get("write_file")).toMatchObject({ writes: true, irreversible: true, args: { additionalProperties: false, required: ["path", "content"] } });
    expect(tools.get("create_directory")).toMatchObject({ writes: true });
    expect(tools.get("create_directory")).not.toHaveProperty("irreversible");
    expect(tools.get("read_text_file")).toHaveProperty("returns.properties.content");
    expect(text).toContain("# review: destructiveHint → irreversible");
    // file paths are looked up, not destinations: `README.md` would read as a host (.md is a TLD)
    expect(tools.get("read_text_file")).toMatchObject({ lookup_args: ["path"] });
    expect(tools.get("move_file")).toMatchObject({ lookup_args: ["source", "destination"] });
    expect(tools.get("write_file")).toMatchObject({ lookup_args: ["path"] });
    expect(tools.get("write_file")!.lookup_args).not.toContain("content");
    expect(text).toContain("# review: `path` looks like a file path → `lookup_args`");
    // every tool pinned to its definition as the server gives it now
    for (const t of tools.values()) expect(t.pin).toMatch(/^v2:sha256:[0-9a-f]{64}$/);
    // an existing file is kept unless --force
    expect(() => cli("gateway", "init", "-o", out, "--", process.execPath, FILESYSTEM, dir)).toThrow();
    // a folder that does not exist is the person's input, said so (it was an internal error with a stack)
    const missing = join(dir, "no-such-folder", "agent.yaml");
    const err = (() => {
      try {
        cli("gateway", "init", "-o", missing, "--", process.execPath, FILESYSTEM, dir);
      } catch (e) {
        return String((e as { stderr?: string }).stderr);
      }
      return "";
    })();
    expect(err).toContain(`stalwart: InputError: cannot write \`${missing}\`: ENOENT`);
    expect(err).not.toContain("internal error");
  }, 60_000);

  it("declares the client capabilities the serving gateway declares: a server that offers some tools only to such clients has them all written", () => {
    const dir = allowedDir();
    const out = join(dir, `agent-init-everything-${Date.now()}.yaml`);
    // server-everything lists these three only to a client that declares roots, elicitation, sampling
    expect(cli("gateway", "init", "-o", out, "--", process.execPath, EVERYTHING)).toMatch(/wrote \d+ tools/);
    const names = (parse(readFileSync(out, "utf8")).tools as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["get-roots-list", "trigger-elicitation-request", "trigger-sampling-request"]));
    expect(cli("check", out)).toContain(`ok (${names.length} tools)`);
  }, 60_000);

  it("its catalogue lets the filesystem server's tools read and write files named like hosts (README.md, main.py, notes.md)", async () => {
    const dir = allowedDir();
    const out = join(dir, "..", `agent-init-paths-${Date.now()}.yaml`);
    cli("gateway", "init", "-o", out, "--", process.execPath, FILESYSTEM, dir);
    for (const f of ["README.md", "main.py", "run.sh"]) writeFileSync(join(dir, f), `hi from ${f}`);
    const gw = await startGateway({ catalogue: out, upstream: { command: process.execPath, args: [FILESYSTEM, dir] }, listen: { host: "127.0.0.1", port: 0 }, home: home(), log: () => undefined });
    const d = await overHttp(downstreamClient({ answer: "accept" }), gw.url!);
    try {
      for (const f of ["README.md", "main.py", "run.sh"]) {
        const r = await d.client.callTool({ name: "read_text_file", arguments: { path: join(dir, f) } });
        expect(r.isError ?? false, f).toBe(false);
        expect(JSON.stringify(r.content)).toContain(`hi from ${f}`);
      }
      // an answer over the SDK's 10 MB default (the file's text, twice): read through, not a closed connection
      writeFileSync(join(dir, "big.txt"), "L".repeat(6_000_000));
      const big = await d.client.callTool({ name: "read_text_file", arguments: { path: join(dir, "big.txt") } });
      expect(big.isError ?? false, JSON.stringify(big.content).slice(0, 300)).toBe(false);
      expect(JSON.stringify(big.content).length).toBeGreaterThan(6_000_000);
      // a write is asked (the downstream approves), not refused as a destination
      const w = await d.client.callTool({ name: "write_file", arguments: { path: join(dir, "notes.md"), content: "x" } });
      expect(w.isError ?? false, JSON.stringify(w.content)).toBe(false);
      expect(readFileSync(join(dir, "notes.md"), "utf8")).toBe("x");
    } finally {
      await d.client.close();
      await gw.close();
    }
  }, 60_000);

  it("maps hints: openWorld reads are reads_outside, no hint at all is a write, and every guess is marked", () => {
    const { text, guesses } = starterCatalogue(
      [
        { name: "fetch_page", annotations: { readOnlyHint: true, openWorldHint: true }, inputSchema: { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { url: { type: "string" } } } },
        { name: "mystery", inputSchema: { type: "object", properties: {} } },
        { name: "post", inputSchema: { type: "object" }, annotations: { readOnlyHint: false, openWorldHint: true } },
      ],
      "test",
    );
    const c = loadCatalogue(text, { file: "starter.yaml", schemaCompiler: ajvCompiler });
    expect(c.tools.get("fetch_page")!.readsOutside).toBe(true);
    expect(c.tools.get("fetch_page")!.writes).toBe(false);
    expect(c.tools.get("mystery")!.writes).toBe(true);
    expect(c.tools.get("post")!.writes).toBe(true);
    expect(text).toContain("declare `sends_out:");
    expect(text).not.toContain("$schema");
    expect(guesses).toBeGreaterThanOrEqual(6);
  });

  it("readOnlyHint and destructiveHint together contradict: written as the more dangerous, an irreversible write, and said so", () => {
    const { text } = starterCatalogue(
      [{ name: "delete_repo", description: "Deletes the whole repository, irreversibly.", inputSchema: { type: "object", properties: { repo: { type: "string" } } }, annotations: { readOnlyHint: true, destructiveHint: true } }],
      "lying",
    );
    // before: a plain read, which the gateway ran without asking (outside audit 13, F6)
    const tool = loadCatalogue(text, { file: "starter.yaml", schemaCompiler: ajvCompiler }).tools.get("delete_repo")!;
    expect(tool.writes).toBe(true);
    expect(tool.irreversible).toBe(true);
    expect(text).toContain("# review: the hints contradict: readOnlyHint and destructiveHint are both true → taken as the more dangerous");
    expect(text).not.toContain("readOnlyHint → a read");
  });

  it("a name a catalogue cannot hold (MCP allows `.` and `/`), a name listed twice, a server name with a line break: the rest is written, the file passes", () => {
    const schema = { type: "object", properties: { text: { type: "string" } } };
    const { text, skipped } = starterCatalogue(
      [
        { name: "notes.search", description: "dotted, as MCP allows", inputSchema: schema, annotations: { readOnlyHint: true } },
        { name: "save", description: "listed once", inputSchema: schema },
        { name: "note", description: "first\nsecond line", inputSchema: schema },
        { name: "save", description: "listed again", inputSchema: schema },
        { name: "read", description: "a carriage\rreturn", inputSchema: schema, annotations: { readOnlyHint: true } },
      ],
      "notes-server\nsettings: {language: pt-BR} 1.0",
    );
    // before: the header's line break made the file malformed YAML, and a dotted name failed the lint — init wrote nothing
    const c = loadCatalogue(text, { file: "starter.yaml", schemaCompiler: ajvCompiler });
    expect([...c.tools.keys()].sort()).toEqual(["note", "read"]);
    expect(c.settings.language).toBe("en");
    expect(skipped).toEqual(["notes.search", "save"]);
    expect(text).toContain('# not written: "notes.search"');
    // a name listed twice is left out whole, as the docs say (the first copy was written: outside audit 13, F9)
    expect(text).toContain('# not written: "save" (the server lists this name 2 times, so which of them it runs is unknown)');
    expect(text.match(/# not written: "save"/g)).toHaveLength(1);
    expect(parse(text).tools.filter((t: { name: string }) => t.name === "save")).toHaveLength(0);
  });

  it("a name longer than a catalogue holds (128 characters): left out, its comment cut; 128 is written and its calls are checked", async () => {
    const schema = { type: "object", properties: { text: { type: "string" } } };
    const long = `find_${"x".repeat(100_000)}`, edge = `e${"x".repeat(127)}`;
    const { text, skipped } = starterCatalogue([{ name: long, inputSchema: schema, annotations: { readOnlyHint: true } }, { name: edge, inputSchema: schema, annotations: { readOnlyHint: true } }], "long-names");
    const c = loadCatalogue(text, { file: "starter.yaml", schemaCompiler: ajvCompiler });
    expect([...c.tools.keys()]).toEqual([edge]);
    expect(skipped).toEqual([long]);
    expect(text).toContain(`# not written: "find_${"x".repeat(115)}"… (100005 characters) (a catalogue's tool name is letters, digits, \`_\` and \`-\`, at most 128 characters)`);
    expect(Math.max(...text.split("\n").map((l) => l.length))).toBeLessThan(400);
    // the longest name a catalogue takes is checked through the home's store, whose keys hold it (`seen:<tool>`, at most 256)
    const file = join(allowedDir(), "agent.yaml");
    writeFileSync(file, text);
    const s = new Client({ home: licensedHome("init-long") }).session("long", { catalogue: file });
    expect((await s.checkToolCall(edge, { text: "a" }, { origins: { text: "context" } })).decision).toBe("allow");
  });

  it("a schema that names its arguments only through oneOf / allOf / $ref is not closed at the top: its calls pass step 3", async () => {
    const a = { type: "object", properties: { a: { type: "string" } }, required: ["a"] };
    const { text } = starterCatalogue(
      [
        { name: "pick", inputSchema: { type: "object", oneOf: [a, { type: "object", properties: { b: { type: "number" } }, required: ["b"] }] } },
        { name: "both", inputSchema: { type: "object", properties: { a: { type: "string" } }, allOf: [{ properties: { c: { type: "string" } } }] } },
        { name: "named", inputSchema: { type: "object", $ref: "#/definitions/x", definitions: { x: a } } },
        { name: "plain", inputSchema: a },
      ],
      "combinators",
    );
    const s = new Client({ home: licensedHome("init-comb") }).session("b", { catalogue: text });
    await s.read("go");
    // before: `additionalProperties: false` beside no top-level `properties` refused every call at step 3
    for (const [tool, args] of [["pick", { a: "x" }], ["pick", { b: 1 }], ["both", { a: "x", c: "y" }], ["named", { a: "x" }]] as const) {
      const r = await s.checkToolCall(tool, args);
      expect(r.reasons, `${tool} ${JSON.stringify(args)}`).not.toContain("argument_schema");
    }
    // a schema that lists all its arguments itself is still closed: anything else is refused
    expect((await s.checkToolCall("plain", { a: "x", z: 1 })).reasons).toContain("argument_schema");
    expect(text).toContain("# review: the input schema names its arguments through");
  });

  it("a tool whose schema a catalogue cannot take (a keyword outside draft-07, `type` not object) is left out and said so; the rest is written", () => {
    const { text, skipped } = starterCatalogue(
      [
        { name: "search", inputSchema: { type: "object", properties: { q: { type: "string", example: "shoes" } } }, annotations: { readOnlyHint: true } },
        { name: "maybe", inputSchema: { type: ["object", "null"], properties: {} } },
        { name: "anchored", inputSchema: { type: "object", properties: { a: { $anchor: "x", type: "string" } } } },
        { name: "save", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
      ],
      "mixed",
    );
    // before: one such tool failed the whole file ("a bug in stalwart gateway init"), nothing written
    const c = loadCatalogue(text, { file: "starter.yaml", schemaCompiler: ajvCompiler });
    expect([...c.tools.keys()]).toEqual(["save"]);
    expect(skipped).toEqual(["search", "maybe", "anchored"]);
    expect(text).toContain('# not written: "search" (its schema is not one a catalogue takes: `args`: unknown schema keyword `example`)');
    expect(text).toMatch(/# not written: "maybe" \(its schema is not one a catalogue takes: .*type.*object/);
  });
});

