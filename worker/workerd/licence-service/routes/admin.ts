/** The admin routes (bearer LICENCE_ADMIN_SECRET): organisations, licences, API keys, bundles. */
import { Hono } from "hono";
import { jsonBody } from "../../http/body.js";
import { admin } from "../auth.js";
import { BODY, LICENCE_ID, MAX_BODY, ORG_ID, field, matches, type ServiceEnv } from "../context.js";
import { DAY_MS, isPlanName, randomId } from "../deps.js";
import { DIRECTORY_NAME } from "../directory-object.js";
import type { Env } from "../env.js";
import { bad } from "../errors.js";
import { callObject } from "../rpc.js";
import { bundleKind } from "./licences.js";

const anyBody = jsonBody((b) => b, BODY);
const bundleBody = jsonBody((b) => ({ content: field(b, "content", (v): v is string => typeof v === "string" && v.length <= MAX_BODY - 1024, "a string") }), BODY);

export function adminRoutes(): Hono<ServiceEnv> {
  const app = new Hono<ServiceEnv>();
  app.use("/*", admin);

  app.post("/organisations", anyBody, async (c) => c.json(await createOrg(c.env, c.req.valid("json")), 201));
  app.post("/licences", anyBody, async (c) => c.json(await createLicence(c.env, c.req.valid("json")), 201));
  app.post("/api-keys", anyBody, async (c) => c.json(await createKey(c.env, c.req.valid("json")), 201));

  app.post("/licences/:id/revoke", async (c) => {
    const id = c.req.param("id");
    if (!LICENCE_ID.test(id)) throw bad("not a licence id", "/id");
    return c.json(await callObject(c.env.LICENCES, id, "revoke", {}));
  });

  app.put("/bundles/:kind", bundleKind(), bundleBody, async (c) => {
    const { kind } = c.req.valid("param");
    const { content } = c.req.valid("json");
    return c.json(await callObject(c.env.DIRECTORY, DIRECTORY_NAME, "put_bundle", { kind, content }));
  });

  /** One call for scripts and tests: an organisation, a licence on a plan, and an API key. */
  app.post("/bootstrap", anyBody, async (c) => {
    const body = c.req.valid("json");
    const org = await createOrg(c.env, { name: body.org_name ?? "organisation", on_licence_lapse: body.on_licence_lapse });
    const lic = await createLicence(c.env, { ...body, org_id: org.org_id });
    const key = await createKey(c.env, { org_id: org.org_id, licence_id: lic.licence_id, label: "bootstrap", live: body.live });
    return c.json({ ...org, ...lic, ...key }, 201);
  });

  return app;
}

const onLapseOf = (v: unknown): "reads_only" | "refuse" => {
  if (v !== "reads_only" && v !== "refuse") throw bad("`on_licence_lapse` must be `reads_only` or `refuse`", "/on_licence_lapse");
  return v;
};

async function createOrg(env: Env, body: Record<string, unknown>): Promise<{ org_id: string }> {
  const name = field(body, "name", (v): v is string => typeof v === "string" && v.length > 0 && v.length <= 200, "a non-empty string");
  const onLapse = onLapseOf(body.on_licence_lapse ?? "reads_only");
  return callObject(env.DIRECTORY, DIRECTORY_NAME, "create_org", { name, on_licence_lapse: onLapse });
}

async function createLicence(env: Env, body: Record<string, unknown>): Promise<{ licence_id: string; org_id: string; plan: string; expires_at: string }> {
  const org_id = field(body, "org_id", matches(ORG_ID), "an organisation id (`org_…`)");
  const plan = field(body, "plan", isPlanName, "`free`, `paid` or `enterprise`");
  const days = body.days ?? 365;
  if (typeof days !== "number" || !Number.isSafeInteger(days) || days < 1 || days > 3660) throw bad("`days` must be a whole number of days, 1 to 3660", "/days");
  const org = await callObject<{ on_licence_lapse: string }>(env.DIRECTORY, DIRECTORY_NAME, "get_org", { org_id });
  const onLapse = onLapseOf(body.on_licence_lapse ?? org.on_licence_lapse);
  const licence_id = randomId("lic");
  const starts = new Date();
  const expires_at = new Date(starts.getTime() + days * DAY_MS).toISOString();
  await callObject(env.DIRECTORY, DIRECTORY_NAME, "add_licence", { licence_id, org_id, plan });
  await callObject(env.LICENCES, licence_id, "init", { licence_id, org_id, plan, on_licence_lapse: onLapse, starts_at: starts.toISOString(), expires_at });
  return { licence_id, org_id, plan, expires_at };
}

async function createKey(env: Env, body: Record<string, unknown>): Promise<{ api_key: string; prefix: string }> {
  const org_id = field(body, "org_id", matches(ORG_ID), "an organisation id (`org_…`)");
  const licence_id = field(body, "licence_id", matches(LICENCE_ID), "a licence id (`lic_…`)");
  const label = typeof body.label === "string" ? body.label.slice(0, 100) : "api key";
  return callObject(env.DIRECTORY, DIRECTORY_NAME, "create_key", { org_id, licence_id, label, live: body.live === true });
}
