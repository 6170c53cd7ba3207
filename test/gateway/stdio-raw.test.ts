/**
 * The gateway on stdio as JSON-RPC 2.0 asks, line by line: the real process, raw lines written to
 * its stdin. A line that is not JSON gets a Parse error (-32700, id null); a message that is not a
 * JSON-RPC request gets an Invalid Request (-32600, with its id when one can be read), so a client
 * is never left waiting. A second request with the id of one still running is answered Invalid
 * Request at once and never run: the first, a checked call, finishes once with its own answer.
 */
import { afterEach, describe, expect, it } from "vitest";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileApprovalStore } from "../../cli/approvals/store.js";
import { homeMac } from "../../cli/approvals/mac.js";
import { approvalStatus, decide } from "../../worker/portable/engine/index.js";
import { allowedDir, EVERYTHING, filesystemCatalogue, FILESYSTEM, home, MAIN, ROOT } from "./helpers.js";

interface Reply {
  jsonrpc: string;
  id: unknown;
  result?: { isError?: boolean; content?: { text?: string }[] };
  error?: { code: number; message: string };
}

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill();
});

/** The gateway as a host starts it, initialized with raw lines; `replies` are the lines it wrote back. */
async function rawGateway(args: string[], capabilities: Record<string, unknown> = {}) {
  const child = spawn(process.execPath, [MAIN, "gateway", "--quiet", ...args], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.resume();
  const replies = () => out.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as Reply);
  const write = (line: string) => child.stdin.write(line + "\n");
  const send = (m: unknown) => write(JSON.stringify(m));
  /** the replies once `n` have come */
  const wait = async (n: number): Promise<Reply[]> => {
    await expect.poll(() => replies().length, { timeout: 30_000 }).toBeGreaterThanOrEqual(n);
    return replies();
  };
  send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "raw", version: "1" } } });
  await wait(1);
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return { write, send, wait, replies };
}

/** The gateway in front of server-everything, its catalogue naming `echo` only. */
async function echoGateway() {
  const dir = allowedDir();
  const catalogue = join(dir, "agent.yaml");
  writeFileSync(catalogue, "settings: {language: en}\ntools:\n  - name: echo\n    args: {type: object, properties: {message: {type: string}}, additionalProperties: false}\n");
  return rawGateway(["--home", home(), "--catalogue", catalogue, "--", process.execPath, EVERYTHING, "stdio"]);
}

