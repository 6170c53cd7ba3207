/** The client's home (licence + state): `home` option, else $STALWART_HOME, else ~/.stalwart. */
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { InputError, StalwartError } from "../../worker/portable/engine/index.js";

/** The home to use; one that exists must be a folder (a file there failed later as an internal EEXIST). */
export function resolveHome(home?: string): string {
  const dir = home ?? process.env.STALWART_HOME ?? join(homedir(), ".stalwart");
  const s = statSync(dir, { throwIfNoEntry: false });
  if (s && !s.isDirectory()) {
    const from = home !== undefined ? "`home` (--home)" : process.env.STALWART_HOME !== undefined ? "$STALWART_HOME" : "the default home";
    throw new InputError(`the home \`${dir}\` is not a folder`, "/home", `${from} must name a folder, or a path where one can be made`);
  }
  return dir;
}

/**
 * The installation's history key: 32 random bytes created on first use, readable by the owner
 * only. Every history and confirmation token this machine signs depends on it.
 */
export function installationKey(home: string): Uint8Array {
  const file = join(home, "history.key");
  if (!existsSync(file)) {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    // Written whole under a private name, then linked into place: a process starting beside this
    // one sees no key or the whole key, never an empty file, and only one key ever wins.
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    writeFileSync(tmp, randomBytes(32).toString("hex") + "\n", { flag: "wx", mode: 0o600 });
    try {
      linkSync(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    } finally {
      unlinkSync(tmp);
    }
    chmodSync(file, 0o600);
  }
  let hex: string;
  try {
    hex = readFileSync(file, "utf8").trim();
  } catch (err) {
    // not this user's to read (EACCES), or not a file: the same typed error as a damaged key
    throw new StalwartError("KeyUnreadable", `the history key in \`${file}\` cannot be read (${(err as Error).message})`, { hint: "give this user read access to it, or restore it from a backup; a new key makes every saved history invalid", cause: err });
  }
  if (!/^[0-9a-f]{64,}$/.test(hex)) {
    throw new StalwartError("KeyUnreadable", `the history key in \`${file}\` is not 32+ bytes of hex`, { hint: "restore it from a backup; a new key makes every saved history invalid" });
  }
  return new Uint8Array(Buffer.from(hex, "hex"));
}
