/**
 * A scripted model for the AI SDK's real loops (`generateText`, `streamText`): each model call
 * takes the next step of the script — tool calls, or a closing text — through the SDK's own
 * test model. Works for `ai` 7 (`MockLanguageModelV4`) and 6 (`MockLanguageModelV3`): the two
 * specifications agree on everything used here.
 */
export interface ScriptedCall {
  id: string;
  tool: string;
  input: Record<string, unknown>;
}
export type Step = ScriptedCall[] | string;

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

function content(step: Step) {
  if (typeof step === "string") return { content: [{ type: "text" as const, text: step }], finishReason: { unified: "stop" as const, raw: undefined } };
  return {
    content: step.map((c) => ({ type: "tool-call" as const, toolCallId: c.id, toolName: c.tool, input: JSON.stringify(c.input) })),
    finishReason: { unified: "tool-calls" as const, raw: undefined },
  };
}

/** The options for the SDK's mock model: `doGenerate` and `doStream` over one script. */
export function script(steps: Step[]) {
  let i = 0;
  const next = () => {
    const s = steps[i++];
    if (s === undefined) throw new Error(`the model was called ${i} times; the script has ${steps.length} steps`);
    return content(s);
  };
  return {
    doGenerate: async () => ({ ...next(), usage, warnings: [] }),
    doStream: async () => {
      const { content: parts, finishReason } = next();
      const chunks: unknown[] = [{ type: "stream-start", warnings: [] }];
      for (const p of parts) {
        if (p.type === "text") chunks.push({ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: p.text }, { type: "text-end", id: "t" });
        else chunks.push(p);
      }
      chunks.push({ type: "finish", finishReason, usage });
      return {
        stream: new ReadableStream({
          start(c) {
            for (const x of chunks) c.enqueue(x);
            c.close();
          },
        }),
      };
    },
    /** how many steps the model has taken */
    get taken() {
      return i;
    },
  };
}
