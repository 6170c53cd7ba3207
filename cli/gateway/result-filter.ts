/**
 * A read's `filter` (catalogue.md, "Reads: `filter`"), applied by the gateway, which is the host
 * here: of the tool server's result, only the records the filter keeps are passed on to the client,
 * and so to the model. A rule written in the catalogue and not applied would read like protection
 * and be none.
 *
 * The kept result replaces `structuredContent` (when the tool gave one) and the whole `content`,
 * as one text block of its JSON, as MCP has a tool that returns structured content do: another
 * block (the same records as prose, a resource, an image) could carry what the filter drops.
 * A result the filter cannot read (prose, not JSON; a session that cannot filter; an error in the
 * filter) is not passed on at all: the client gets `isError` saying so. The tool did run, so its
 * outcome is still reported `ran`, without a result (`notPassedOn`). Nor is an error result (its
 * text could hold the records the filter drops): the client is told it failed, and it is `failed`.
 */
import { recordable, type CompiledCatalogue } from "../../worker/portable/engine/index.js";
import { resultValue } from "./result-value.js";

/** The part of a session the filter needs (in-process and remote sessions both have it). */
export interface FilteringSession {
  filter?(step: number, result: unknown): Promise<unknown>;
}

/** Results made here in place of one that could not be filtered: reported `ran` without a result. */
const NOT_PASSED_ON = new WeakSet<object>();

export function notPassedOn(result: object): boolean {
  return NOT_PASSED_ON.has(result);
}

/** What of `tool`'s `result` (the call at `step`) the client gets. Never throws. */
export async function passedOn(session: FilteringSession, catalogue: CompiledCatalogue, tool: string, step: number, result: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (!catalogue.tools.get(tool)?.filter) return result;
  // A failed call's result is the tool server's to word: records in its text or its
  // structuredContent would reach the model unfiltered, only because it said "error". So nothing
  // of it is passed on; the call is still reported `failed` (isError).
  if (result.isError === true) return { content: [{ type: "text", text: `${tool} failed (its tool server answered an error); what it returned is not passed on, because the catalogue filters what ${tool} returns` }], isError: true };
  let kept: unknown;
  try {
    const value = resultValue(result);
    // a string or a number holds no list to filter: the filter would pass on an empty one, as if nothing matched
    if (value === null || typeof value !== "object") throw new Error("it is not a JSON object or list: no structuredContent, and not one text block holding one");
    if (!session.filter) throw new Error("this session cannot apply a filter");
    kept = await session.filter(step, recordable(value));
  } catch (err) {
    const refused = {
      content: [{ type: "text", text: `${tool} ran, but its result could not be filtered as the catalogue asks, so it is not passed on: ${(err as Error).message}` }],
      isError: true,
    };
    NOT_PASSED_ON.add(refused);
    return refused;
  }
  return { ...result, ...(result.structuredContent !== undefined ? { structuredContent: kept } : {}), content: [{ type: "text", text: JSON.stringify(kept) }] };
}
