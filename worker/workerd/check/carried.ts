/**
 * The two forms a request carries its session in (docs/http.md, "The caller carries the session"):
 *
 * - in full: every entry; the answer returns the whole next session;
 * - the delta form, `since: k`: the first k entries are left out — the ones an earlier answer of
 *   this isolate returned, which it still holds, verified (verified-heads.ts). The worker puts them
 *   back from what it holds, verifies only what follows, and answers with only the entries from k
 *   on (and `since: k`); the caller appends them to what it has, so it still holds the whole signed
 *   history, and a request's cost does not grow with the session's length.
 *
 * An isolate that does not hold those k entries (another isolate, a restart, evicted) answers 409
 * `session_history_needed`: the caller sends the session in full once and is in the delta form
 * again from that answer on (cli/sdk/remote.ts does this by itself).
 *
 * Limit: a session is at most `maxBytes` (the 1 MiB body limit) in its full form, in either form:
 * a delta request for a session that grew past it, or whose full form would be over it, is
 * refused 413 `body_too_large`, as the same request sent in full is — it could not be sent in
 * full on a miss.
 */
import { knownThen, type KnownPrefix, type SealedHeader, type Session } from "../../portable/engine/index.js";
import { HttpError } from "../http/errors.js";
import type { SessionShape } from "./session-shape.js";
import type { HeldPrefix } from "./verified-heads.js";

/**
 * Sent with every answer that carries a session: this worker takes the delta form. A client sends
 * `since` only to a worker that said so (cli/sdk/remote.ts) — an older worker would read the
 * delta form as a cut history, answer `history_invalid` and restart the session.
 */
export const SESSION_FORMS_HEADER = "stalwart-session-forms";
export const SESSION_FORMS = "full, delta";

/** 1 MiB: a tool call's arguments and a session's history fit easily; anything larger is refused. */
export const MAX_BODY_BYTES = 1 << 20;

/** The session of an answer, serialised, the size of its full form, and its header with the seal made for it. */
export interface SessionAnswer {
  text: string;
  bytes: number;
  sealed: SealedHeader;
  /** the answer's head seal when it covers exactly the verified prefix (what the isolate keeps: verified-heads.ts) */
  head?: string;
}

/** A carried session with every entry (the delta form's put back). */
export interface FullSession extends Record<string, unknown> {
  catalogue: string;
  rulebook?: string | null;
  entries: readonly unknown[];
}

/**
 * The session as it is with every entry: the delta form's first entries put back from `held`.
 * `bodyBytes`: the request's size; with the entries left out it is what the request weighs in full.
 */
export function expand(saved: SessionShape, held: HeldPrefix | undefined, maxBytes: number, bodyBytes: number): FullSession {
  const since = saved.since;
  if (since === undefined) return saved;
  if (!held || held.count < since) {
    throw new HttpError(
      "session_history_needed",
      `this worker does not hold the first ${since} entries of the session; send it in full (without \`since\`)`,
      "/session/since",
      "another isolate answered it last, or it was evicted: the full session is verified once and `since` works again from that answer on",
    );
  }
  if (held.bytes > maxBytes) {
    throw new HttpError("body_too_large", `the session is over ${maxBytes} bytes in full (about ${held.bytes}); start a new one`, "/session");
  }
  const { since: _since, ...rest } = saved;
  // refused as the same request in full is, before anything is recorded: answered, it would be a
  // session over the limit that no later request could carry (outside audit 14, F2). In full it
  // weighs what was sent and the entries left out: the held session less its header, seal and head.
  const full = bodyBytes + held.bytes - JSON.stringify({ ...rest, entries: [] }).length;
  if (full > maxBytes) {
    throw new HttpError("body_too_large", `this request is over ${maxBytes} bytes in full (about ${full}); the session is unchanged`, "/session");
  }
  // the held entries are not copied: the engine verifies only what follows them (history/signed.ts)
  return { ...rest, entries: knownThen(held.entries, since, saved.entries) };
}

/**
 * The next session for the answer: from `since` on when the request used the delta form and the
 * history still starts with the entries left out (it does unless it was restarted at step 0 after
 * `history_invalid`), else in full.
 */
export function answerOf(s: Session, saved: SessionShape | undefined, held: HeldPrefix | undefined, prefix: KnownPrefix | null): SessionAnswer {
  const { header, entries, seal, head } = s.savedParts();
  const sealed = { header, seal };
  const covers = prefix !== null && entries.length === prefix.count;
  const since = saved?.since;
  if (since !== undefined && held && prefix && prefix.count >= since && prefix.entries[since - 1] === held.entries[since - 1]) {
    // the new entries serialised once, for the text and its weight: the text is
    // JSON.stringify({ ...header, entries: delta, seal, head, since }), savedOf's keys in their order (header, entries, seal, head)
    const delta = JSON.stringify(entries.slice(since));
    const h = JSON.stringify(header);
    // what the full form weighs: as the caller last sent or got it, plus the new entries (+1 comma −2 brackets)
    const bytes = held.bytes + delta.length - 1;
    return { text: `${h.slice(0, -1)},"entries":${delta},"seal":${JSON.stringify(seal)},"head":${JSON.stringify(head)},"since":${since}}`, bytes, sealed, ...(covers ? { head } : {}) };
  }
  // savedOf's object, keys in its order (header, entries, seal, head)
  const text = JSON.stringify({ ...header, entries, seal, head });
  return { text, bytes: text.length, sealed, ...(covers ? { head } : {}) };
}
