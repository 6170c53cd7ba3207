/**
 * A turn read on a history that does not verify, or is not the newest, starts a new history with
 * it, and the answer says so (`restarted.why`). Found from outside: `read` answered `{step: 0}`
 * and nothing else, so the caller could not tell that every earlier entry was dropped.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Client } from "../../cli/sdk/index.js";
import { licensedHome } from "../helpers/licensed-home.js";

const catalogue = join(import.meta.dirname, "../../examples/store/agent.yaml");

describe("read on a history that cannot continue", () => {
  it("an edited turn, an older copy: the answer is step 0 with restarted.why; a history that verifies has no restarted", async () => {
    const client = new Client({ home: licensedHome("read-restart") });
    const s = client.session("billing", { catalogue });
    expect(await s.read("estorne 40,00 do pedido 4411")).toEqual({ step: 0 });
    expect(await s.checkToolCall("get_order", { order_id: "4411" })).toMatchObject({ decision: "allow", step: 1 });
    const older = JSON.parse(JSON.stringify(s.toJSON()));
    expect(await s.read("e o pedido 4412?")).toEqual({ step: 2 });

    // an older copy, resumed: the session moved on since
    const stale = await client.resume(older).read("outra coisa");
    expect(stale).toMatchObject({ step: 0, restarted: { why: expect.stringMatching(/\S/) } });

    // an edited turn
    const edited = JSON.parse(JSON.stringify(s.toJSON()));
    edited.entries[0].text = "estorne 400,00 do pedido 4411";
    const t = client.resume(edited);
    expect(await t.read("ok")).toMatchObject({ step: 0, restarted: { why: expect.stringMatching(/entry 0/) } });
    client.close();
  });
});
