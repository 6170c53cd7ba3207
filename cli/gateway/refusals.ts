/** The gateway's own refusals, before the check (calls.ts): a tool it added itself, a pinned definition the tool server changed. */
import { TOOL_DEFINITION_CHANGED, pinForm, type Pins } from "./pins.js";
import { errorResult, type ToolResult } from "./words.js";

export async function gatewayRefusal(tool: string, hidden: ReadonlySet<string> | undefined, pins: Pins | undefined, log: (line: string) => void): Promise<ToolResult | undefined> {
  if (hidden?.has(tool)) {
    log(`refuse ${tool} unknown_tool`);
    return errorResult(`stalwart refused ${tool}, and it did not run.\nunknown_tool: \`${tool}\` is not a tool of this server`, { decision: "refuse", reasons: ["unknown_tool"], detail: {}, step: -1 });
  }
  const changed = await pins?.verify(tool);
  if (!changed) return undefined;
  const now = changed.found === "missing" ? "the tool server no longer lists it" : changed.found === "unreadable" ? "its definition could not be read" : /^sha256:/.test(changed.found) ? `the tool server has ${changed.found}` : `the tool server lists it ${changed.found === "conflicting" ? "more than once, differently" : `as ${changed.found}`}`;
  log(`refuse ${tool} ${TOOL_DEFINITION_CHANGED}: pinned ${changed.pinned}; ${now}`);
  const what = changed.found === "missing" ? "no longer lists it"
    : changed.found === "conflicting" ? "lists it more than once, differently (which copy it would run is unknown)"
    : changed.found === "unreadable" ? "lists it in a form whose definition cannot be read"
    : pinForm(changed.pinned) === "whole" ? "now describes it otherwise (the tool as it lists it changed: its description, title, schemas, annotations or another field)"
    : "now describes it otherwise (its description or input schema changed)";
  return errorResult(
    `stalwart refused ${tool}, and it did not run.\n${TOOL_DEFINITION_CHANGED}: the catalogue pins this tool's definition, and the tool server ${what}. Review the tool server's new definition, then run \`stalwart gateway init\` again or update the tool's \`pin\` in the catalogue.`,
    { decision: "refuse", reasons: [TOOL_DEFINITION_CHANGED], detail: { pinned: changed.pinned, found: changed.found }, step: -1 },
  );
}
