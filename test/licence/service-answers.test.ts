/**
 * What the licence service answers, when it is not an answer (outside audit 17, F6, F7): JSON
 * `null` or a list is `service_bad_answer` (never a `TypeError`), an answer too large is not read
 * whole, and a service that does not answer does not hold the host's process open.
 */
import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { activate, openLicence, resetRenewals } from "../../cli/licence/index.js";
import { readInstallation } from "../../cli/licence/installation.js";
import { MAX_ANSWER_BYTES, ServiceClient } from "../../cli/licence/service.js";
import { builtCli } from "../helpers/built-cli.js";
import { tempHome, writeFixtureInstallation } from "../helpers/licence-fixtures.js";

const answering = (status: number, body: string): typeof fetch => async () => new Response(body, { status, headers: { "content-type": "application/json" } });

describe("an answer that is JSON but not an object (F6)", () => {
  for (const [status, body] of [[200, "null"], [403, "null"], [200, "[]"], [500, "7"], [403, '{"error": null}'], [403, '{"error": {"code": 5}}']] as const) {
    test(`activate: ${status} ${body} → a typed error`, async () => {
      const err = await activate({ home: tempHome(), serviceUrl: "http://licence.test", apiKey: "qls_test_x", fetch: answering(status, body) }).catch((e: unknown) => e);
      expect(err).not.toBeInstanceOf(TypeError);
      expect(err).toMatchObject({ code: expect.stringMatching(/^(service_bad_answer|http_\d+)$/) });
    });
  }

  test("an activation answered `{}` or for another installation names the answer, not a stored licence (outside audit 17, F12)", async () => {
    for (const [body, detail] of [["{}", "the answer names no installation"], ['{"installation_id": "inst_someone_else"}', "is for installation `inst_someone_else`"]] as const) {
      const home = tempHome();
      const err = (await activate({ home, serviceUrl: "http://licence.test", apiKey: "qls_test_x", fetch: answering(201, body) }).catch((e: unknown) => e)) as { code: string; reason: string; message: string; hint: string };
      expect(err).toMatchObject({ code: "LicenceInvalid", reason: "wrong_installation" });
      expect(err.message).toContain("the licence service's answer does not verify");
      expect(err.message).toContain(detail);
      expect(err.message).not.toMatch(/stored licence|`undefined`/);
      expect(err.hint).toMatch(/STALWART_LICENCE_URL/);
      expect(readInstallation(home)).toBeUndefined();
    }
  });

  test("a renewal answered 200 null records service_bad_answer (not the old `ok`)", async () => {
    const now = new Date();
    const f = await writeFixtureInstallation({ now, leaseEndsInDays: 5 });
    resetRenewals();
    const h = await openLicence({ home: f.home, fetch: answering(200, "null") });
    h.answered();
    expect(await h.renewal).toMatchObject({ ok: false, code: "service_bad_answer" });
    expect(readInstallation(f.home)!.last_renewal).toMatchObject({ ok: false, code: "service_bad_answer" });
    await h.close();
  });
});

describe("a huge or slow service (F7)", () => {
  test(`an answer over ${MAX_ANSWER_BYTES} bytes is refused without reading it whole`, async () => {
    let pulled = 0;
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    const endless: typeof fetch = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(c) {
            pulled += chunk.byteLength;
            c.enqueue(chunk);
          },
        }),
        { status: 200 },
      );
    const client = new ServiceClient("http://licence.test", endless);
    await expect(client.withKey("GET", "/v1/licences/keys", "")).rejects.toMatchObject({ code: "service_bad_answer" });
    expect(pulled).toBeLessThan(MAX_ANSWER_BYTES + 4 * chunk.byteLength);
  });

  let server: Server | undefined;
  afterAll(() => server?.close());

  test("a service that never answers does not keep the host's process alive after its work", async () => {
    builtCli(); // the child runs the build: refused when it is older than the sources
    server = createServer(() => undefined); // takes the request, never answers
    server.listen(0, "127.0.0.1");
    await new Promise((r) => server!.once("listening", r));
    const port = (server.address() as { port: number }).port;
    const f = await writeFixtureInstallation({ now: new Date(), leaseEndsInDays: 5, serviceUrl: `http://127.0.0.1:${port}` });
    const lib = join(resolve(import.meta.dirname, "../.."), "dist/cli/licence/index.js");
    const script = `const { openLicence } = await import(${JSON.stringify(lib)}); const h = await openLicence({ home: ${JSON.stringify(f.home)} }); h.count("tool_checks"); await new Promise((r) => setTimeout(r, 300)); console.log("done");`;
    const t0 = Date.now();
    const out = await new Promise<string>((res, rej) =>
      execFile(process.execPath, ["--input-type=module", "-e", script], { timeout: 30_000 }, (err, stdout) => (err ? rej(err) : res(stdout))),
    );
    expect(out.trim()).toBe("done");
    expect(Date.now() - t0).toBeLessThan(5000);
  }, 40_000);

  test("a host that awaits close() still gets the renewal's end (the unref'd connection does not cut it short)", async () => {
    builtCli();
    const slow = createServer((_req, res) => setTimeout(() => res.writeHead(503, { "content-type": "application/json" }).end('{"error":{"code":"busy"}}'), 800));
    slow.listen(0, "127.0.0.1");
    await new Promise((r) => slow.once("listening", r));
    try {
      const port = (slow.address() as { port: number }).port;
      const f = await writeFixtureInstallation({ now: new Date(), leaseEndsInDays: 5, serviceUrl: `http://127.0.0.1:${port}` });
      const lib = join(resolve(import.meta.dirname, "../.."), "dist/cli/licence/index.js");
      const script = `const { openLicence } = await import(${JSON.stringify(lib)}); const h = await openLicence({ home: ${JSON.stringify(f.home)} }); h.count("tool_checks"); await new Promise((r) => setImmediate(r)); await h.close(); const { readFileSync } = await import("node:fs"); console.log(JSON.parse(readFileSync(${JSON.stringify(join(f.home, "licence/installation.json"))}, "utf8")).last_renewal.code);`;
      const out = await new Promise<string>((res, rej) =>
        execFile(process.execPath, ["--input-type=module", "-e", script], { timeout: 30_000 }, (err, stdout) => (err ? rej(err) : res(stdout))),
      );
      expect(out.trim()).toBe("http_503"); // the renewal ended and was recorded before close() settled
    } finally {
      slow.close();
    }
  }, 40_000);
});
