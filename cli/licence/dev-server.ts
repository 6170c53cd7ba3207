/**
 * The local developer default (licensing.md): `npm run dev:licence` starts the licence worker with
 * `wrangler dev --config wrangler.licence.toml` on 127.0.0.1:8788, generates `.dev.vars.licence`
 * on first use (the dev signing key and a random admin secret; gitignored), creates a dev
 * organisation with an enterprise licence once, and writes its API key to
 * `<home>/licence/dev-api-key`, which `stalwart licence activate` uses against a local service when
 * QLS_API_KEY is unset. So a fresh checkout activates with no account:
 *
 *   npm run dev:licence &      # or as part of `npm run dev`
 *   stalwart licence activate
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { devSigningKey, randomBytes, toBase64Url } from "../../worker/portable/licensing/index.js";
import { adminCall, adminSecretFrom } from "./admin.js";
import { licencePaths } from "./files.js";
import { writeJsonAtomic } from "./files.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const envFile = `${root}.dev.vars.licence`;
const port = Number(process.env.STALWART_LICENCE_PORT ?? 8788);
const url = `http://127.0.0.1:${port}`;

if (!existsSync(envFile)) {
  const keys = JSON.stringify([await devSigningKey("dev-2026-a")]);
  writeFileSync(envFile, `LICENCE_SIGNING_KEYS=${keys}\nLICENCE_ADMIN_SECRET=${toBase64Url(randomBytes(24))}\n`, { mode: 0o600 });
  process.stdout.write(`wrote ${envFile} (dev signing key, admin secret; not committed)\n`);
}

const child = spawn(process.execPath, [`${root}node_modules/wrangler/bin/wrangler.js`, "dev", "--config", `${root}wrangler.licence.toml`, "--ip", "127.0.0.1", "--port", String(port), "--env-file", envFile, "--show-interactive-dev-session=false"], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
});
for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => child.kill(sig));
child.on("exit", (code) => process.exit(code ?? 0));

async function ready(): Promise<boolean> {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${url}/health`)).ok) return true;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

if (await ready()) {
  const keyFile = licencePaths().devApiKey;
  const existing = existsSync(keyFile) ? readFileSync(keyFile, "utf8").trim() : undefined;
  const valid = existing ? (await fetch(`${url}/v1/account`, { headers: { authorization: `Bearer ${existing}` } })).ok : false;
  if (!valid) {
    const secret = adminSecretFrom(envFile)!;
    const r = await adminCall(url, secret, "POST", "/admin/bootstrap", { org_name: "local developer", plan: "enterprise" });
    const key = (r.body as { api_key?: string })?.api_key;
    if (key) {
      writeJsonAtomic(`${keyFile}.json`, r.body);
      writeFileSync(keyFile, key + "\n", { mode: 0o600 });
      process.stdout.write(`dev licence ready: ${url}; dev API key in ${keyFile}\nnext: stalwart licence activate\n`);
    } else process.stderr.write(`could not create the dev licence: ${JSON.stringify(r.body)}\n`);
  } else process.stdout.write(`dev licence ready: ${url}; dev API key in ${keyFile}\n`);
}
