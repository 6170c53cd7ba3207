/**
 * The `requestState`s the gateway gives 2026-07-28 clients with a question (calls.ts): each is
 * the check's token, with the person's edited arguments when they changed the call (form.ts).
 * A state is used whole or not at all, and each answer once:
 *
 *   - a tail that does not verify is not ours (outside audit 9, F1);
 *   - a state given with a tail and sent back without it is not ours either: read as the bare
 *     token it was an answer to the call as the client sends it, asked again, and its use spent
 *     the person's real answer, which then came back "already used" (outside audit 15, F2). Only
 *     memory tells the two apart, so the tokens given with a tail are remembered, as the
 *     answered ones are;
 *   - an answer is remembered by its token's digest, whatever state carried it (audit 9, F1): a
 *     token is the client's to size (up to a request's 4 MB).
 */
import { createHash, randomBytes } from "node:crypto";
import { BoundedCache } from "../../worker/portable/engine/index.js";
import { packState, unpackState } from "./form.js";

/** How many tokens the gateway remembers of each kind, by digest (the token is spent once anyway). */
const REMEMBERED = 10_000;

export type ReadState = { token: string; args?: Record<string, unknown>; seen: string; reasons: readonly string[] } | { unreadable: string };

export class RequestStates {
  /** signs the carried arguments; a restart forgets it, as it forgets the session */
  private readonly key = randomBytes(32);
  private readonly answered = new BoundedCache<string, true>(REMEMBERED);
  private readonly tailed = new BoundedCache<string, true>(REMEMBERED);
  /** what the person was asked about, by token: said again with an answer that runs nothing */
  private readonly reasons = new BoundedCache<string, readonly string[]>(REMEMBERED);

  /** The state for a question about the call of `token`, asked for `reasons`; `edited`: the person's arguments it carries. */
  mint(token: string, reasons: readonly string[], edited?: Record<string, unknown>): string {
    if (edited) this.tailed.set(digestOf(token), true);
    this.reasons.set(digestOf(token), [...reasons]);
    return packState(this.key, token, edited);
  }

  /** The token and carried arguments of a state this gateway gave whole; else why it is not one. */
  read(state: string): ReadState {
    const unpacked = unpackState(this.key, state);
    if (!unpacked) return { unreadable: "what it carries does not verify" };
    const seen = digestOf(unpacked.token);
    if (!unpacked.args && this.tailed.get(seen)) return { unreadable: "it was given with a `~…` tail, and came back without it" };
    return { ...unpacked, seen, reasons: this.reasons.get(seen) ?? [] };
  }

  /** Whether an answer to this token was already used. */
  used(seen: string): boolean {
    return this.answered.get(seen) === true;
  }

  use(seen: string): void {
    this.answered.set(seen, true);
  }

  /** The answer decided nothing after all (another call than the one asked about): it stays good for that one. */
  release(seen: string): void {
    this.answered.delete(seen);
  }
}

function digestOf(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}
