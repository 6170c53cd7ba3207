/**
 * The model cannot launder a value it wrote through a read that echoes it (outside audit F12): the
 * gateway infers `result:` for a value an earlier result holds, but not for one that result only
 * gave back from what the call was sent. A real gateway in front of a tool server whose lookup
 * answers with the id it was asked about; the tool server's log says what ran. Nor through a read
 * that hands it back nested, trimmed, lower-cased, with a prefix cut, or in a later call (outside
 * audit 22, F1 and F2): a `when_held` write carrying it is asked about, and does not run.
 */
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { startGateway } from "../../cli/gateway/index.js";
import { allowedDir, downstreamClient, home, overHttp } from "./helpers.js";

const SERVER = join(import.meta.dirname, "fixtures/echo-server.mjs");
const CATALOGUE = `
settings: {language: en}
tools:
  - name: get_order
    args: {type: object, properties: {order_id: {type: string}}, required: [order_id], additionalProperties: false}
    returns: {type: object, properties: {order_id: {type: string}, ref: {type: string}, status: {type: string}}}
  - name: ship_order
    writes: true
    confirm: when_held
    after: [get_order]
    args: {type: object, properties: {order_id: {type: string}}, required: [order_id], additionalProperties: false}
  - name: lookup
    args: {type: object, properties: {q: {}, how: {type: string}}, required: [q], additionalProperties: false}
    returns: {type: object, properties: {ref: {type: string}}}
  - name: pay
    writes: true
    confirm: when_held
    args: {type: object, properties: {acct: {type: string}}, required: [acct], additionalProperties: false}
  - name: suggest
    args: {type: object, additionalProperties: false}
    returns: {type: object, properties: {ref: {type: string}}}
  - name: whoami
    args: {type: object, additionalProperties: false}
    returns: {type: object, properties: {ref: {type: string}}}
`;

/** A gateway in front of the echo server, on a home of its own; `log`: where the server's writes are logged. */
async function echoGateway() {
  const dir = allowedDir();
  writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
  const log = join(dir, "echo.log");
  const gw = await startGateway({ catalogue: join(dir, "agent.yaml"), upstream: { command: process.execPath, args: [SERVER], env: { ...(process.env as Record<string, string>), ECHO_LOG: log } }, listen: { host: "127.0.0.1", port: 0 }, home: home(), log: () => undefined });
  return { gw, log };
}

const check = (r: { _meta?: Record<string, unknown> | undefined }) => r._meta?.["stalwart-agents/check"] as { decision?: string; reasons?: string[]; detail?: Record<string, unknown> };

