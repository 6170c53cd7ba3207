/**
 * The licence service's admin path, from a terminal: organisations, licences on a plan, API keys,
 * revocation, bundles. Talks to `/admin/*` with `Authorization: Bearer $LICENCE_ADMIN_SECRET`
 * (read from the environment, else from `.dev.vars.licence` for the local dev service).
 *
 *   node --import tsx cli/licence/admin.ts bootstrap --plan paid --org "Acme" [--on-lapse refuse] [--days 365]
 *   node --import tsx cli/licence/admin.ts org --name "Acme" [--on-lapse reads_only]
 *   node --import tsx cli/licence/admin.ts licence --org org_… --plan enterprise [--days 365]
 *   node --import tsx cli/licence/admin.ts key --org org_… --licence lic_… [--live]
 *   node --import tsx cli/licence/admin.ts revoke --licence lic_…
 *   node --import tsx cli/licence/admin.ts bundle --kind vocabulary --file vocab.json
 * Options: --url (default $STALWART_LICENCE_URL or http://127.0.0.1:8788).
 */
import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { closest } from "../../worker/portable/engine/index.js";
import { DEFAULT_SERVICE_URL } from "./service.js";

export function adminSecretFrom(envFile = ".dev.vars.licence"): string | undefined {
  if (process.env.LICENCE_ADMIN_SECRET) return process.env.LICENCE_ADMIN_SECRET;
  if (!existsSync(envFile)) return undefined;
  const line = readFileSync(envFile, "utf8").split("\n").find((l) => l.startsWith("LICENCE_ADMIN_SECRET="));
  return line?.slice("LICENCE_ADMIN_SECRET=".length).trim();
}

export async function adminCall(url: string, secret: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(new URL(path, url), {
    method,
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

const USAGE = "usage: admin.ts bootstrap|org|licence|key|revoke|bundle [options] (see the comment at the top of cli/licence/admin.ts)";
const VERBS = ["bootstrap", "org", "licence", "key", "revoke", "bundle"];

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        url: { type: "string" }, org: { type: "string" }, plan: { type: "string" }, "on-lapse": { type: "string" }, days: { type: "string" },
        live: { type: "boolean" }, name: { type: "string" }, licence: { type: "string" }, kind: { type: "string" }, file: { type: "string" },
      },
    });
  } catch (err) {
    process.stderr.write(`admin: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const [verb] = parsed.positionals;
  if (verb === undefined || !VERBS.includes(verb) || parsed.positionals.length > 1) {
    const near = verb === undefined ? undefined : closest(verb, VERBS);
    process.stderr.write(`${verb === undefined ? "" : `admin: unknown verb \`${verb}\`${near ? ` — did you mean \`${near}\`?` : ""}\n`}${USAGE}\n`);
    return 2;
  }
  const values = parsed.values;
  const opt = (name: "url" | "org" | "plan" | "on-lapse" | "days" | "name" | "licence" | "kind" | "file") => values[name];
  const url = opt("url") ?? process.env.STALWART_LICENCE_URL ?? DEFAULT_SERVICE_URL;
  const secret = adminSecretFrom();
  if (!secret) {
    process.stderr.write("admin: no admin secret: set LICENCE_ADMIN_SECRET (or run beside a `.dev.vars.licence`)\n");
    return 2;
  }
  const days = opt("days") ? Number(opt("days")) : undefined;
  let r: { status: number; body: unknown };
  switch (verb) {
    case "bootstrap":
      r = await adminCall(url, secret, "POST", "/admin/bootstrap", { org_name: opt("org") ?? "organisation", plan: opt("plan") ?? "paid", on_licence_lapse: opt("on-lapse"), days, live: values.live === true });
      break;
    case "org":
      r = await adminCall(url, secret, "POST", "/admin/organisations", { name: opt("name"), on_licence_lapse: opt("on-lapse") });
      break;
    case "licence":
      r = await adminCall(url, secret, "POST", "/admin/licences", { org_id: opt("org"), plan: opt("plan"), days });
      break;
    case "key":
      r = await adminCall(url, secret, "POST", "/admin/api-keys", { org_id: opt("org"), licence_id: opt("licence"), live: values.live === true });
      break;
    case "revoke":
      r = await adminCall(url, secret, "POST", `/admin/licences/${opt("licence") ?? ""}/revoke`);
      break;
    case "bundle": {
      const f = opt("file");
      if (!f) {
        process.stderr.write("admin: `bundle` needs --file\n");
        return 2;
      }
      r = await adminCall(url, secret, "PUT", `/admin/bundles/${opt("kind") ?? ""}`, { content: readFileSync(f, "utf8") });
      break;
    }
    default:
      process.stderr.write(USAGE + "\n");
      return 2;
  }
  process.stdout.write(JSON.stringify(r.body, null, 2) + "\n");
  return r.status < 400 ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = await main(process.argv.slice(2));
