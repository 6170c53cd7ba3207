/**
 * The gateway's session keeps its state (head, spent names, tallies) in the gateway's process, not
 * in the home's store (cli/sdk/client.ts, ClientInternals): it holds the only copy of its history
 * and never saves or resumes it. Counters stay in the home's store. A client made so refuses
 * `resume` — a saved copy continued in another process could not be told from its fork there.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, InputError } from "../../cli/sdk/index.js";
import { nodeState } from "../../cli/sdk/state/index.js";
import { startGateway, type RunningGateway } from "../../cli/gateway/index.js";
import { allowedDir, downstreamClient, home, overHttp } from "./helpers.js";

const FAULTS = join(import.meta.dirname, "fixtures/faults-server.mjs");
const CATALOGUE = `
settings: {language: en}
tools:
  - {name: note, args: {type: object, properties: {text: {type: string}}, additionalProperties: false}, at_most: 2}
`;

let gw: RunningGateway;
let h: string;
beforeAll(async () => {
  const dir = allowedDir();
  writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
  h = home();
  gw = await startGateway({
    catalogue: join(dir, "agent.yaml"),
    upstream: { command: process.execPath, args: [FAULTS], env: { ...(process.env as Record<string, string>), FAULTS_LOG: join(dir, "faults.log") } },
    listen: { host: "127.0.0.1", port: 0 }, home: h, log: () => undefined,
  });
}, 60_000);
afterAll(() => gw?.close());

describe("the gateway's session state", { timeout: 60_000 }, () => {
  it("is kept in its process: the tallies hold (at_most), and the home's store has no row of the session", async () => {
    const { client } = await overHttp(downstreamClient({}), gw.url!);
    const answers = [];
    for (const text of ["a", "b", "c"]) answers.push(await client.callTool({ name: "note", arguments: { text } }));
    expect(answers.map((a) => a.isError === true)).toEqual([false, false, true]);
    expect((answers[2]!._meta?.["stalwart-agents/check"] as { reasons: string[] }).reasons).toContain("order_rule");
    await gw.settled();
    const store = nodeState(h);
    expect(store.load(gw.sessionId).head).toBeNull();
    await client.close();
  });

  it("a client made for it refuses to resume a saved session", async () => {
    const c = new Client({ home: home() }, { sessionsInProcess: true });
    const s = c.session("gateway", { catalogue: CATALOGUE });
    await s.checkToolCall("note", { text: "a" });
    expect(() => c.resume(JSON.parse(JSON.stringify(s.toJSON())))).toThrow(InputError);
    c.close();
  });
});
