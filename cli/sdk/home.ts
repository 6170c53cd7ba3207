/** The client's home (licence + state): `home` option, else $STALWART_HOME, else ~/.stalwart. */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { StalwartError } from "../../worker/portable/engine/index.js";

export function resolveHome(home?: string): string {
  return home ?? process.env.STALWART_HOME ?? join(homedir(), ".stalwart");
}

/**
 * The installation's history key: 32 random bytes created on first use, readable by the owner
 * only. Every history and confirmation token this machine signs depends on it.
 */
export function installationKey(home: string): Uint8Array {
  const file = join(home, "history.key");
  if (!existsSync(file)) {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    try {
      writeFileSync(file, randomBytes(32).toString("hex") + "\n", { flag: "wx", mode: 0o600 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    chmodSync(file, 0o600);
  }
  const hex = readFileSync(file, "utf8").trim();
  if (!/^[0-9a-f]{64,}$/.test(hex)) {
    throw new StalwartError("KeyUnreadable", `the history key in \`${file}\` is not 32+ bytes of hex`, { hint: "restore it from a backup; a new key makes every saved history invalid" });
  }
  return new Uint8Array(Buffer.from(hex, "hex"));
}
