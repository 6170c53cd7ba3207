/**
 * Outside audit (person-in-the-loop) F1: the elicitation question showed a bidi override (U+202E)
 * and a zero-width space raw, while the approvals page and `stalwart approvals show` named them.
 * The same call must read the same whichever way the person approves it. In front of the real
 * filesystem server; the person declines, so nothing is written.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startGateway, type RunningGateway } from "../../cli/gateway/index.js";
import { visible } from "../../worker/portable/approvals/visible.js";
import { allowedDir, filesystemCatalogue, FILESYSTEM, home } from "./helpers.js";

let dir: string;
let gw: RunningGateway;
beforeAll(async () => {
  dir = allowedDir();
  gw = await startGateway({ catalogue: filesystemCatalogue(dir, join(dir, "..", `agent-visible-${Date.now()}.yaml`)), upstream: { command: process.execPath, args: [FILESYSTEM, dir] }, listen: { host: "127.0.0.1", port: 0 }, home: home(), log: () => undefined });
}, 60_000);
afterAll(() => gw?.close());

const unseen = /(?![\t\n])[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;

describe("the gateway's elicitation question", { timeout: 60_000 }, () => {
  it("names bidi overrides, zero-width and TAG characters as the page does; the form's field keeps the exact value", async () => {
    const asked: { message: string; requestedSchema: { properties: Record<string, { default?: unknown }> } }[] = [];
    const client = new Client({ name: "visible-host", version: "1.0.0" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler("elicitation/create", async (req) => {
      asked.push(req.params as never);
      return { action: "decline" };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.url!)));
    const file = join(dir, "note.txt");
    const content = `refund \u202E001 pay\u200B 100${[..."hi"].map((c) => String.fromCodePoint(0xe0000 + c.codePointAt(0)!)).join("")}`;
    const r = await client.callTool({ name: "write_file", arguments: { path: file, content } });
    expect(asked, JSON.stringify(r)).toHaveLength(1);
    const { message, requestedSchema: form } = asked[0]!;
    expect(unseen.test(message)).toBe(false);
    expect(message).toContain('content = "refund [U+202E]001 pay[U+200B] 100[2 TAG characters U+E0068–U+E0069 spelling "hi"]"');
    // the one function the page and `show` use
    expect(message).toContain(`content = ${visible(JSON.stringify(content))}`);
    expect(form.properties["arg:content"]).toMatchObject({ default: content });
    expect(existsSync(file)).toBe(false);
    await client.close();
  });
});
