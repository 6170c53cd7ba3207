/** What the engine's Session is built with, and what its `read` answers (session.ts). */
import type { Language } from "./catalogue/types.js";
import type { NamedStep } from "./check/orchestrator.js";
import type { CompiledRulebook } from "./rulebook/types.js";

/** What the engine's session is built with (the SDK's public `SessionOptions`, cli/sdk/client.ts, resolve to these). */
export interface EngineSessionOptions {
  language?: Language;
  context?: Record<string, unknown>;
  agent?: string;
  /** steps 2–13 to run (default: all of checks.md) */
  steps?: readonly NamedStep[];
  /** `model` arguments written after anything untrusted was read carry its label (checks.md) */
  taintModelAfterUntrusted?: boolean;
  /** the compiled rulebook step 8 reads */
  rulebook?: CompiledRulebook;
}

/** What `read` answers: the turn's step, and why the history started anew when it did. */
export interface ReadAnswer {
  step: number;
  restarted?: { why: string };
}
