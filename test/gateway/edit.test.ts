/**
 * The person changes the call in the approval form (issue 11, item 4: an elicited answer is
 * `reply`): the edited value is checked again from step 1 with origin `reply`, never run on the
 * old approval. With the SDK's Client elicitation handler, in both protocol eras, in front of the
 * real filesystem server (the disk says what ran).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startGateway, type RunningGateway } from "../../cli/gateway/index.js";
import { allowedDir, filesystemCatalogue, FILESYSTEM, home, text } from "./helpers.js";

let dir: string;
let gw: RunningGateway;
beforeAll(async () => {
  dir = allowedDir();
  gw = await startGateway({ catalogue: filesystemCatalogue(dir, join(dir, "..", `agent-edit-${Date.now()}.yaml`)), upstream: { command: process.execPath, args: [FILESYSTEM, dir] }, listen: { host: "127.0.0.1", port: 0 }, home: home(), log: () => undefined });
}, 60_000);
afterAll(() => gw?.close());

type Form = { properties: Record<string, { type: string; default?: unknown }> };

/** A host whose person answers each question with `answers[i]` (the form's fields, by key). */
async function host(modern: boolean, answers: Record<string, unknown>[]) {
  const asked: { message: string; form: Form }[] = [];
  const client = new Client({ name: "edit-host", version: "1.0.0" }, { capabilities: { elicitation: {} }, ...(modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}) });
  client.setRequestHandler("elicitation/create", async (req) => {
    const p = req.params as { message: string; requestedSchema: Form };
    asked.push({ message: p.message, form: p.requestedSchema });
    const content = answers[asked.length - 1];
    return content ? { action: "accept", content: content as Record<string, string | number | boolean> } : { action: "decline" };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.url!)));
  return { client, asked };
}

for (const modern of [false, true]) {
  describe(`${modern ? "2026-07-28 (input_required)" : "2025-era (pushed elicitation)"}: the person edits an argument`, { timeout: 60_000 }, () => {
    it("the form offers each argument prefilled; an edited value is `reply`, checked again, and the call runs with it, not the old value", async () => {
      const file = join(dir, `edited-${modern}.txt`);
      const { client, asked } = await host(modern, [{ approve: true, "arg:content": "the person's words" }, { approve: true }]);
      const r = await client.callTool({ name: "write_file", arguments: { path: file, content: "the model's words" } });
      expect(r.isError, text(r)).toBeFalsy();
      expect(readFileSync(file, "utf8")).toBe("the person's words");
      // first question: the call as the model made it, each argument a prefilled field
      expect(asked[0]!.form.properties["arg:path"]).toMatchObject({ type: "string", default: file });
      expect(asked[0]!.form.properties["arg:content"]).toMatchObject({ type: "string", default: "the model's words" });
      // the edited call was checked from step 1: `path` is still the model's, so it is asked again,
      // and the question says the content is the person's reply
      expect(asked).toHaveLength(2);
      expect(asked[1]!.message).toContain(`content = "the person's words"   (your reply)`);
      expect(asked[1]!.message).toContain("(written by the model)");
      expect(asked[1]!.form.properties["arg:content"]).toMatchObject({ default: "the person's words" });
      await client.close();
    });

    it("an edit the check refuses is refused, and neither the old nor the new call runs", async () => {
      const file = join(dir, `not-${modern}.txt`);
      const outside = join(dir, "..", `edited-outside-${modern}-${Date.now()}.txt`);
      const { client, asked } = await host(modern, [{ approve: true, "arg:path": outside }]);
      const r = await client.callTool({ name: "write_file", arguments: { path: file, content: "x" } });
      expect(r.isError).toBe(true);
      expect(text(r)).toContain("stalwart refused write_file");
      expect(r._meta?.["stalwart-agents/check"]).toMatchObject({ decision: "refuse", reasons: ["argument_schema"], detail: { pointer: "/path" } });
      expect(asked).toHaveLength(1);
      expect(existsSync(file)).toBe(false);
      expect(existsSync(outside)).toBe(false);
      await client.close();
    });

    it("an answer whose edit is not of the field's type approves nothing: neither the old call nor any other runs", async () => {
      for (const [i, edit] of [{ "arg:content": false }, { "arg:path": 123 }, { "arg:content": ["a"] }].entries()) {
        const file = join(dir, `misfit-${modern}-${i}.txt`);
        const { client, asked } = await host(modern, [{ approve: true, ...edit }]);
        const r = await client.callTool({ name: "write_file", arguments: { path: file, content: "the model's words" } });
        expect(r.isError, JSON.stringify(edit)).toBe(true);
        expect(text(r)).toMatch(/^write_file was not approved: the answer to `arg:(content|path)` is not a string, as the form asks, and the call did not run\.$/);
        expect(asked).toHaveLength(1);
        expect(existsSync(file), JSON.stringify(edit)).toBe(false);
        await client.close();
      }
    });
  });
}

