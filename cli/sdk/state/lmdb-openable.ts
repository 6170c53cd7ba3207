/**
 * Whether LMDB may open an environment's files. When lmdb@3.5.6's native open fails on the lock
 * file, the process dies (SIGSEGV) instead of getting an error: `mdb_env_open` fails (EACCES at
 * mode 000, EISDIR on a directory, a pipe …) and lmdb-js's error path (`EnvWrap::openEnv` →
 * `closeEnv`, env.cpp) frees an environment it never made (a fault in `~ExtendedEnv`, seen under
 * gdb with `state.mdb-lock` a directory). So before every opening each of its two files that is
 * there must be a regular file this user may read and write; anything else is a typed error
 * naming it, in the code of whoever opens it (the store's, or the licence's for its counts' gate).
 */
import { accessSync, constants, lstatSync, statSync, type Stats } from "node:fs";
import { StalwartError } from "../../../worker/portable/engine/index.js";

/** The typed error of a file that cannot be read: the store's or the licence's (docs/sdk.md "Errors"). */
export type UnreadableCode = "SessionStateUnreadable" | "LicenceFileUnreadable";

/** A file LMDB cannot be let open; `where` names it. */
export class UnopenableFile extends StalwartError {
  readonly where: string;
  constructor(code: UnreadableCode, where: string, why: string, hint: string, cause?: unknown) {
    super(code, `\`${where}\` cannot be opened: ${why}`, { hint, cause });
    this.where = where;
  }
}

/** What to do with a lock or gate file that is not a file: they hold nothing, the next opening makes them anew. */
export function removeHint(file: string, code: UnreadableCode = "SessionStateUnreadable"): string {
  const after = code === "SessionStateUnreadable" ? " (the store needs no reset)" : "";
  return `stop every process that uses this home, then remove \`${file}\`: a lock file or open gate holds nothing, and the next process makes it anew${after}`;
}

function kindOf(s: Stats): string {
  if (s.isDirectory()) return "a directory";
  if (s.isFIFO()) return "a pipe (FIFO)";
  if (s.isSocket()) return "a socket";
  if (s.isCharacterDevice() || s.isBlockDevice()) return "a device";
  return "not a file";
}

/**
 * Why `file` is there but not a regular file (followed through symbolic links), or undefined
 * (a regular file, or nothing there: LMDB creates a missing one).
 */
export function notRegular(file: string): string | undefined {
  const link = lstatSync(file, { throwIfNoEntry: false });
  if (!link) return undefined;
  const s = statSync(file, { throwIfNoEntry: false });
  if (!s) return "it is a symbolic link to nothing";
  if (s.isFile()) return undefined;
  return `it is ${kindOf(s)}${link.isSymbolicLink() ? " (through a symbolic link)" : ""}, not a regular file`;
}

/**
 * Throw `code` naming the file when LMDB may not open the environment at `path`: its data file or
 * its lock file (`<path>-lock`) is there and is not a regular file, or this user may not read and
 * write it. Called before every opening of an environment. (A store's own data file that is not a
 * regular file is damage, found before: file.ts.) What changes between this look and LMDB's open
 * is not seen: the gap is that moment.
 */
export function lmdbOpenable(path: string, code: UnreadableCode = "SessionStateUnreadable"): void {
  for (const file of [path, `${path}-lock`]) {
    const odd = notRegular(file);
    if (odd) throw new UnopenableFile(code, file, odd, removeHint(file, code));
    try {
      accessSync(file, constants.R_OK | constants.W_OK);
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code === "ENOENT") continue; // gone since the look: LMDB makes it
      throw new UnopenableFile(code, file, `this user may not read and write it (${e.message})`, `give this user read and write access to \`${file}\``, err);
    }
  }
}
