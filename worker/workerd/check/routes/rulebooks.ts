/** PUT /v1/rulebooks/{name}: register a rulebook (YAML, a rules spreadsheet as CSV, or a registry's JSON). */
import { Hono } from "hono";
import { limitBody, readText } from "../../http/body.js";
import { describe } from "../../http/openapi.js";
import { rulebookFormatOf } from "../../../portable/engine/index.js";
import type { CheckEnv } from "../env.js";
import { NAME_PATTERN, ok } from "../openapi.js";
import { RULEBOOK, type CheckRuntime } from "../runtime.js";
import { MAX_TEXT_BYTES, YAML_TYPES, nameParam } from "./catalogues.js";

export function rulebookRoutes(rt: CheckRuntime): Hono<CheckEnv> {
  const app = new Hono<CheckEnv>();

  app.put(
    "/rulebooks/:name",
    describe({
      operationId: "putRulebook",
      summary: "register or replace a rulebook (YAML, or a rules spreadsheet as CSV); errors come back as 400 with file:line:column",
      params: { name: { type: "string", pattern: NAME_PATTERN } },
      requestBody: { required: true, content: Object.fromEntries([...YAML_TYPES, "text/csv"].map((t) => [t, { schema: { type: "string" } }])) },
      responses: ok({ type: "object", properties: { name: { type: "string" }, digest: { type: "string" }, rules: { type: "integer" } } }),
    }),
    nameParam("rulebook"),
    limitBody(MAX_TEXT_BYTES, "the rulebook", "split it: one rulebook per flow, or per group of tools"),
    async (c) => {
      const { name } = c.req.valid("param");
      const text = await readText(c, [...YAML_TYPES, "text/csv"], "the rulebook");
      const tenant = c.get("tenant");
      // `text/csv` is a spreadsheet whatever its first column; another type keeps the guess (the
      // name's ending, else a first line `name,…`). Stored with the text, so that a recompile from
      // the store reads it the same way.
      const format = c.req.header("content-type")?.split(";")[0]?.trim().toLowerCase() === "text/csv" ? "csv" : rulebookFormatOf(text, { file: name });
      const rb = rt.rulebooks.fromText(tenant, text, (t) => rt.compileRulebook(t, name, format), format);
      await rt.stores(c).catalogues(tenant).put({ name: `${RULEBOOK}${name}`, digest: rb.digest, yaml: text, format });
      return c.json({ name, digest: rb.digest, rules: rb.rules.length });
    },
  );

  return app;
}
