/** The client's home (licence + state): `home` option, else $STALWART_HOME, else ~/.stalwart. */
import { chmodSync, existsSync, linkSync, mkdirSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { readRegular } from "./regular-file.js";
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
/** The key's fingerprint, beside it (checkKeyRecord below). */
export const KEY_RECORD = "history.key.id";

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
  const key = readKey(file);
  checkKeyRecord(home, file, key);
  return key;
}

/**
 * The home's record of its key (`history.key.id`: the fingerprint, `keyId`), written beside the
 * key once it is in place, so another valid key put in the file's place is KeyChanged in every
 * home, not only one whose store recorded it: approvals live outside the store. A home whose
 * key was made before the record was kept records the key in use then, as the store does.
 */
function checkKeyRecord(home: string, file: string, key: Uint8Array): void {
  const record = join(home, KEY_RECORD);
  const id = keyId(key);
  // Linked into place whole: of processes starting together, every one read the same key (it
  // was linked whole too), so whichever records first records what the others would.
  let recorded = readKeyRecord(record);
  if (recorded === undefined) {
    try {
      writeWhole(record, `${id}\n`, false);
    } catch (err) {
      // a home this user may read but not write (as before the record was kept): nothing to compare here
      if (["EACCES", "EPERM", "EROFS"].includes((err as NodeJS.ErrnoException).code ?? "")) return;
      throw err;
    }
    recorded = readKeyRecord(record);
  }
  if (recorded !== id) {
    throw new StalwartError("KeyChanged", `the history key \`${file}\` is not the key this home recorded (\`${record}\`): it was replaced, or deleted and made anew`, { hint: KEY_CHANGED_HINT });
  }
}

/** The recorded fingerprint; undefined when there is none yet. */
export function readKeyRecord(record: string): string | undefined {
  let text: string;
  try {
    text = readRegular(record).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new StalwartError("KeyUnreadable", `the record of the history key \`${record}\` cannot be read (${(err as Error).message})`, { hint: "give this user read access to it, or restore it from a backup", cause: err });
  }
  if (!/^[0-9a-f]{32}$/.test(text)) {
    throw new StalwartError("KeyUnreadable", `the record of the history key \`${record}\` is not a key fingerprint (32 hex digits)`, { hint: "restore it from a backup; deleted, it records whatever key history.key holds at the next use" });
  }
  return text;
}

/** `stalwart key reset`: the home now belongs to the key `id`. */
export function recordKey(home: string, id: string): void {
  writeWhole(join(home, KEY_RECORD), `${id}\n`, true);
}

/** Make the key file: written whole under a private name, then linked into place. */
export function createKey(home: string, file: string): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  // A process starting beside this one sees no key or the whole key, never an empty file, and
  // only one key ever wins.
  writeWhole(file, randomBytes(32).toString("hex") + "\n", false);
  chmodSync(file, 0o600);
}

/** `text` in `file`, written under a private name first: linked (the first one stays), or renamed over (`replace`). */
function writeWhole(file: string, text: string, replace: boolean): void {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(tmp, text, { flag: "wx", mode: 0o600 });
  if (replace) {
    renameSync(tmp, file);
    return;
  }
  try {
    linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  } finally {
    unlinkSync(tmp);
  }
}

export function readKey(file: string): Uint8Array {
  let hex: string;
  try {
    hex = readRegular(file).trim();
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
 * spent tokens) or its witness, an approval (signed receipts), or the key's record. Not the
 * licence or the catalogue copies, which no key touches.
 */
export function keyedState(home: string): string | undefined {
  // the key's own record too: a key was made here, and what it signed may be anywhere
  for (const f of ["state.mdb", "state.witness", KEY_RECORD]) if (existsSync(join(home, f))) return join(home, f);
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

/** The key's fingerprint, recorded beside it and in the store (STORAGE.md): names the key without revealing it. */
export function keyId(key: Uint8Array): string {
  return createHmac("sha256", key).update("stalwart history key id v1").digest("hex").slice(0, 32);
}
