/**
 * The `session` every session route carries: checked for the shape the worker needs before it
 * looks anything up (the catalogue by digest, the rulebook). The rest — the seal, the head, every
 * entry — is the engine's to verify (Session.resume and the history check).
 */
import { InputError, StalwartError, checkJsonAt, savedShapeProblem } from "../../portable/engine/index.js";
import { isObject } from "../http/body.js";

export interface SessionShape extends Record<string, unknown> {
  catalogue: string;
  entries: Record<string, unknown>[];
  rulebook?: string | null;
  /** the delta form (carried.ts): `entries` are the session's from this index on */
  since?: number;
}

export function sessionOf(body: Record<string, unknown>): SessionShape {
  const saved = Object.hasOwn(body, "session") ? body.session : undefined;
  if (!isObject(saved)) throw new InputError("`session` must be the session object a previous answer returned", "/session");
  const { catalogue, entries, rulebook, since } = saved;
  if (typeof catalogue !== "string") throw invalid("`session.catalogue` must be the catalogue digest", "/session/catalogue");
  if (!Array.isArray(entries) || !entries.every(isObject)) throw invalid("`session.entries` must be a list of entry objects", "/session/entries");
  if (rulebook !== undefined && rulebook !== null && typeof rulebook !== "string") throw invalid("`session.rulebook` must be a digest or null", "/session/rulebook");
  if (since !== undefined && !(Number.isSafeInteger(since) && typeof since === "number" && since >= 0)) throw new InputError("`session.since` must be the number of entries left out (an integer ≥ 0)", "/session/since");
  // every other header field: a wrong type is the caller's mistake, named, not a changed header
  const problem = savedShapeProblem(saved);
  if (problem) throw new InputError(`\`session.${problem.field}\` must be ${problem.expected}, as the previous answer gave it`, `/session/${problem.field}`);
  // and data no answer gives (1e400 read as Infinity) named where the body holds it
  if (isObject(saved.context)) checkJsonAt(saved.context, "session", "context");
  // The body's own object (parsed for this request, held by nobody else), its fields now checked; a
  // `since` of 0 is the full form, and is dropped (carried.ts reads any `since` as the delta form).
  if (since !== 0) return saved as SessionShape;
  const { since: _since, ...rest } = saved;
  return rest as SessionShape;
}

const invalid = (message: string, pointer: string) => new StalwartError("SessionSealInvalid", message, { pointer });
