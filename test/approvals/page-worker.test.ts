/**
 * The approvals page the check worker mounts at /approvals, under a real `wrangler dev` (the
 * ApprovalObject Durable Object, offline), in Chromium: signed in with the tenant's key, it shows
 * a remote `run(…, {wait})` waiting in this process without a reload; approving there lets the
 * run go on and the tool runs once; a denial runs nothing; an edit is checked again and needs its
 * own approval; a cross-site POST changes nothing; no
 * page, no API and no change without the tenant's key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { Client } from "../../cli/sdk/index.js";
import { startCheckWorker, type RunningWorker } from "../helpers/check-worker.js";
import { crossSiteAttempts, haveChromium, launch } from "./browser.js";

const catalogue = join(import.meta.dirname, "fixtures/refunds.yaml");
const origins = { order_id: "typed", amount: "model" };

describe.skipIf(!haveChromium)("the check worker's approvals page (wrangler dev) in Chromium", () => {
  let worker: RunningWorker;
  let browser: Browser;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    worker = await startCheckWorker(["acme", "globex"]);
    base = `${worker.url}/approvals`;
    browser = await launch();
    page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await page.goto(base);
    await page.getByLabel("This tenant's API key").fill("sk_wrong_0123456789abcdef");
    await page.getByRole("button", { name: "Open" }).click();
    await page.getByText("that key is not valid here").waitFor();
    await page.getByLabel("This tenant's API key").fill(worker.keys[0]!);
    await page.getByLabel(/Your name/).fill("ana");
    await page.getByRole("button", { name: "Open" }).click();
    await page.getByText("signed in as ana").waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
  });

  /**
   * page.goto, again when the page's own script navigated meanwhile: after a decision it moves to
   * the next page or reloads 300 ms later (views.tsx), which aborts a goto that starts at the same
   * moment. Each retry waits out that navigation and the reload's delay (a CI run on a loaded
   * machine saw five gotos in a row interrupted when retries did not wait).
   */
  const open = async (url: string): Promise<void> => {
    for (let i = 0; ; i++) {
      try {
        await page.goto(url);
        return;
      } catch (err) {
        if (i >= 7 || !/ERR_ABORTED|interrupted by another navigation/.test(String(err))) throw err;
        await page.waitForLoadState().catch(() => undefined);
        await page.waitForTimeout(400);
      }
    }
  };
  const session = () => new Client({ url: worker.url, key: worker.keys[0]!, timeoutMs: 20_000 }).session("refunds", { catalogue });
  const pending = () => page.locator("ul.list li a", { hasText: "refund_card" }).filter({ has: page.locator(".status.pending") }).first();

  it("a remote run waits; the page shows it without a reload; approving there runs the tool once", async () => {
    await open(base + "/");
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    const s = session();
    await s.read("refund 40 on order 4411");
    const runs: unknown[] = [];
    const waiting = s.run("refund_card", { order_id: "4411", amount: 40 }, { origins, wait: 60_000 }, (a) => runs.push(a));
    await pending().waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker), "no reload").toBe(1);
    await pending().click();
    await expect.poll(() => page.locator("td.flag").first().textContent()).toContain("written by the model");
    expect(await page.locator("p.question").textContent()).toContain("Allow refund_card?");
    expect(await page.locator("main").textContent()).toContain("spend refund_card (USD): 0 → 40 of 500 per month");
    await page.getByLabel("Message (optional)").fill("checked order 4411");
    await page.getByRole("button", { name: "Approve" }).press("Enter");
    const r = await waiting;
    expect(r).toMatchObject({ status: "ran", receipt: { by: "ana", decision: "approve", message: "checked order 4411" } });
    expect(runs).toEqual([{ order_id: "4411", amount: 40 }]);
    expect(s.history.entries.filter((e) => e.kind === "receipt" && e.by === "ana")).toHaveLength(1);
  }, 120_000);

  it("a denial on the page runs nothing", async () => {
    await open(base + "/");
    const s = session();
    let runs = 0;
    const waiting = s.run("refund_card", { order_id: "4412", amount: 12 }, { origins, wait: 60_000 }, () => void runs++);
    // this one by its id (the list's live update is the test above): no race with a busy machine
    let id: string | undefined;
    const list = () => fetch(`${worker.url}/v1/approvals`, { headers: { authorization: `Bearer ${worker.keys[0]}` } }).then((r) => r.json() as Promise<{ approvals: { status: string; record: { id: string; args: { amount?: number } } }[] }>);
    await expect.poll(async () => (id = (await list()).approvals.find((a) => a.status === "pending" && a.record.args.amount === 12)?.record.id), { timeout: 30_000 }).toBeDefined();
    await open(`${base}/p/${id}`);
    await page.getByRole("button", { name: "Deny" }).click();
    expect(await waiting).toMatchObject({ status: "refused", receipt: { decision: "deny", by: "ana" } });
    expect(runs).toBe(0);
  }, 120_000);

  it("an edit on the page is checked again as a new call and needs a new approval", async () => {
    const s = session();
    await s.read("refund order 4413");
    const runs: unknown[] = [];
    const waiting = s.run("refund_card", { order_id: "4413", amount: 90 }, { origins, wait: 60_000 }, (a) => runs.push(a));
    const list = () => fetch(`${worker.url}/v1/approvals`, { headers: { authorization: `Bearer ${worker.keys[0]}` } }).then((r) => r.json() as Promise<{ approvals: { status: string; record: { id: string; args: { order_id?: string; amount?: number } } }[] }>);
    const pendingOf = async (amount: number) => (await list()).approvals.find((a) => a.status === "pending" && a.record.args.order_id === "4413" && a.record.args.amount === amount)?.record.id;
    let id: string | undefined;
    await expect.poll(async () => (id = await pendingOf(90)), { timeout: 30_000 }).toBeDefined();
    await open(`${base}/p/${id}`);
    await page.getByText("Edit the arguments, then check again").click();
    await page.getByLabel("amount (JSON)").fill("60");
    await page.getByRole("button", { name: "Check the edited call again" }).click();
    let again: string | undefined;
    await expect.poll(async () => (again = await pendingOf(60)), { timeout: 30_000 }).toBeDefined();
    expect(runs, "nothing ran on the old approval").toEqual([]);
    await open(`${base}/p/${again}`);
    expect(await page.locator("tbody tr").nth(1).textContent()).toContain("written by the person in a reply");
    await page.getByRole("button", { name: "Approve" }).click();
    expect(await waiting).toMatchObject({ status: "ran", receipt: { by: "ana", decision: "approve" } });
    expect(runs).toEqual([{ order_id: "4413", amount: 60 }]);
  }, 120_000);

  it("a cross-site POST (a form on another origin, a fetch from it) changes nothing", async () => {
    const s = session();
    let runs = 0;
    const waiting = await s.run("refund_card", { order_id: "4414", amount: 5 }, { origins, wait: 1 }, () => void runs++);
    const id = waiting.approval!;
    const target = `${base}/p/${id}/decide`;
    expect((await crossSiteAttempts(page, target)).every((st) => st === 403)).toBe(true);
    // the page's own POST without the header is refused too — from a page that has settled: the
    // last test's decision moves this one to another page a moment later (views.tsx), and an
    // evaluate under way then loses its context (seen once, load 6)
    await open(base + "/");
    expect(await page.evaluate(async (u) => (await fetch(u, { method: "POST", headers: { "content-type": "application/json" }, body: '{"decision":"approve"}' })).status, target)).toBe(403);
    const still = await fetch(`${worker.url}/v1/approvals/${id}`, { headers: { authorization: `Bearer ${worker.keys[0]}` } }).then((r) => r.json() as Promise<{ approval: { status: string } }>);
    expect(still.approval.status, "still undecided").toBe("pending");
    expect(runs).toBe(0);
  }, 120_000);

  it("without the tenant's key: no page, no API, no change; another tenant sees none of it", async () => {
    const list = await fetch(`${base}/`);
    expect(list.status).toBe(401);
    expect(await list.text()).toContain("This tenant&#39;s API key");
    const post = await fetch(`${base}/p/p_0000000000000000/decide`, { method: "POST", headers: { "stalwart-apply": "yes", "content-type": "application/json", origin: worker.url }, body: '{"decision":"approve"}' });
    expect(post.status).toBe(401);
    const forged = await fetch(`${base}/`, { headers: { cookie: "stalwart_approvals=eyJieSI6Im1hbGxvcnkiLCJ0ZW5hbnQiOiJhY21lIiwiZXhwIjo5OTk5OTk5OTk5OTk5fQ.00" } });
    expect(forged.status, "a cookie not MAC'd by the worker").toBe(401);
    expect((await fetch(`${worker.url}/v1/approvals`)).status).toBe(401);
    // the tenant's Durable Object decides once: of ten people at once, exactly one wins
    const s = session();
    const w = await s.run("refund_card", { order_id: "4415", amount: 7 }, { origins, wait: 1 }, () => undefined);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => fetch(`${worker.url}/v1/approvals/${w.approval}/decide`, { method: "POST", headers: { authorization: `Bearer ${worker.keys[0]}`, "content-type": "application/json" }, body: JSON.stringify({ decision: i % 2 ? "approve" : "deny", by: `p${i}` }) }).then((r) => r.status)));
    expect(answers.sort()).toEqual([200, ...Array(9).fill(409)]);
    const theirs = await fetch(`${worker.url}/v1/approvals`, { headers: { authorization: `Bearer ${worker.keys[1]}` } }).then((r) => r.json() as Promise<{ approvals: unknown[] }>);
    expect(theirs.approvals).toEqual([]);
  }, 60_000);
});
