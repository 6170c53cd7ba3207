/**
 * The licence service in-process: the Hono app runs in this Node process (`app.request()`), its
 * Durable Objects run in workerd through Miniflare's programmatic API (the real classes, SQLite
 * storage), reached through Miniflare's binding proxies.
 */
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { fileURLToPath } from "node:url";
import { createApp } from "../../worker/workerd/licence-service/app.js";
import type { Env } from "../../worker/workerd/licence-service/env.js";
import { devSigningKey } from "../../worker/portable/licensing/index.js";

const entry = fileURLToPath(new URL("../../worker/workerd/licence-service/index.ts", import.meta.url));

export interface InProcessService {
  app: ReturnType<typeof createApp>;
  env: Env;
  adminSecret: string;
  /** `app.request()` with the env bound. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** A `fetch` that routes to the in-process app (for the Node runtime side). */
  fetch: typeof fetch;
  dispose(): Promise<void>;
}

export async function startInProcessService(opts: { signingKeys?: string } = {}): Promise<InProcessService> {
  const out = await build({ entryPoints: [entry], bundle: true, format: "esm", platform: "neutral", write: false, target: "es2022", mainFields: ["module", "main"], conditions: ["workerd", "worker", "import"] });
  const script = out.outputFiles[0]!.text;
  const signingKeys = opts.signingKeys ?? JSON.stringify([await devSigningKey("dev-2026-a")]);
  const adminSecret = "admin-" + Math.random().toString(36).slice(2);
  const mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: "2026-04-01",
    cf: false,
    durableObjects: {
      LICENCES: { className: "LicenceObject", useSQLite: true },
      DIRECTORY: { className: "DirectoryObject", useSQLite: true },
    },
    bindings: { LICENCE_SIGNING_KEYS: signingKeys, LICENCE_ADMIN_SECRET: adminSecret },
  });
  await mf.ready;
  const bindings = (await mf.getBindings()) as unknown as Env;
  const env: Env = { ...bindings, LICENCE_SIGNING_KEYS: signingKeys, LICENCE_ADMIN_SECRET: adminSecret };
  const app = createApp();
  const request = async (path: string, init?: RequestInit) => app.request(path, init, env);
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    return app.request(req, undefined, env);
  }) as typeof fetch;
  return { app, env, adminSecret, request, fetch: fetchImpl, dispose: () => mf.dispose() };
}
