// A scripted model for the AI SDK's mock (`MockLanguageModelV4` from `ai/test`): each call of the
// model takes the next step — a list of tool calls, or the closing text.
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } };

export function scriptedModel(steps) {
  let i = 0;
  return {
    doGenerate: async () => {
      const step = steps[i++];
      if (step === undefined) throw new Error("the script has no more steps");
      if (typeof step === "string") return { content: [{ type: "text", text: step }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
      const content = step.map((c) => ({ type: "tool-call", toolCallId: c.id, toolName: c.tool, input: JSON.stringify(c.input) }));
      return { content, finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] };
    },
  };
}