describe("gateway on stdio, raw JSON-RPC lines", () => {
  it("params a method cannot take are Invalid params (-32602) naming the field in one line, not an internal error or zod's issue list; then it keeps serving", async () => {
    const g = await echoGateway();
    const bad: [string, unknown, string][] = [
      ["resources/read", {}, "`params.uri`: expected string, received undefined"],
      ["resources/read", { uri: 5 }, "`params.uri`: expected string, received number"],
      ["logging/setLevel", { level: "loud" }, "`params.level`"],
      ["prompts/get", { name: 5 }, "`params.name`"],
      ["tools/list", { cursor: 5 }, "`params.cursor`"],
      ["resources/subscribe", {}, "`params.uri`"],
      ["completion/complete", {}, "`params.argument`"],
      // tools/call's params are checked by the SDK's own tools/call wrapper, not before the handler
      ["tools/call", { name: 5 }, "`params.name`: expected string, received number"],
      ["tools/call", { name: "echo", arguments: "x" }, "`params.arguments`: expected record, received string"],
    ];
    bad.forEach(([method, params], i) => g.send({ jsonrpc: "2.0", id: 100 + i, method, params }));
    g.send({ jsonrpc: "2.0", id: 99, method: "ping" });
    // server-everything logs and notifies meanwhile: only the answers are read
    const answers = async () => {
      await expect.poll(() => g.replies().filter((r) => typeof r.id === "number" && (r.id as number) >= 99).length, { timeout: 30_000 }).toBe(bad.length + 1);
      return new Map(g.replies().filter((r) => typeof r.id === "number").map((r) => [r.id as number, r]));
    };
    const got = await answers();
    bad.forEach(([method, , field], i) => {
      const r = got.get(100 + i)!;
      expect(r.error?.code, method).toBe(-32602);
      expect(r.error?.message, method).toContain(`invalid params for ${method}: `);
      expect(r.error?.message, method).toContain(field);
      expect(r.error?.message, method).not.toContain("\n");
    });
    expect(got.get(99)).toEqual({ jsonrpc: "2.0", id: 99, result: {} });
  }, 60_000);

  it("a tools/call whose _meta nests deeper than the SDK can write is Invalid params, never checked or recorded; a shallow one is forwarded", async () => {
    const g = await echoGateway();
    const nested = (n: number) => "{\"a\":".repeat(n) + "1" + "}".repeat(n);
    // written as text: JSON.stringify itself would overflow on 5,000 levels here
    g.write(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"deep"},"_meta":{"x":${nested(5000)}}}}`);
    g.write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"at the limit"},"_meta":{"x":${nested(62)}}}}`);
    await expect.poll(() => g.replies().filter((r) => r.id === 1 || r.id === 2).length, { timeout: 30_000 }).toBe(2);
    const deep = g.replies().find((r) => r.id === 1)!;
    expect(deep.error?.code).toBe(-32602);
    expect(deep.error?.message).toBe("invalid params for tools/call: `_meta` is nested more than 64 levels deep");
    expect(g.replies().find((r) => r.id === 2)?.result?.content?.[0]?.text).toBe("Echo: at the limit");
    // a refused call says its step: 2, after the allowed call (0) and its report (1); the deep request left no entry
    g.send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo", arguments: { message: "x", extra: 1 } } });
    await expect.poll(() => g.replies().some((r) => r.id === 3), { timeout: 30_000 }).toBe(true);
    const refused = g.replies().find((r) => r.id === 3)! as Reply & { result?: { _meta?: Record<string, { step?: number; decision?: string }> } };
    expect(refused.result?._meta?.["stalwart-agents/check"]).toMatchObject({ decision: "refuse", step: 2 });
  }, 60_000);

  it("a request whose `_meta` holds a key named `__proto__` (which the SDK's parse would drop) is Invalid params, never checked; one nested deeper is forwarded (outside audit 22, F4)", async () => {
    const g = await echoGateway();
    g.write(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"top"},"_meta":{"__proto__":{"k":"v"},"vendor/trace":"t-1"}}}`);
    g.write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"nested"},"_meta":{"vendor/x":{"__proto__":2}}}}`);
    await expect.poll(() => g.replies().filter((r) => r.id === 1 || r.id === 2).length, { timeout: 30_000 }).toBe(2);
    const top = g.replies().find((r) => r.id === 1)!;
    expect(top.error).toEqual({ code: -32602, message: "invalid params for tools/call: `params._meta` holds a key named `__proto__`, which the gateway cannot pass on as it came" });
    expect(g.replies().find((r) => r.id === 2)?.result?.content?.[0]?.text).toBe("Echo: nested");
    // the refused request left no entry: the next refusal is step 2, after the nested call (0) and its report (1)
    g.send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo", arguments: { message: "x", extra: 1 } } });
    await expect.poll(() => g.replies().some((r) => r.id === 3), { timeout: 30_000 }).toBe(true);
    const refused = g.replies().find((r) => r.id === 3)! as Reply & { result?: { _meta?: Record<string, { step?: number; decision?: string }> } };
    expect(refused.result?._meta?.["stalwart-agents/check"]).toMatchObject({ decision: "refuse", step: 2 });
  }, 60_000);

  it("an answer to the gateway's question the SDK cannot read (an unknown action, an error) is 'not approved' with the decision in _meta: the file is not written", async () => {
    const dir = allowedDir();
    const g = await rawGateway(["--home", home(), "--catalogue", filesystemCatalogue(dir, join(dir, "..", `agent-raw-answer-${Date.now()}.yaml`)), "--", process.execPath, FILESYSTEM, dir], { elicitation: { form: {} } });
    const answers: [number, Record<string, unknown>][] = [
      [1, { result: { action: "weird" } }],
      [2, { error: { code: -1, message: "nope" } }],
    ];
    for (const [id, answer] of answers) {
      const file = join(dir, `unread-${id}.txt`);
      g.send({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "write_file", arguments: { path: file, content: "hi" } } });
      const asking = () => (g.replies() as unknown as { id?: unknown; method?: string }[]).filter((m) => m.method === "elicitation/create");
      await expect.poll(() => asking().length, { timeout: 30_000 }).toBe(id);
      g.send({ jsonrpc: "2.0", id: asking()[id - 1]!.id, ...answer });
      await expect.poll(() => g.replies().some((r) => r.id === id), { timeout: 30_000 }).toBe(true);
      const r = g.replies().find((x) => x.id === id)! as Reply & { result?: { _meta?: Record<string, unknown> } };
      expect(r.result?.isError).toBe(true);
      expect(r.result?.content?.[0]?.text).toMatch(/^write_file was not approved: the answer to the question could not be read \(.+\), and the call did not run\.$/);
      expect(r.result?._meta?.["stalwart-agents/check"]).toEqual({ decision: "confirm", reasons: [], approved: false, answer: "unreadable" });
      expect(() => readFileSync(file)).toThrow();
    }
  }, 60_000);

  it("an undeclared `__proto__` argument is refused argument_schema, as any undeclared argument is (the SDK's parse used to drop it, and the call ran)", async () => {
    const g = await echoGateway();
    g.write(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi","__proto__":{"x":1}}}}`);
    g.write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"__proto__":{"message":"inherited"}}}}`);
    await expect.poll(() => g.replies().filter((r) => r.id === 1 || r.id === 2).length, { timeout: 30_000 }).toBe(2);
    for (const id of [1, 2]) {
      const r = g.replies().find((x) => x.id === id)! as Reply & { result?: { _meta?: Record<string, { decision?: string; reasons?: string[] }> } };
      expect(r.result?.isError, `id ${id}`).toBe(true);
      expect(r.result?._meta?.["stalwart-agents/check"], `id ${id}`).toMatchObject({ decision: "refuse", reasons: ["argument_schema"] });
    }
  }, 60_000);

  it("a tools/call asking to run as a task (which the gateway does not offer) runs as a plain call, and its result comes back", async () => {
    // MCP 2025-11-25, tasks: a receiver that does not declare tasks for a request type processes
    // it normally, ignoring `task`. Forwarded, `task` made the upstream's answer unreadable to the
    // gateway: the call ran, and the client was told the tool server did not answer.
    const g = await echoGateway();
    g.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { message: "as a task" }, task: { ttl: 60_000 } } });
    await expect.poll(() => g.replies().some((r) => r.id === 1), { timeout: 30_000 }).toBe(true);
    const r = g.replies().find((x) => x.id === 1)!;
    expect(r.error).toBeUndefined();
    expect(r.result?.isError).not.toBe(true);
    expect(r.result?.content?.[0]?.text).toBe("Echo: as a task");
  }, 60_000);

  it("a line that is not JSON gets a Parse error; a malformed request an Invalid Request, with its id when readable; a request whose `_meta` is wrong Invalid params; then it keeps serving", async () => {
    const dir = allowedDir();
    const g = await rawGateway(["--home", home(), "--catalogue", filesystemCatalogue(dir, join(dir, "..", `agent-raw-${Date.now()}.yaml`)), "--", process.execPath, FILESYSTEM, dir]);
    const bad: [string, unknown, number][] = [
      ["{not json", null, -32700],
      ['{"jsonrpc":"2.0","id":7,"method":5}', 7, -32600],
      ['{"jsonrpc":"1.0","id":"x","method":"ping"}', "x", -32600],
      ['{"jsonrpc":"2.0","id":{"no":"t an id"},"method":"ping"}', null, -32600],
      ['{"foo":"boo"}', null, -32600],
      ["[]", null, -32600],
      ['[{"jsonrpc":"2.0","id":9,"method":"ping"}]', null, -32600],
      ["42", null, -32600],
      // a response's id is one of the gateway's own: not echoed
      ['{"jsonrpc":"2.0","id":3,"result":"not an object"}', null, -32600],
      // an id that is not an integer is the request's own mistake, whatever its params hold
      ['{"jsonrpc":"2.0","id":1.5,"method":"ping","params":{"_meta":{}}}', 1.5, -32600],
      // a request right in every JSON-RPC member, with MCP's `_meta` wrong: its params are invalid
      ['{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"read_file","_meta":5}}', 10, -32602],
      ['{"jsonrpc":"2.0","id":"m","method":"tools/list","params":{"_meta":{"progressToken":{}}}}', "m", -32602],
    ];
    for (const [line] of bad) g.write(line);
    g.send({ jsonrpc: "2.0", id: 8, method: "ping" });
    const replies = (await g.wait(1 + bad.length + 1)).slice(1);
    expect(replies.map((r) => [r.id, r.error?.code])).toEqual([...bad.map(([, id, code]) => [id, code]), [8, undefined]]);
    for (const r of replies.slice(0, -1)) expect(r).toMatchObject({ jsonrpc: "2.0", error: { message: expect.any(String) } });
    expect(replies.at(-1)).toEqual({ jsonrpc: "2.0", id: 8, result: {} });
    // each says its own mistake: only a batch is told about batches
    expect(replies[6]!.error!.message).toContain("MCP does not take batches");
    expect(replies[1]!.error!.message).not.toContain("batch");
    expect(replies[1]!.error!.message).toContain("a string `method`");
    expect(replies[10]!.error!.message).toBe("invalid params for tools/call: `params._meta` is not what MCP takes there (an object, its `progressToken` if any a string or number)");
    expect(replies[11]!.error!.message).toContain("invalid params for tools/list: `params._meta`");
  }, 60_000);

  it("a duplicate id while a checked call waits for a person: the duplicate is refused at once and never runs; the first runs once and gets its own answer", async () => {
    const dir = allowedDir();
    const h = home();
    const g = await rawGateway(["--home", h, "--approval-wait", "60", "--catalogue", filesystemCatalogue(dir, join(dir, "..", `agent-dup-${Date.now()}.yaml`)), "--", process.execPath, FILESYSTEM, dir]);
    const file = join(dir, "dup.txt");
    const write = (content: string) => g.send({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "write_file", arguments: { path: file, content } } });
    write("first");
    const store = new FileApprovalStore(h);
    const pending = () => store.list().filter((a) => a.record.args.path === file);
    await expect.poll(() => pending().length, { timeout: 30_000 }).toBe(1);
    write("second");
    const [, dup] = await g.wait(2);
    expect(dup).toMatchObject({ jsonrpc: "2.0", id: 5, error: { code: -32600 } });
    expect(dup!.error!.message).toContain("5");
    // the duplicate was not checked: no second confirmation to decide
    expect(pending()).toHaveLength(1);
    const id = pending()[0]!.record.id;
    expect(pending()[0]!.record.args.content).toBe("first");
    await decide(store, homeMac(h), id, { decision: "approve", by: "test", at: Date.now() });
    const [, , answer] = await g.wait(3);
    expect(answer).toMatchObject({ jsonrpc: "2.0", id: 5, result: {} });
    expect(answer!.result!.isError).toBeFalsy();
    expect(readFileSync(file, "utf8")).toBe("first");
    expect(approvalStatus(store.get(id)!, Date.now())).toBe("used");
    // answered, the id is free again
    g.send({ jsonrpc: "2.0", id: 5, method: "ping" });
    expect((await g.wait(4))[3]).toEqual({ jsonrpc: "2.0", id: 5, result: {} });
    // and so is one the client cancelled (the cancelled call is not answered)
    const later = join(dir, "later.txt");
    g.send({ jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "write_file", arguments: { path: later, content: "later" } } });
    await expect.poll(() => store.list().filter((a) => a.record.args.path === later).length, { timeout: 30_000 }).toBe(1);
    g.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 6, reason: "the person moved on" } });
    g.send({ jsonrpc: "2.0", id: 6, method: "ping" });
    expect((await g.wait(5))[4]).toEqual({ jsonrpc: "2.0", id: 6, result: {} });
    expect(g.replies()).toHaveLength(5);
  }, 90_000);
});
