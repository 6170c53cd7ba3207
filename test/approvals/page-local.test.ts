/**
 * The approvals page of `stalwart approvals serve`, in a real browser (issue 12): a `run()` waits
 * in this process while the page (another process) shows it without a reload; approving there lets
 * the run go on and the tool runs once; a denial runs nothing; an edit is checked again and needs a
 * new approval; a cross-site POST without the header changes nothing.
 * `STALWART_SCREENSHOTS=1` also writes docs/approvals-list.png and docs/approvals-one.png.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChildProcess } from "node:child_process";
import type { Browser, Page } from "playwright-core";
import { Client } from "../../cli/sdk/index.js";
import { FileApprovalStore } from "../../cli/approvals/store.js";
import { copyLicence } from "../helpers/licensed-home.js";
import { crossSiteAttempts, haveChromium, launch, serveChild } from "./browser.js";

const catalogue = join(import.meta.dirname, "fixtures/refunds.yaml");
const origins = { order_id: "typed", amount: "model" };
const shots = process.env.STALWART_SCREENSHOTS === "1";
const DOCS = join(import.meta.dirname, "../../docs");

describe.skipIf(!haveChromium)("approvals page (stalwart approvals serve) in Chromium", () => {
  let home: string;
  let url: string;
  let child: ChildProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-approvals-page-")));
    const served = await serveChild(home);
    url = served.url;
    child = served.child;
    browser = await launch();
    page = await (await browser.newContext({ viewport: { width: 800, height: 900 } })).newPage();
    await page.goto(url);
    await page.getByLabel(/one-time code/).fill(served.code);
    await page.getByLabel(/Your name/).fill("ana");
    await page.getByRole("button", { name: "Open" }).click();
    await page.getByText("signed in as ana").waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    child?.kill("SIGTERM");
  });

  const session = () => new Client({ home }).session("refunds", { catalogue });

  /** The list updates by itself: the new confirmation shows without a reload. */
  async function openNewest(tool: string): Promise<void> {
    await page.goto(url);
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    return void tool;
  }

  it("a waiting run shows up without a reload; approving it on the page runs the tool once", async () => {
    await openNewest("refund_card");
    const s = session();
    await s.read("refund 40 on order 4411");
    const runs: unknown[] = [];
    const waiting = s.run("refund_card", { order_id: "4411", amount: 40 }, { origins, wait: 60_000 }, (a) => runs.push(a));
    const item = page.locator("ul.list li a", { hasText: "refund_card" }).first();
    await item.waitFor({ timeout: 20_000 });
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker), "no reload").toBe(1);
    if (shots) await page.screenshot({ path: join(DOCS, "approvals-list.png"), fullPage: true });
    await item.click();
    await expect.poll(() => page.locator("td.flag").first().textContent()).toContain("written by the model");
    expect(await page.locator("th[scope=row]").allTextContents()).toEqual(["order_id", "amount"]);
    expect(await page.locator("tbody tr").nth(0).textContent()).toContain("typed by the person");
    expect(await page.locator("p.question").textContent()).toContain("Allow refund_card?");
    if (shots) await page.screenshot({ path: join(DOCS, "approvals-one.png"), fullPage: true });
    await page.getByLabel("Message (optional)").fill("checked order 4411");
    const reloaded = page.waitForEvent("load"); // the page reloads itself after a decision
    await page.getByRole("button", { name: "Approve" }).press("Enter"); // by keyboard
    const r = await waiting;
    await reloaded; // before the next test navigates: two navigations at once interrupt each other
    expect(r).toMatchObject({ status: "ran", receipt: { by: "ana", decision: "approve", message: "checked order 4411" } });
    expect(runs).toEqual([{ order_id: "4411", amount: 40 }]);
    expect(s.history.entries.some((e) => e.kind === "receipt" && e.by === "ana")).toBe(true);
  }, 120_000);

  it("a denial on the page runs nothing", async () => {
    await openNewest("refund_card");
    const s = session();
    let runs = 0;
    const waiting = s.run("refund_card", { order_id: "4412", amount: 12 }, { origins, wait: 60_000 }, () => void runs++);
    const item = page.locator("ul.list li a", { hasText: "refund_card" }).filter({ has: page.locator(".status.pending") }).first();
    await item.waitFor({ timeout: 20_000 });
    await item.click();
    const reloaded = page.waitForEvent("load");
    await page.getByRole("button", { name: "Deny" }).click();
    const r = await waiting;
    await reloaded;
    expect(r).toMatchObject({ status: "refused", receipt: { decision: "deny", by: "ana" } });
    expect(runs).toBe(0);
  }, 120_000);

  it("an edit is checked again as a new call and needs a new approval", async () => {
    await openNewest("refund_card");
    const s = session();
    await s.read("refund order 4413");
    const runs: unknown[] = [];
    const waiting = s.run("refund_card", { order_id: "4413", amount: 90 }, { origins, wait: 60_000 }, (a) => runs.push(a));
    const pending = () => page.locator("ul.list li a", { hasText: "refund_card" }).filter({ has: page.locator(".status.pending") }).first();
    await pending().waitFor({ timeout: 20_000 });
    const first = new URL(await pending().getAttribute("href") ?? "", url).pathname;
    await pending().click();
    await page.getByText("Edit the arguments, then check again").click();
    await page.getByLabel("amount (JSON)").fill("60");
    await page.getByRole("button", { name: "Check the edited call again" }).click();
    // back on the list: the edited call waits as a new confirmation
    await expect.poll(async () => (await pending().count()) > 0 && new URL((await pending().getAttribute("href")) ?? "", url).pathname !== first, { timeout: 20_000 }).toBe(true);
    expect(runs, "nothing ran on the old approval").toEqual([]);
    await pending().click();
    expect(await page.locator("tbody tr").nth(1).textContent()).toContain("written by the person in a reply");
    const reloaded = page.waitForEvent("load");
    await page.getByRole("button", { name: "Approve" }).click();
    const r = await waiting;
    await reloaded;
    expect(r.status).toBe("ran");
    expect(runs).toEqual([{ order_id: "4413", amount: 60 }]);
  }, 120_000);

  it("a cross-site POST (a form on another origin, a fetch from it) changes nothing", async () => {
    const s = session();
    let runs = 0;
    const waiting = await s.run("refund_card", { order_id: "4414", amount: 5 }, { origins, wait: 1 }, () => void runs++);
    const id = waiting.approval!;
    const target = `${url}p/${id}/decide`;
    expect((await crossSiteAttempts(page, target)).every((st) => st === 403)).toBe(true);
    expect(new FileApprovalStore(home).get(id)!.receipt, "still undecided").toBeNull();
    expect(runs).toBe(0);
  }, 120_000);
});