describe("a value the model wrote, echoed back by a read", { timeout: 60_000 }, () => {
  it("is still the model's: the write that carries it is asked about; a value the read found itself is its result", async () => {
    const { gw, log } = await echoGateway();
    const { client } = await overHttp(downstreamClient({}), gw.url!);
    try {
      const read = await client.callTool({ name: "get_order", arguments: { order_id: "9999" } });
      expect(read.isError).not.toBe(true);
      const echoed = await client.callTool({ name: "ship_order", arguments: { order_id: "9999" } });
      expect(echoed.isError).toBe(true);
      expect(check(echoed)).toMatchObject({ decision: "confirm", reasons: ["argument_origin"], detail: { arguments: ["order_id"] } });
      expect(existsSync(log)).toBe(false);
      // `ref` is what the lookup found, not what it was sent: that result vouches for it
      const found = await client.callTool({ name: "ship_order", arguments: { order_id: "R-9999" } });
      expect(found.isError, JSON.stringify(found)).not.toBe(true);
      expect(readFileSync(log, "utf8")).toBe("ship R-9999\n");
    } finally {
      await client.close();
      await gw.close();
    }
  });

  it("nor through a read that hands it back nested, trimmed, lower-cased, cut, or in a later call", async () => {
    const { gw, log } = await echoGateway();
    // a value of its own for each case: what one session sent must not be what holds the next one's call
    const cases: [string, (V: string) => Record<string, unknown>[]][] = [
      ["exact", (V) => [{ q: V }]],
      ["nested", (V) => [{ q: { inner: V }, how: "nested" }]],
      ["list", (V) => [{ q: [V], how: "list" }]],
      ["trim", (V) => [{ q: ` ${V} `, how: "trim" }]],
      ["lower", (V) => [{ q: V.toUpperCase(), how: "lower" }]],
      ["prefix", (V) => [{ q: `id:${V}`, how: "prefix" }]],
      ["prev", (V) => [{ q: V }, { q: "x", how: "prev" }]],
      // sent as a resource's URI or a prompt's argument, handed back by a read (outside audit 24, F3)
      ["resource", (V) => [{ resource: `acct://${V}` }, { q: "x", how: "prev" }]],
      ["prompt", (V) => [{ prompt: V }, { q: "x", how: "prev" }]],
    ];
    try {
      for (const [k, [what, readsOf]] of cases.entries()) {
        const V = `acct-66${k}`;
        // a session of its own for each (a client of its own)
        const { client } = await overHttp(downstreamClient({}), gw.url!);
        try {
          for (const args of readsOf(V)) {
            if (typeof args.resource === "string") {
              await client.readResource({ uri: args.resource });
              continue;
            }
            if (typeof args.prompt === "string") {
              await client.getPrompt({ name: "ask", arguments: { id: args.prompt } });
              continue;
            }
            const read = await client.callTool({ name: "lookup", arguments: args });
            expect(read.isError, what).not.toBe(true);
            expect(read.structuredContent, what).toEqual({ ref: V });
          }
          const paid = await client.callTool({ name: "pay", arguments: { acct: V } });
          expect(paid.isError, what).toBe(true);
          expect(check(paid), what).toMatchObject({ decision: "confirm", reasons: ["argument_origin"], detail: { arguments: ["acct"] } });
        } finally {
          await client.close();
        }
      }
      expect(existsSync(log), "no pay reached the tool server").toBe(false);
      // what a read found itself still vouches: `ref` of a lookup for another value
      const { client } = await overHttp(downstreamClient({}), gw.url!);
      try {
        await client.callTool({ name: "get_order", arguments: { order_id: "7" } });
        const paid = await client.callTool({ name: "pay", arguments: { acct: "R-7" } });
        expect(paid.isError, JSON.stringify(paid)).not.toBe(true);
        expect(readFileSync(log, "utf8")).toBe("pay R-7\n");
      } finally {
        await client.close();
      }
    } finally {
      await gw.close();
    }
  });

  it("nor through what the client's model wrote back to the tool server (sampling), or a call's _meta (outside audit 25, F2, F3)", async () => {
    const { gw, log } = await echoGateway();
    const client = new Client({ name: "sampling-host", version: "1.0.0" }, { capabilities: { sampling: {} } });
    client.setRequestHandler("sampling/createMessage", async () => ({ role: "assistant", content: { type: "text", text: "acct-802" }, model: "m", stopReason: "endTurn" }));
    try {
      await overHttp({ client, asked: [] }, gw.url!);
      const suggested = await client.callTool({ name: "suggest", arguments: {} });
      expect(suggested.structuredContent).toEqual({ ref: "acct-802" });
      const paid = await client.callTool({ name: "pay", arguments: { acct: "acct-802" } });
      expect(check(paid), "the model's sampled text").toMatchObject({ decision: "confirm", reasons: ["argument_origin"] });
      const who = await client.callTool({ name: "whoami", arguments: {}, _meta: { account: "acct-801" } });
      expect(who.structuredContent).toEqual({ ref: "acct-801" });
      const paid2 = await client.callTool({ name: "pay", arguments: { acct: "acct-801" } });
      expect(check(paid2), "the call's _meta").toMatchObject({ decision: "confirm", reasons: ["argument_origin"] });
      expect(existsSync(log), "no pay reached the tool server").toBe(false);
    } finally {
      await client.close();
      await gw.close();
    }
  });
});
