/**
 * What the gateway's report of an allowed call records of the tool server's result (calls.ts,
 * `forward`): the session keeps only what the tool's `returns` schema declares of it.
 */
import { recordable, StalwartError, type Outcome } from "../../worker/portable/engine/index.js";

/** How a JSON text can begin (RFC 8259: a value after optional whitespace). */
const LOOKS_LIKE_JSON = /^[ \t\n\r]*(?:[[{"\-0-9]|true|false|null)/;

/**
 * What the session records of a result: `structuredContent` when the tool gives one, else one text
 * block that is JSON, else nothing (the `returns` schema keeps only what it declares).
 */
export function resultValue(result: Record<string, unknown>): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const content = result.content;
  if (Array.isArray(content) && content.length === 1) {
    const c = content[0] as { type?: unknown; text?: unknown };
    // most text is not JSON: a failed JSON.parse throws, and a throw per call is not free
    if (c.type === "text" && typeof c.text === "string" && LOOKS_LIKE_JSON.test(c.text)) {
      try {
        return JSON.parse(c.text);
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/**
 * `resultValue` as the gateway reports it, to the session and to the trace: as data a signed history
 * holds (engine canonical/recordable.ts). A lone surrogate in a result (text cut inside an emoji),
 * in a field `returns` declares or not, must not cost the call's report: with it would go the
 * outcome, and the `result:` origin and `untrusted:` label of every value in it. The whole value,
 * not only what `returns` declares: replay may run under a catalogue that declares more.
 */
export function recordedValue(result: Record<string, unknown>): unknown {
  return recordable(resultValue(result));
}

/**
 * The report of a call the gateway saw end; never throws (background bookkeeping). Should the
 * history still refuse its result as data, the outcome is recorded without it, as the adapters do:
 * a call that ran is never left without its outcome.
 */
export async function reportOutcome(session: { report(step: number, outcome: Outcome, result?: unknown): Promise<unknown> }, step: number, outcome: Outcome, result: unknown, log: (line: string) => void): Promise<void> {
  try {
    await session.report(step, outcome, result);
    return;
  } catch (err) {
    if (result === undefined || !(err instanceof StalwartError && err.code === "InputError")) {
      log(`report of step ${step} failed: ${(err as Error).message}`);
      return;
    }
    log(`report of step ${step}: its result is not data the history holds (${err.message}); the outcome is recorded without it`);
  }
  try {
    await session.report(step, outcome);
  } catch (err) {
    log(`report of step ${step} failed: ${(err as Error).message}`);
  }
}
