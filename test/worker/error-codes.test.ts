/**
 * The one error-code registry (worker/portable/engine/errors.ts): every code has one wire
 * spelling and reads back as itself; a worker's answer becomes the same class with the same
 * `code` the same call throws in process — checked here in both modes for the situations the two
 * used to name differently (a history that does not verify, a changed session header).
 */
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../../cli/sdk/index.js";
import {
  CatalogueError,
  ERROR_CODES,
  InputError,
  LicenceInvalid,
  LicenceRequired,
  StalwartError,
  codeOfWire,
  errorFromWire,
  statusOf,
  toWire,
  wireOf,
  type ErrorCode,
} from "../../worker/portable/engine/index.js";
import { licensedHome } from "../helpers/licensed-home.js";
import { KEY_A, testApp } from "./app-env.js";

const CODES = Object.keys(ERROR_CODES) as ErrorCode[];

describe("the error-code registry", () => {
  it("gives every code one wire spelling that reads back as that code, and a 4xx or 5xx", () => {
    const wires = CODES.map(wireOf);
    expect(new Set(wires).size).toBe(CODES.length);
    for (const code of CODES) {
      expect(codeOfWire(wireOf(code)), code).toBe(code);
      expect(statusOf(code), code).toBeGreaterThanOrEqual(400);
      expect(statusOf(code), code).toBeLessThan(600);
      expect(wireOf(code), code).toMatch(/^[a-z][a-z0-9_]*$/);
    }
  });

  it("answers and reads back every code as the same code, message, pointer and hint", () => {
    for (const code of CODES) {
      const err = new StalwartError(code, `about ${code}`, { pointer: "/x", hint: "do y" });
      const { status, body } = toWire(err);
      expect(status).toBe(statusOf(code));
      const back = errorFromWire(body.error, status);
      expect(back, code).toBeInstanceOf(StalwartError);
      expect({ code: back.code, hint: back.hint }, code).toEqual({ code, hint: "do y" });
    }
  });

  it("rebuilds the classes callers catch: CatalogueError with its problems, InputError, the licence errors", () => {
    const problems = [{ file: "a.yaml", line: 3, column: 5, pointer: "/tools/0/writez", message: "unknown word `writez`" }];
    const cat = errorFromWire(toWire(new CatalogueError(problems)).body.error, 400);
    expect(cat).toBeInstanceOf(CatalogueError);
    expect((cat as CatalogueError).problems).toEqual(problems);
    const input = errorFromWire({ code: "invalid_request", message: "`tool` must be a tool name", pointer: "/tool" }, 400);
    expect(input).toBeInstanceOf(InputError);
    expect(input).toMatchObject({ code: "InputError", pointer: "/tool" });
    expect(errorFromWire({ code: "licence_required", message: "none" }, 503)).toBeInstanceOf(LicenceRequired);
    expect(errorFromWire({ code: "licence_invalid", message: "forged" }, 503)).toBeInstanceOf(LicenceInvalid);
    expect(errorFromWire({ code: "licence_invalid", message: "forged" }, 503).message).toBe("forged");
  });

  it("keeps an answer it does not know: `http_<status>`, the server's code in the message", () => {
    const e = errorFromWire({ code: "teapot_full", message: "no room" }, 418);
    expect(e).toMatchObject({ code: "http_418", message: "teapot_full: no room" });
    expect(errorFromWire("not an object", 502).code).toBe("http_502");
    expect(errorFromWire({ code: "constructor", message: "x" }, 400).code).toBe("http_400");
  });
});

describe("the same code in process and over HTTP", () => {
  const catalogue = join(import.meta.dirname, "../../examples/store/agent.yaml");
  let server: Server;
  let url = "";
  beforeAll(async () => {
    const { app, env } = testApp();
    server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const r = await app.request(req.url!, { method: req.method!, headers: req.headers as Record<string, string>, ...(chunks.length ? { body: Buffer.concat(chunks) } : {}) }, env);
      res.writeHead(r.status, { "content-type": r.headers.get("content-type") ?? "application/json" });
      res.end(await r.text());
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => server?.close());

  const modes = () => [
    ["in process", new Client({ home: licensedHome("codes") })],
    ["over HTTP", new Client({ url, key: KEY_A, timeoutMs: 10_000 })],
  ] as const;

  async function started(client: Client) {
    const s = client.session("billing", { catalogue });
    await s.read("estorne 40,00 do pedido 4411");
    const c = await s.checkToolCall("get_order", { order_id: "4411" });
    expect(c.decision).toBe("allow");
    return { saved: JSON.parse(JSON.stringify(s.toJSON())), step: c.step };
  }

  it("a report on an edited history: HistoryInvalid in both", async () => {
    for (const [mode, client] of modes()) {
      const { saved, step } = await started(client);
      saved.entries[0].text = "estorne 4000,00 do pedido 4411";
      const s = client.resume(saved, { catalogue });
      await expect(s.report(step, "ran", { ok: true }), mode).rejects.toMatchObject({ code: "HistoryInvalid" });
    }
  });

  it("a session whose header was changed: SessionSealInvalid in both", async () => {
    for (const [mode, client] of modes()) {
      const { saved, step } = await started(client);
      saved.name = "someone else";
      const err = await (async () => client.resume(saved, { catalogue }).report(step, "ran"))().catch((e: unknown) => e);
      expect(err, mode).toBeInstanceOf(StalwartError);
      expect((err as StalwartError).code, mode).toBe("SessionSealInvalid");
      // a key made anew (a deleted history.key) reads as another installation: the hint says so
      expect((err as StalwartError).hint, mode).toContain("history key");
    }
  });
});
