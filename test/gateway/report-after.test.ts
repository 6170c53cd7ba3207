/**
 * A call's outcome is recorded just after its reply is sent (cli/gateway/calls.ts, `reportAfter`),
 * so the reply does not wait for the session store — and nothing that reads the session runs
 * before it: the next call's check waits until the report is in, and sees the earlier result.
 * Here the session's report is held open by the test, to see both sides of that order.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client as Sdk } from "../../cli/sdk/index.js";
import { startGateway, type RunningGateway } from "../../cli/gateway/index.js";
import type { GatewaySession } from "../../cli/gateway/calls.js";
import { allowedDir, downstreamClient, home, overHttp, text } from "./helpers.js";

const FAULTS = join(import.meta.dirname, "fixtures/faults-server.mjs");
const CATALOGUE = `
settings: {language: en}
tools:
  - {name: note, args: {type: object, properties: {text: {type: string}}, additionalProperties: false}}
`;

let gw: RunningGateway;
let sdk: Sdk;
const order: string[] = [];
let hold: Promise<void> = Promise.resolve();

beforeAll(async () => {
  const dir = allowedDir();
  writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
  const h = home();
  sdk = new Sdk({ home: h });
  const inner = sdk.session("gateway", { catalogue: join(dir, "agent.yaml") });
  // The real session, with its report held until the test lets it go.
  const session: GatewaySession = {
    get id() {
      return inner.id;
    },
    get history() {
      return inner.history;
    },
    checkToolCall: async (tool, args, options) => {
      order.push("check");
      return inner.checkToolCall(tool, args, options);
    },
    report: async (step, outcome, result) => {
      order.push("report begins");
      await hold;
      const r = await inner.report(step, outcome, result);
      order.push("report ends");
      return r;
    },
  };
  gw = await startGateway({
    catalogue: join(dir, "agent.yaml"), session,
    upstream: { command: process.execPath, args: [FAULTS], env: { ...(process.env as Record<string, string>), FAULTS_LOG: join(dir, "faults.log") } },
    listen: { host: "127.0.0.1", port: 0 }, home: h, log: () => undefined,
  });
}, 60_000);
afterAll(async () => {
  await gw?.close();
  sdk?.close();
});

describe("the report of a call", { timeout: 60_000 }, () => {
  it("is made after the reply, and the next call is checked only once it is in", async () => {
    const { client } = await overHttp(downstreamClient({}), gw.url!);
    let release!: () => void;
    hold = new Promise((r) => (release = r));
    const first = await client.callTool({ name: "note", arguments: { text: "a" } });
    expect(first.isError).not.toBe(true);
    // The reply came while the report is still held: it did not wait for it.
    expect(order).toEqual(["check", "report begins"]);
    expect(gw.entries().at(-1)).toMatchObject({ kind: "check", tool: "note" });

    const second = client.callTool({ name: "note", arguments: { text: "b" } });
    await new Promise((r) => setTimeout(r, 300));
    // The second call is not checked while the first one's report is outstanding.
    expect(order).toEqual(["check", "report begins"]);
    hold = Promise.resolve();
    release();
    expect(text(await second)).toBeTruthy();
    await gw.settled();
    expect(order).toEqual(["check", "report begins", "report ends", "check", "report begins", "report ends"]);
    const kinds = gw.entries().slice(-4).map((e) => e.kind);
    expect(kinds).toEqual(["check", "report", "check", "report"]);
    await client.close();
  });
});
