/**
 * What both adapters do before building a validator: lint the schema (check-schema.ts) and drop
 * the root `$id` / `$schema` annotations, which only change how each library resolves URIs.
 */
import { StalwartError } from "../errors.js";
import { jsonData } from "../canonical/json-data.js";
import { checkSchema, type SchemaProblem } from "./check-schema.js";

/** A schema one of the adapters cannot accept; `problems` says where and why. */
export class InvalidSchema extends StalwartError {
  readonly problems: readonly SchemaProblem[];
  constructor(problems: readonly SchemaProblem[]) {
    const first = problems[0];
    super("InvalidSchema", first ? `${first.pointer || "/"}: ${first.message}` : "invalid schema", first?.hint ? { hint: first.hint } : undefined);
    this.problems = problems;
  }
}

export function prepareSchema(schema: object | boolean): object | boolean {
  const problems = checkSchema(schema);
  if (problems.length > 0) throw new InvalidSchema(problems);
  if (typeof schema === "boolean") return schema;
  // a private copy: validators may annotate their schema (cfworker adds `__absolute_uri__`), and
  // the caller's object may be frozen or shared
  const { $id: _id, $schema: _s, ...rest } = jsonData(schema) as Record<string, unknown>;
  return rest;
}
