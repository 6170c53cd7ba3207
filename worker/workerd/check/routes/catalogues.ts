/**
 * PUT /v1/catalogues/{name} and GET /v1/catalogues/{name}: register (lint, compile, store) and
 * read back a tenant's catalogue. A text compiled before is not compiled again (compiled.ts).
 */
import { Hono } from "hono";
import { validator } from "hono/validator";
import { InputError } from "../../../portable/engine/index.js";
import { limitBody, readText } from "../../http/body.js";
import { HttpError } from "../../http/errors.js";
import { describe } from "../../http/openapi.js";
import type { CheckEnv } from "../env.js";
import { NAME_PATTERN, ok } from "../openapi.js";
import type { CheckRuntime } from "../runtime.js";

const NAME = new RegExp(NAME_PATTERN);
export const YAML_TYPES = ["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml", "text/plain", "application/json"] as const;

/**
 * 256 KiB, a catalogue's or a rulebook's text: dozens of times the examples. Reading YAML (or a
 * spreadsheet) costs CPU in proportion to its size, in the isolate every tenant shares: a 900 KB
 * catalogue took seconds there (outside audit 14, F1), a 750 KB rulebook about a second.
 */
export const MAX_TEXT_BYTES = 256 * 1024;

/**
 * A registered name is 1–64 letters, digits, `.`, `_` or `-` (`what`: "catalogue" or "rulebook").
 * Checked wherever a request names one: rulebooks share the store under `rulebook:<name>`, which
 * would otherwise read a rulebook back as a catalogue.
 */
export function registeredName(name: string, what: string, pointer: string): string {
  if (!NAME.test(name)) throw new InputError(`a ${what} name is 1–64 letters, digits, \`.\`, \`_\` or \`-\`, starting with a letter or digit`, pointer);
  return name;
}

/** `:name` is a registered name. */
export const nameParam = (what: string) => validator("param", (p: Record<string, string>) => ({ name: registeredName(p.name ?? "", what, "/name") }));

export function catalogueRoutes(rt: CheckRuntime): Hono<CheckEnv> {
  const app = new Hono<CheckEnv>();

  app.put(
    "/catalogues/:name",
    describe({
      operationId: "putCatalogue",
      summary: "register or replace a catalogue (agent.yaml); lint errors come back as 400 with file:line:column",
      params: { name: { type: "string", pattern: NAME_PATTERN } },
      // every type a YAML text comes under (JSON is YAML; `text/plain` is what a file upload often says)
      requestBody: { required: true, content: Object.fromEntries(YAML_TYPES.map((t) => [t, { schema: { type: "string" } }])) },
      responses: ok({ type: "object", properties: { name: { type: "string" }, digest: { type: "string" }, tools: { type: "array", items: { type: "string" } } } }),
    }),
    nameParam("catalogue"),
    limitBody(MAX_TEXT_BYTES, "the catalogue", "split it: one catalogue per agent, its tools' schemas only as wide as their calls"),
    async (c) => {
      const { name } = c.req.valid("param");
      const yaml = await readText(c, YAML_TYPES, "the catalogue");
      const tenant = c.get("tenant");
      const cat = rt.catalogues.fromText(tenant, yaml, (text) => rt.compileCatalogue(text, name));
      await rt.stores(c).catalogues(tenant).put({ name, digest: cat.digest, yaml });
      return c.json({ name, digest: cat.digest, tools: [...cat.tools.keys()] });
    },
  );

  app.get(
    "/catalogues/:name",
    describe({
      operationId: "getCatalogue",
      summary: "the registered catalogue",
      params: { name: { type: "string", pattern: NAME_PATTERN } },
      responses: ok({ type: "object", properties: { name: { type: "string" }, digest: { type: "string" }, yaml: { type: "string" } } }),
    }),
    // the name checked as PUT checks it: rulebooks share the store under `rulebook:<name>`, which
    // (sent as `rulebook%3A…`) would otherwise read a rulebook back as a catalogue
    nameParam("catalogue"),
    async (c) => {
      const { name } = c.req.valid("param");
      const stored = await rt.stores(c).catalogues(c.get("tenant")).byName(name);
      if (!stored) throw new HttpError("catalogue_not_found", `no catalogue named \`${name}\``);
      return c.json(stored);
    },
  );

  return app;
}
