/**
 * `stalwart key reset`: a new history key for a home, on purpose. Every saved session,
 * confirmation token and pending approval made under the old key is refused from then on (the
 * home's record and the store take the new key's fingerprint); the old key file is moved aside,
 * kept for inspection.
 */
import { existsSync, renameSync } from "node:fs";
import { join, resolve } from "node:path";
import { StalwartError } from "../../worker/portable/engine/index.js";
import { KEY_FILE, createKey, keyId, readKey, recordKey } from "./home.js";
import { keyHealth } from "./key-health.js";
import { closeState, nodeState } from "./state/index.js";
import { rebindKey } from "./state/key-bind.js";

export interface KeyResetResult {
  home: string;
  file: string;
  /** what was wrong with the key it replaced ("fine; reset with --force" when nothing) */
  was: string;
  /** the old key file, moved aside (none when it was missing) */
  aside: string[];
  /** the new key's fingerprint, as the store records it */
  id: string;
}

/** What is wrong with the home's key, if anything ("none yet" when the home has not made one). */
export function keyProblem(home: string): string | undefined {
  const h = keyHealth(home);
  if (!h.ok) return h.message;
  return h.id === null ? "none yet" : undefined;
}

export function resetKey(home: string, opts: { force?: boolean } = {}): KeyResetResult {
  const dir = resolve(home);
  const file = join(dir, KEY_FILE);
  const problem = keyProblem(dir);
  if (problem === undefined && !opts.force) {
    throw new StalwartError("KeyHealthy", `the history key \`${file}\` is fine: it reads, and no state in the home was made under another key; a new key makes every saved session, confirmation token and pending approval made under this one refused`, { hint: "pass --force to replace it all the same (the old key is kept aside)" });
  }
  // The store must take the new key's fingerprint: one that cannot (damaged) stops the reset before the key moves.
  const state = existsSync(join(dir, "state.mdb")) ? nodeState(dir) : undefined;
  try {
    state?.file.run(() => undefined);
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const aside: string[] = [];
    if (existsSync(file)) {
      renameSync(file, `${file}.reset-${stamp}`);
      aside.push(`${file}.reset-${stamp}`);
    }
    createKey(dir, file);
    const id = keyId(readKey(file));
    // the home's record, then the store's: a process starting meanwhile is refused, never bound to the old key
    recordKey(dir, id);
    if (state) rebindKey(state.file, id);
    return { home: dir, file, was: problem ?? "fine; reset with --force", aside, id };
  } finally {
    if (state) closeState(dir);
  }
}
