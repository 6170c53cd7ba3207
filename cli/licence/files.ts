/**
 * Where the installation lives: `<home>/licence/` (home = the `home` option, else $STALWART_HOME,
 * else ~/.stalwart). Files are written atomically (temp + rename) and readable by the owner only:
 * installation.json holds the installation's private key.
 */
import { chmodSync, existsSync, mkdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { StalwartError } from "../../worker/portable/engine/index.js";
import { readRegular } from "../sdk/regular-file.js";

export function resolveHome(home?: string): string {
  return home ?? process.env.STALWART_HOME ?? join(homedir(), ".stalwart");
}

export interface LicencePaths {
  home: string;
  dir: string;
  installation: string;
  counters: string;
  witness: string;
  pending: string;
  /** the last failure to write the meters, recorded where possible (doctor reads it) */
  meterFailure: string;
  bundles: string;
  devApiKey: string;
}

export function licencePaths(home?: string): LicencePaths {
  const h = resolveHome(home);
  const dir = join(h, "licence");
  return {
    home: h,
    dir,
    installation: join(dir, "installation.json"),
    counters: join(dir, "counters.json"),
    witness: join(dir, "counters.witness.json"),
    pending: join(dir, "pending-activation.json"),
    meterFailure: join(dir, "meter-failure.json"),
    bundles: join(dir, "bundles"),
    devApiKey: join(dir, "dev-api-key"),
  };
}

/** The text of a file under the licence folder, undefined when there is none; `LicenceFileUnreadable` naming it when it cannot be read. */
export function readText(file: string): string | undefined {
  if (!existsSync(file)) {
    // its folder replaced by a file: damage to name, not a home that was never activated
    const dir = dirname(file);
    let why: string | undefined;
    try {
      const held = statSync(dir, { throwIfNoEntry: false });
      if (held && !held.isDirectory()) why = "is not a folder";
    } catch (err) {
      why = `cannot be looked at (${(err as Error).message})`; // e.g. ENOTDIR: the home itself is a file
    }
    if (why === undefined) return undefined;
    throw new StalwartError("LicenceFileUnreadable", `\`${dir}\` ${why}, so \`${basename(file)}\` cannot be read from it`, {
      hint: "move what is in its place aside and restore the folder from a backup (or `stalwart licence activate` again)",
    });
  }
  try {
    return readRegular(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined; // removed since the look
    // not a regular file (a directory, a pipe), or not this user's to read: typed, naming it
    throw new StalwartError("LicenceFileUnreadable", `\`${file}\` cannot be read (${(err as Error).message})`, {
      hint: "give this user read access to it, or remove what is in its place and restore the file from a backup (for installation.json, `stalwart licence activate` again)",
      cause: err,
    });
  }
}

export function readJson<T>(file: string): T | undefined {
  const text = readText(file);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    // JSON.parse quotes the text it choked on: control bytes (a zeroed file's NULs) shown escaped, not sent to the terminal
    const said = (err as Error).message.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
    throw new StalwartError("LicenceFileUnreadable", `\`${file}\` is not JSON: ${said}`, {
      hint: "restore it from a backup, or remove it and run `stalwart licence activate` again",
    });
  }
}

export function writeJsonAtomic(file: string, value: unknown): void {
  writeFileAtomic(file, JSON.stringify(value, null, 2) + "\n");
}

/** Write `file` whole under a private name, then rename it into place: a reader never sees part of it. */
export function writeFileAtomic(file: string, content: string | Uint8Array): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, content, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}
