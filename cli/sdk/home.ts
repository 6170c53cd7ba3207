/** The client's home (licence + state): `home` option, else $STALWART_HOME, else ~/.stalwart. */
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, readdirSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { createHmac, randomBytes } from "node:crypto";
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

export const KEY_FILE = "history.key";

/** How to get past KeyChanged: the old key back, or a new one on purpose. */
export const KEY_CHANGED_HINT =
  "restore the old history.key from a backup to continue; or start over with `stalwart key reset`, after which every saved session, confirmation token and pending approval made under the old key is refused";

/**
 * The installation's history key: 32 random bytes created on first use, readable by the owner
 * only. Every history and confirmation token this machine signs depends on it. A home already
 * holding state made under a key never gets a new one here (KeyChanged): that would make every
 * saved session read as another installation's. `stalwart key reset` makes one on purpose.
 */
export function installationKey(home: string): Uint8Array {
  const file = join(home, KEY_FILE);
  if (!existsSync(file)) {
    const held = keyedState(home);
    // A process beside this one makes the key before any state (the store binds it: client.ts),
    // so state seen here with the key still missing was made under a key that is gone.
    if (held && !existsSync(file)) {
      throw new StalwartError("KeyChanged", `the history key \`${file}\` is missing, and the home holds state made under it (\`${held}\`); a new key would make every saved session invalid`, { hint: KEY_CHANGED_HINT });
    }
    createKey(home, file);
  }
  return readKey(file);
}

/** Make the key file: written whole under a private name, then linked into place. */
export function createKey(home: string, file: string): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  // A process starting beside this one sees no key or the whole key, never an empty file, and
  // only one key ever wins.
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

export function readKey(file: string): Uint8Array {
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

/**
 * What the home holds that was made under its key, if anything: the store (session heads and
 * spent tokens) or its witness, or an approval (signed receipts). Not the licence or the
 * catalogue copies, which no key touches.
 */
export function keyedState(home: string): string | undefined {
  for (const f of ["state.mdb", "state.witness"]) if (existsSync(join(home, f))) return join(home, f);
  // a file under approvals/ (pending/, receipts/): folders alone hold nothing signed
  for (const sub of ["pending", "receipts"]) {
    const dir = join(home, "approvals", sub);
    try {
      if (readdirSync(dir).length > 0) return dir;
    } catch (err) {
      // one this user cannot read may hold approvals: no new key over it either
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") return dir;
    }
  }
  return undefined;
}

/** The key's fingerprint, recorded in the store (STORAGE.md): names the key without revealing it. */
export function keyId(key: Uint8Array): string {
  return createHmac("sha256", key).update("stalwart history key id v1").digest("hex").slice(0, 32);
}
