/**
 * A read's `filter` (catalogue.md, "Reads: `filter`"), applied by the adapters, which are the host
 * here: of what a guarded tool returned, only the records the filter keeps reach the framework, and
 * so the model (as `stalwart gateway` does, cli/gateway/result-filter.ts). What the filter cannot
 * read (not JSON data, a session that cannot filter, an error in it) is withheld whole: the model
 * reads why instead. The tool did run, so its call is still reported `ran`, without a result.
 */
import { recordable, type CompiledCatalogue } from "../../worker/portable/engine/index.js";
import { message, plainCopy } from "./data.js";

/** What of a result is passed on: the value (filtered when the tool has a filter), or why nothing is. */
export type PassedOn = { value: unknown } | { withheld: string };

export interface FilteringSession {
  filter?(step: number, result: unknown): Promise<unknown>;
}

/** Whether `tool` has a filter; true when the catalogue cannot say (so nothing is passed on unread). */
export function filters(catalogue: () => CompiledCatalogue, tool: string | undefined): boolean {
  try {
    return tool === undefined || catalogue().tools.get(tool)?.filter !== undefined;
  } catch {
    return true;
  }
}

/** `result` of `tool` (the call at `step`) as it may be passed on. Never throws. */
export async function passOn(session: FilteringSession, catalogue: () => CompiledCatalogue, tool: string | undefined, step: number, result: unknown): Promise<PassedOn> {
  if (tool !== undefined && !filters(catalogue, tool)) return { value: result };
  try {
    if (tool === undefined) throw new Error("which tool it was is no longer known");
    const copy = plainCopy(result, 0);
    // a string or a number holds no list to filter: the filter would pass on an empty one, as if nothing matched
    if (copy === null || typeof copy !== "object") throw new Error("it is not a JSON object or list");
    if (!session.filter) throw new Error("this session cannot apply a filter");
    return { value: await session.filter(step, recordable(copy)) };
  } catch (err) {
    return { withheld: `${tool ?? "the tool"} ran, but its result could not be filtered as the catalogue asks, so it is not passed on: ${message(err)}` };
  }
}
