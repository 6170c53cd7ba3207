/**
 * What a session was started with that its public API does not carry — the compiled catalogue,
 * the language and the context — kept beside each session `Client` hands out, so that an adapter
 * (cli/adapters/) can infer argument origins from `guard(tools, session)` alone, without the host
 * passing the catalogue a second time.
 */
import type { CompiledCatalogue, FollowedView, Language } from "../../worker/portable/engine/index.js";

export interface SessionInfo {
  /** compiled on first use (a remote session's catalogue is compiled here only if an adapter asks) */
  catalogue(): CompiledCatalogue;
  language: Language;
  context: Readonly<Record<string, unknown>>;
  /**
   * An in-process session's own inference view, kept as its history grows (engine
   * origins/follow.ts): an adapter reads it instead of the history (absent for a remote session).
   */
  inference?: () => FollowedView;
}

const infos = new WeakMap<object, SessionInfo>();

export function describeSession<T extends object>(session: T, info: SessionInfo): T {
  infos.set(session, info);
  return session;
}

/** The session's catalogue, language and context, when `Client` made it. */
export function sessionInfo(session: object): SessionInfo | undefined {
  return infos.get(session);
}
