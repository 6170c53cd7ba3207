/**
 * A record the home's approval store cannot read does not take the page down with it (stop 48's
 * approvals M7): the page lists what reads and names each record that does not, with why; a
 * denial whose receipt was deleted is one of those, never shown as waiting for a decision.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { approvalsApp } from "../../worker/portable/approvals/app.js";
import { FileApprovalStore } from "../../cli/approvals/store.js";
import { homeMac } from "../../cli/approvals/mac.js";
import { Client } from "../../cli/sdk/index.js";
import { decide } from "../../worker/portable/engine/index.js";
import { copyLicence } from "../helpers/licensed-home.js";

const catalogue = join(import.meta.dirname, "fixtures/refunds.yaml");
const origins = { order_id: "typed", amount: "model" };

async function page(home: string) {
  const mac = homeMac(home);
  const store = new FileApprovalStore(home, () => mac);
  const app = approvalsApp({ base: "", local: true, now: () => Date.now(), login: () => ({ by: "ana" }), storeFor: () => store, macFor: () => mac, cookieMac: () => mac });
  const login = await app.request("http://localhost/login", { method: "POST", headers: { "stalwart-apply": "yes", origin: "http://localhost", "content-type": "application/json" }, body: JSON.stringify({ code: "1", by: "ana" }) });
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
  return { store, get: (path: string) => app.request(`http://localhost${path}`, { headers: { cookie } }) };
}

describe("the approvals page over records it cannot read", () => {
  it("lists the readable ones and names the rest; a denial whose receipt is gone is not offered again", async () => {
    const home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-page-unreadable-")));
    const s = new Client({ home }).session("refunds", { catalogue });
    await s.read("refund 40 on order 4411");
    const first = await s.run("refund_card", { order_id: "4411", amount: 40 }, { origins }, () => undefined);
    const second = await s.run("refund_card", { order_id: "4411", amount: 41 }, { origins }, () => undefined);
    expect([first.status, second.status]).toEqual(["waiting", "waiting"]);
    const bad = "p_00000000000000ff";
    writeFileSync(join(home, "approvals", "pending", `${bad}.json`), "");
    const { store, get } = await page(home);

    const list = await get("/");
    expect(list.status).toBe(200);
    const html = await list.text();
    expect(html).toContain(`/p/${first.approval!}`);
    expect(html).toContain(`/p/${second.approval!}`);
    expect(html).toContain("Cannot be read (1)");
    expect(html).toContain(bad);
    expect(html).toContain("it is empty");
    // a readable record's own page still opens
    expect((await get(`/p/${first.approval!}`)).status).toBe(200);

    // the person denies the second; the host deletes its receipt: it reads undecided on disk
    await decide(store, homeMac(home), second.approval!, { decision: "deny", by: "ana", at: Date.now() });
    rmSync(join(home, "approvals", "receipts", `${second.approval!}.json`));
    const after = await (await get("/")).text();
    expect(after).toContain("Cannot be read (2)");
    expect(after).toContain("the home&#39;s store keeps a person&#39;s refusal of this call");
    expect(after).not.toContain(`/p/${second.approval!}`);
    const one = await get(`/p/${second.approval!}`);
    expect(one.status).not.toBe(200);
    expect(await one.text()).toContain("refusal of this call");
  });
});
