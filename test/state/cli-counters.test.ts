/**
 * Through the SDK and the `stalwart` command, as a user meets it: a home whose store was rolled
 * back refuses counted calls (`spend_unknown`, `usage_unknown`) with the typed error's words, and
 * `stalwart counters status` says so; `stalwart counters reset` (recorded) is the way back.
 */
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { Client } from "../../cli/sdk/index.js";
import { closeState } from "../../cli/sdk/state/index.js";
import { copyLicence } from "../helpers/licensed-home.js";
import { stalwart } from "../helpers/licence-cli.js";

const catalogue = join(resolve(import.meta.dirname, "../.."), "test/fixtures/ceiling.yaml");
const now = () => new Date("2026-11-15T12:00:00Z");
const pay = (s: ReturnType<Client["session"]>, amount: number) => s.checkToolCall("pay", { amount }, { origins: { amount: "context" } });

describe("a damaged store, through the SDK and the CLI", () => {
  it("refuses counted calls until `stalwart counters reset`, which is recorded", async () => {
    const home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-cli-counters-")));
    const client = new Client({ home, now });
    const s = client.session("a", { catalogue });
    expect((await pay(s, 100)).decision).toBe("allow");
    closeState(home);
    copyFileSync(join(home, "state.mdb"), join(home, "copy.mdb"));
    expect((await pay(client.session("b", { catalogue }), 300)).decision).toBe("allow");
    closeState(home);
    copyFileSync(join(home, "copy.mdb"), join(home, "state.mdb")); // 300 spent, forgotten by the copy

    const again = new Client({ home, now }).session("c", { catalogue });
    const refused = await pay(again, 150);
    expect(refused.decision).toBe("refuse");
    expect(refused.reasons).toEqual(["spend_unknown"]);
    expect(JSON.stringify(refused.detail)).toMatch(/older|stalwart counters reset|damaged/);
    const ping = await again.checkToolCall("ping", { n: 1 });
    expect(ping.reasons).toEqual(["usage_unknown"]);

    const status = await stalwart(["counters", "status", "--json", "--home", home], {});
    expect(status.code).toBe(1);
    expect(status.json()).toMatchObject({ healthy: false, problem: { code: "CounterStoreDamaged", where: join(home, "state.mdb") } });
    const human = await stalwart(["counters", "status", "--home", home], {});
    expect(human.stdout).toMatch(/DAMAGED/);
    expect(human.stdout).toMatch(/stalwart counters reset/);

    const reset = await stalwart(["counters", "reset", "--json", "--home", home, "--by", "oncall"], {});
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.json()).toMatchObject({ reset: true, record: { by: "oncall" } });
    const healthy = await stalwart(["counters", "reset", "--home", home], {});
    expect(healthy.code).toBe(1);
    expect(healthy.stderr).toMatch(/StoreHealthy/);

    // The running client picks the new store up by itself. The new store knows no session's head,
    // so a session that had entries is answered history_invalid once (its history restarts), then goes on.
    const first = await pay(again, 150);
    expect([first.decision, first.reasons]).toEqual(["refuse", ["history_invalid"]]);
    expect((await pay(again, 150)).decision).toBe("allow");
    expect((await pay(client.session("d", { catalogue }), 150)).decision).toBe("allow");
    const after = (await stalwart(["counters", "status", "--json", "--home", home], {})).json();
    expect(after).toMatchObject({ healthy: true, resets: [{ by: "oncall", what: expect.stringMatching(/older/) }] });
  }, 120_000);
});
