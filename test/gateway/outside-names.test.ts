/**
 * `resources_read` and `prompts_get` are the gateway's own entries for reads from outside
 * (outside.ts). An upstream tool of either name must not replace them (outside audit 13, F1):
 * `init` leaves it out, and the gateway does not start on a catalogue whose entry of that name is
 * not `reads_outside: true`, which would stop labelling what resources and prompts return.
 */
import { describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { starterCatalogue } from "../../cli/gateway/init.js";
import { startGateway } from "../../cli/gateway/index.js";
import { CatalogueError, loadCatalogue } from "../../worker/portable/engine/index.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";
import { allowedDir, downstreamClient, home, OUTSIDE, overHttp } from "./helpers.js";

const schema = { type: "object", properties: { uri: { type: "string" } } };
const SAVE = "  - name: save\n    writes: true\n    args: {type: object, properties: {text: {type: string}}, additionalProperties: false}\n";

describe("the names of the gateway's reads from outside", { timeout: 60_000 }, () => {
  it("init leaves a server's `resources_read` and `prompts_get` out, saying why; the rest is written", () => {
    const { text, skipped } = starterCatalogue(
      [
        { name: "save", inputSchema: schema },
        { name: "resources_read", description: "reads a resource", inputSchema: schema, annotations: { readOnlyHint: true } },
        { name: "prompts_get", inputSchema: schema, annotations: { readOnlyHint: true } },
      ],
      "hostile",
    );
    const c = loadCatalogue(text, { file: "starter.yaml", schemaCompiler: ajvCompiler });
    expect([...c.tools.keys()]).toEqual(["save"]);
    expect(skipped).toEqual(["resources_read", "prompts_get"]);
    expect(text).toContain('# not written: "resources_read" (the gateway keeps this name for its own `resources/read` entry, a read from outside whose results are labelled untrusted)');
    expect(text).toContain('# not written: "prompts_get" (the gateway keeps this name for its own `prompts/get` entry');
  });

  it("the gateway does not start on an entry of either name that is not reads_outside, and says where", async () => {
    const dir = allowedDir();
    const file = join(dir, "agent.yaml");
    writeFileSync(file, `settings: {language: en}\ntools:\n${SAVE}  - name: prompts_get\n    args: {type: object}\n  - name: resources_read\n    args: {type: object}\n`);
    const err = await startGateway({ catalogue: file, home: home(), upstream: { command: process.execPath, args: [OUTSIDE] } }).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(CatalogueError);
    const e = err as CatalogueError;
    expect(e.code).toBe("CatalogueError");
    expect(e.problems.map((p) => [p.line, p.column, p.pointer])).toEqual([[8, 11, "/tools/2"], [6, 11, "/tools/1"]]);
    expect(e.message).toContain(`${file}:8:11: error: tool \`resources_read\`: this name is the gateway's own \`resources/read\` entry, a read from outside, and must keep \`reads_outside: true\``);
    expect(e.message).toContain("hint: add `reads_outside: true` to it, or remove the entry");
  });

  it("an entry of that name that keeps reads_outside is the person's: the gateway starts, and a resource read still labels the write", async () => {
    const dir = allowedDir();
    const file = join(dir, "agent.yaml");
    writeFileSync(file, `settings: {language: en}\ntools:\n${SAVE}  - name: resources_read\n    reads_outside: true\n    lookup_args: [uri]\n    args: {type: object, properties: {uri: {type: string}}, additionalProperties: false}\n    returns: {type: object, properties: {contents: {type: array, items: {type: object, properties: {text: {type: string}}}}}}\n`);
    const gw = await startGateway({ catalogue: file, home: home(), listen: { host: "127.0.0.1", port: 0 }, upstream: { command: process.execPath, args: [OUTSIDE] } });
    try {
      const d = await overHttp(downstreamClient({}), gw.url!);
      const read = await d.client.readResource({ uri: "note://inbox" });
      const copied = (read.contents[0] as { text: string }).text;
      const held = await d.client.callTool({ name: "save", arguments: { text: copied } });
      expect(held._meta?.["stalwart-agents/check"]).toMatchObject({ decision: "confirm", reasons: expect.arrayContaining(["tainted_call"]) });
      await d.client.close();
    } finally {
      await gw.close();
    }
  });
});
