/**
 * `stalwart approvals serve`: the approvals page (worker/portable/approvals/app.tsx) on a loopback
 * address, behind a one-time code printed at start. The code opens the page once (a second
 * browser needs a new `serve`), and five wrong codes burn it, so a page on this machine cannot
 * guess its way in. The sign-in cookie is this start's: MAC'd under a key made now, and named
 * for the port.
 */
import { createHmac, randomBytes, randomInt } from "node:crypto";
import { serve, type ServerType } from "@hono/node-server";
import { approvalsApp } from "../../worker/portable/approvals/app.js";
import { StalwartError, toWire, type Mac } from "../../worker/portable/engine/index.js";
import { FileApprovalStore } from "./store.js";
import { withdrawEnded } from "./owners.js";
import { homeMac } from "./mac.js";
import { loopbackHost } from "../loopback.js";
import { listenError } from "../listen-error.js";

export interface ServeOptions {
  home: string;
  host: string;
  port: number;
  /** tests: the code instead of a random one */
  code?: string;
  pollMs?: number;
  /** what the page does by itself (the records of gateways that ended, withdrawn) */
  log?: (line: string) => void;
  /** how often those are looked for while it runs (default 30 s) */
  sweepMs?: number;
}

export interface RunningPage {
  url: string;
  code: string;
  close(): Promise<void>;
}

export async function serveApprovals(o: ServeOptions): Promise<RunningPage> {
  let mac: Mac | undefined;
  const store = new FileApprovalStore(o.home, () => (mac ??= homeMac(o.home)));
  // The records of gateways that were killed, withdrawn before anyone sees them, and again while
  // it runs (a gateway may be killed meanwhile); in the background it never throws (owners.ts).
  const log = o.log ?? (() => undefined);
  await withdrawEnded(o.home, store, Date.now(), log);
  const key: Mac = (mac ??= homeMac(o.home));
  // Sign-in cookies are MAC'd under a key of this start only: a restart signs everyone out.
  const cookieKey = randomBytes(32);
  const cookieMac = (text: string) => new Uint8Array(createHmac("sha256", cookieKey).update(text).digest());
  let code: string | undefined = o.code ?? String(randomInt(0, 1_000_000)).padStart(6, "0");
  const printed = code;
  let wrong = 0;
  const page = (port: number) => approvalsApp({
    base: "",
    local: true,
    now: () => Date.now(),
    login: (given, by) => {
      if (code === undefined || !by) return undefined;
      if (given !== code) {
        if (++wrong >= 5) code = undefined;
        return undefined;
      }
      code = undefined;
      return { by };
    },
    storeFor: () => store,
    macFor: () => key,
    cookieMac: () => cookieMac,
    // a browser sends 127.0.0.1's cookies to every port: each server's has a name of its own
    cookieName: `stalwart_approvals_${port}`,
    ...(o.pollMs ? { pollMs: o.pollMs } : {}),
  });
  // nothing is answered until the port is known (`--port 0`)
  let port = -1;
  let app: ReturnType<typeof page> | undefined;
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve({ fetch: (req: Request) => (app && loopbackHost(req.url, port) ? app.fetch(req) : notHere()), hostname: o.host, port: o.port }, () => {
      const addr = s.address();
      port = typeof addr === "object" && addr ? addr.port : o.port;
      app = page(port);
      resolve(s);
    });
    s.once("error", (err: NodeJS.ErrnoException) => reject(listenError(err, `--port ${o.port}`, o.port)));
  });
  const sweeping = setInterval(() => void withdrawEnded(o.home, store, Date.now(), log), o.sweepMs ?? 30_000);
  sweeping.unref();
  const host = o.host.includes(":") ? `[${o.host}]` : o.host;
  return {
    url: `http://${host}:${port}/`,
    code: printed,
    close: () => new Promise<void>((resolve) => {
      clearInterval(sweeping);
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
}

function notHere(): Response {
  const wire = toWire(new StalwartError("forbidden", "this page answers only at its loopback address (the URL `stalwart approvals serve` printed)"));
  return Response.json(wire.body, { status: wire.status });
}
