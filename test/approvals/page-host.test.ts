/**
 * `stalwart approvals serve` answers only under a loopback name and its own port. A site the
 * person visits can point its own name at 127.0.0.1 (DNS rebinding); its requests carry that name
 * as Host and Origin, which the same-origin check alone takes as the page's own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "node:http";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveApprovals, type RunningPage } from "../../cli/approvals/serve.js";

/** A POST to the page at 127.0.0.1 under the Host (and Origin) `host`. */
function post(page: RunningPage, host: string, path: string, body: unknown): Promise<{ status: number; text: string }> {
  const port = new URL(page.url).port;
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method: "POST", headers: { host, origin: `http://${host}`, "stalwart-apply": "yes", "content-type": "application/json" } }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

describe("the local approvals page and its Host", () => {
  let page: RunningPage;
  beforeAll(async () => {
    page = await serveApprovals({ home: mkdtempSync(join(tmpdir(), "stalwart-approvals-host-")), host: "127.0.0.1", port: 0, code: "424242" });
  });
  afterAll(() => page?.close());

  it("a rebound name cannot burn the one-time code; the page's own address signs in", async () => {
    const port = new URL(page.url).port;
    for (let i = 0; i < 6; i++) {
      const r = await post(page, `rebind.example:${port}`, "/login", { code: "000000", by: "mallory" });
      expect(r.status).toBe(403);
    }
    expect((await post(page, `127.0.0.1:${Number(port) + 1}`, "/login", { code: "000000", by: "mallory" })).status).toBe(403);
    const ok = await post(page, `127.0.0.1:${port}`, "/login", { code: "424242", by: "ana" });
    expect([ok.status, ok.text]).toEqual([200, expect.stringContaining("signed in as ana")]);
  });
});
