/**
 * The home's history key as a process loaded it, and whether it is still the home's. A process
 * that keeps running (an application's client, the gateway, the approvals page) must not go on
 * signing under a key that `stalwart key reset` in another process, or another file put in its
 * place, took from the home: what it signs would verify nowhere, and what the home now holds
 * would not verify under it. It refuses (KeyChanged) rather than take the new key mid-run,
 * because its own state (a session's history, its tokens) was made under the old one: a restart
 * is how it takes the new key (docs/cli.md).
 */
import { statSync, type Stats } from "node:fs";
import { join } from "node:path";
import { StalwartError } from "../../worker/portable/engine/index.js";
import { KEY_FILE, installationKey, keyId, readKey } from "./home.js";

/**
 * A stat younger than this may be shared by a write made just after it (file times are coarse):
 * the file is read instead until its stat is older, as git does (state/file.ts uses the same).
 */
const RACY_MS = 3000;

export class LoadedKey {
  readonly file: string;
  readonly key: Uint8Array;
  /** the key's fingerprint (home.ts `keyId`) */
  readonly id: string;
  /** the key file's stat when it was last seen holding this key, once old enough to trust */
  private settled: Stats | undefined;

  constructor(home: string) {
    this.file = join(home, KEY_FILE);
    // the stat before the read: a change after it shows as another stat at the next check
    const before = statOf(this.file);
    this.key = installationKey(home);
    this.id = keyId(this.key);
    if (before) this.settle(before);
  }

  /**
   * Before each use of the key: KeyChanged when the home's key file no longer holds it. One
   * `stat` while the file is the one last seen; the file is read and its fingerprint compared
   * only when its stat changed (a key written back as it was is not a change).
   */
  check(): void {
    const now = statOf(this.file);
    if (now && this.settled !== undefined && sameStamp(now, this.settled)) return;
    this.settled = undefined;
    if (!now) throw this.changed("it was deleted or moved away");
    // damaged or unreadable now: KeyUnreadable, as a restart would say
    if (keyId(readKey(this.file)) !== this.id) throw this.changed("it holds another key now");
    this.settle(now);
  }

  private settle(s: Stats): void {
    if (Date.now() - Math.max(s.mtimeMs, s.ctimeMs) > RACY_MS) this.settled = s;
  }

  private changed(why: string): StalwartError {
    return new StalwartError(
      "KeyChanged",
      `the history key \`${this.file}\` is no longer the key this process loaded when it started (${why}: \`stalwart key reset\`, or another file put in its place); it signs nothing more under the old key: restart it to run under the home's key as it is now`,
      { hint: "restart this process (the application, `stalwart gateway`, `stalwart approvals serve`); if nobody reset the key on purpose, restore the old history.key from a backup instead" },
    );
  }
}

/** A plain stat (its times in ms with the sub-ms part kept): about half the cost of a bigint one and its string, on every use of the key. */
function statOf(file: string): Stats | undefined {
  return statSync(file, { throwIfNoEntry: false });
}

/** What tells one file content from another without reading it: which file, its size, when it last changed. */
function sameStamp(a: Stats, b: Stats): boolean {
  return a.ino === b.ino && a.dev === b.dev && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}
