/**
 * `stalwart approvals serve`: the approvals page (worker/portable/approvals/app.tsx) on a loopback
 * address, behind a one-time code printed at start. The code opens the page once (a second
 * browser needs a new `serve`), and five wrong codes burn it, so a page on this machine cannot
 * guess its way in.
 */
import { randomInt } from "node:crypto";
import { serve, type ServerType } from "@hono/node-server";
import { approvalsApp } from "../../worker/portable/approvals/app.js";
import { StalwartError, toWire } from "../../worker/portable/engine/index.js";
import { FileApprovalStore } from "./store.js";
import { homeMac } from "./mac.js";
import { loopbackHost } from "../loopback.js";

export interface ServeOptions {
  home: string;
  host: string;
  port: number;
  /** tests: the code instead of a random one */
  code?: string;
  pollMs?: number;
}

export interface RunningPage {
  url: string;
  code: string;
  close(): Promise<void>;
}

export async function serveApprovals(o: ServeOptions): Promise<RunningPage> {
  const store = new FileApprovalStore(o.home);
  const mac = homeMac(o.home);
  let code: string | undefined = o.code ?? String(randomInt(0, 1_000_000)).padStart(6, "0");
  const printed = code;
  let wrong = 0;
  const app = approvalsApp({
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
    macFor: () => mac,
    cookieMac: () => mac,
    ...(o.pollMs ? { pollMs: o.pollMs } : {}),
  });
  let port = o.port;
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve({ fetch: (req: Request) => (loopbackHost(req.url, port) ? app.fetch(req) : notHere()), hostname: o.host, port: o.port }, () => resolve(s));
    s.once("error", reject);
  });
  const addr = server.address();
  port = typeof addr === "object" && addr ? addr.port : o.port;
  const host = o.host.includes(":") ? `[${o.host}]` : o.host;
  return {
    url: `http://${host}:${port}/`,
    code: printed,
    close: () => new Promise<void>((resolve) => {
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
}

function notHere(): Response {
  const wire = toWire(new StalwartError("forbidden", "this page answers only at its loopback address (the URL `stalwart approvals serve` printed)"));
  return Response.json(wire.body, { status: wire.status });
}
