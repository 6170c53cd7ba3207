/** A tool's declared class (checks.md: declared, not inferred). */
import type { CompiledTool } from "../../catalogue/types.js";

/** `irreversible` and `money` describe writes; a tool marked so is a write even without `writes`. */
export function isWrite(tool: CompiledTool): boolean {
  return tool.writes || tool.irreversible || tool.money;
}
