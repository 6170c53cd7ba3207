/**
 * A guarded agent run as another agent's tool (`asTool`) whose nested run stops for a person's
 * approval. Agents JS then answers the outer call with `''` (or what `customOutputExtractor`
 * makes of the interrupted run), keeps the nested run's state in the outer run's `RunState`, and
 * on resume invokes the outer call again with it. That first answer is not the call's result: the
 * guard around the outer tool must neither report it nor forget its check, so that the resumed
 * call is the same call, checked once and reported once when it has run.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** Within a nested run: whether anything in it asked a person (a guarded `needsApproval` said yes). */
const asking = new AsyncLocalStorage<{ asked: boolean }>();

/** The outer tool calls (the framework's tool call objects) whose nested run waits for a person. */
const waiting = new WeakSet<object>();

/**
 * Agent tools a guarded agent made, each with a way to make another of the same agent and options:
 * a guarded copy must be one the framework made, since a saved `RunState` finds the nested agent
 * by the tool object (`RunState.fromString` could not restore a nested approval otherwise).
 */
const twins = new WeakMap<object, () => object>();

/** A guarded `needsApproval` said yes: the run it is in stops for a person. */
export function asked(): void {
  const s = asking.getStore();
  if (s) s.asked = true;
}

/**
 * Run a nested agent run for the outer call `toolCall`, noting whether it stopped for a person:
 * something in it asked, and the answer is what the framework gives an interrupted run (`''`,
 * unless the host's `customOutputExtractor` words it).
 */
export async function nestedRun<T>(toolCall: object | undefined, extracted: boolean, go: () => Promise<T>): Promise<T> {
  const s = { asked: false };
  if (toolCall) waiting.delete(toolCall);
  const out = await asking.run(s, go);
  if (s.asked && toolCall && (extracted || out === "")) waiting.add(toolCall);
  return out;
}

/** Did this outer call's nested run stop for a person? (then the call has not run yet; it resumes) */
export function waitsForPerson(toolCall: object | undefined): boolean {
  if (!toolCall || !waiting.has(toolCall)) return false;
  waiting.delete(toolCall);
  asked(); // a run this call is nested in stops for the person too
  return true;
}

/** Was this tool made by a guarded agent's `asTool` (an agent tool whose nested run we watch)? */
export function isGuardedAgentTool(t: object): boolean {
  return twins.has(t);
}

export function rememberTwin(agentTool: object, make: () => object): void {
  twins.set(agentTool, make);
}

/** A new object to copy a tool onto: a framework-made twin for an agent tool a guarded agent made. */
export function baseFor(t: object): object {
  const make = twins.get(t);
  if (!make) return Object.create(Object.getPrototypeOf(t) as object | null) as object;
  const twin = make();
  twins.set(twin, make); // guarded again (another guard around the same tool), it still restores
  return twin;
}