describe("2026-07-28: a client alters the person's edit it carries in requestState", { timeout: 60_000 }, () => {
  it("the altered arguments are not the person's reply: no question or check calls them so, and they never run", async () => {
    const file = join(dir, "carried.txt");
    const other = join(dir, "carried-2.txt");
    const client = new Client({ name: "manual-host", version: "1.0.0" }, { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: "2026-07-28" } }, inputRequired: { autoFulfill: false } });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.url!)));
    type Asked = { resultType?: string; requestState: string; inputRequests: Record<string, { params: { message: string } }> };
    const params = { name: "write_file", arguments: { path: file, content: "the model's words" } };
    const answer = (content: Record<string, unknown>, requestState: string) => client.callTool({ ...params, inputResponses: { approve: { action: "accept", content: { approve: true, ...content } } }, requestState } as never, { allowInputRequired: true }) as unknown as Promise<Asked>;
    const first = (await client.callTool(params, { allowInputRequired: true })) as unknown as Asked;
    const second = await answer({ "arg:content": "the person's words" }, first.requestState);
    expect(second.resultType).toBe("input_required");
    // the client swaps its own content into the carried edit, and changes the path in the form
    const i = second.requestState.indexOf("~");
    const rest = second.requestState.slice(i + 1).split("~");
    const carried = JSON.parse(Buffer.from(rest[0]!, "base64url").toString("utf8")) as Record<string, unknown>;
    const altered = `${second.requestState.slice(0, i)}~${[Buffer.from(JSON.stringify({ ...carried, content: "the client's words" })).toString("base64url"), ...rest.slice(1)].join("~")}`;
    const third = await answer({ "arg:path": other }, altered);
    expect(third.inputRequests?.approve?.params.message ?? "").not.toContain(`"the client's words"   (your reply)`);
    if (third.resultType === "input_required") {
      // approving what is asked now runs nothing the client made up
      const fourth = (await answer({}, third.requestState)) as unknown as { isError?: boolean };
      expect(fourth.isError, JSON.stringify(fourth)).toBeFalsy();
    }
    for (const f of [file, other]) if (existsSync(f)) expect(readFileSync(f, "utf8")).not.toBe("the client's words");
    expect(gw.entries().some((e) => JSON.stringify(e).includes("the client's words") && JSON.stringify(e).includes("reply"))).toBe(false);
    await client.close();
  });
});

// Outside audit 15, F2: a state cut back to its token read as the bare token, an answer to the
// call as the client sent it: it asked again and used up the person's real answer, which then
// came back "already used".
describe("2026-07-28: the state of an edited call, sent back with its `~…` tail cut", { timeout: 60_000 }, () => {
  it("is refused as unreadable and decides nothing: the whole state afterwards runs the edited call", async () => {
    const file = join(dir, "cut-tail.txt");
    const client = new Client({ name: "manual-host", version: "1.0.0" }, { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: "2026-07-28" } }, inputRequired: { autoFulfill: false } });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.url!)));
    type Answered = { resultType?: string; isError?: boolean; requestState: string; _meta?: Record<string, unknown> };
    const params = { name: "write_file", arguments: { path: file, content: "the model's words" } };
    const answer = (content: Record<string, unknown>, requestState: string) => client.callTool({ ...params, inputResponses: { approve: { action: "accept", content: { approve: true, ...content } } }, requestState } as never, { allowInputRequired: true }) as unknown as Promise<Answered>;
    const first = (await client.callTool(params, { allowInputRequired: true })) as unknown as Answered;
    const edits = { "arg:content": "the person's words" };
    const second = await answer(edits, first.requestState);
    expect(second.resultType).toBe("input_required");
    expect(second.requestState).toContain("~");
    const cut = await answer(edits, second.requestState.split("~")[0]!);
    expect(cut.resultType ?? "complete", JSON.stringify(cut)).toBe("complete");
    expect(cut.isError).toBe(true);
    expect(text(cut as never)).toContain("the requestState is not one this gateway gave (it was given with a `~…` tail, and came back without it)");
    expect(cut._meta?.["stalwart-agents/check"]).toMatchObject({ approved: false, answer: "unreadable" });
    expect(existsSync(file)).toBe(false);
    // the person's answer is still theirs to give
    const whole = await answer(edits, second.requestState);
    expect(whole.isError, JSON.stringify(whole)).toBeFalsy();
    expect(readFileSync(file, "utf8")).toBe("the person's words");
    await client.close();
  });
});
