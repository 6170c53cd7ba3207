/**
 * A look at an LMDB data file before LMDB maps it. LMDB trusts its file: a zero-filled one
 * crashes the process (seen with lmdb@3.5.6: a segmentation fault inside `open`). So the two
 * meta pages are checked here, by hand, on open and before every operation: the magic and version
 * of both. The offsets are those of the lmdb@3.5.6 builds (page header 24 bytes, then the meta);
 * a layout this does not know fails closed (the store reads as damaged). The meta's last page is
 * not compared with the file's size: LMDB counts pages it never wrote, so a valid file can be
 * shorter (seen under four writers). A file truncated to part of its length is not caught here.
 */
import { accessSync, constants, existsSync, readSync } from "node:fs";

/**
 * Throw the file system's own error (EACCES) when this process may not read and write an LMDB
 * environment's data or lock file that exists. lmdb@3.5.6 crashes the process (a segmentation
 * fault inside \`open\`) on a lock file it cannot open, instead of answering an error: seen with
 * \`state.mdb-lock\` and \`state.gate-lock\` made unreadable (mode 000, not as root). Called before
 * every opening of an environment; a missing file is LMDB's to create.
 */
export function lmdbOpenable(path: string): void {
  for (const file of [path, `${path}-lock`]) if (existsSync(file)) accessSync(file, constants.R_OK | constants.W_OK);
}

const MAGIC = 0xbeefc0de;
const VERSION = 2;
const META_AT = 24; // mm_magic, after the page header
const PSIZE_AT = 0x30; // mm_dbs[FREE_DBI].md_pad holds the page size
const HEAD = 0x40;

function isMeta(b: Buffer): boolean {
  return b.readUInt32LE(META_AT) === MAGIC && (b.readUInt32LE(META_AT + 4) & 0xffff) === VERSION;
}

// Read before every operation: one buffer, reused (the reads are synchronous), that holds both
// meta pages' headers of the usual 4 KiB pages in one read.
const BUF = Buffer.alloc(4096 + HEAD);

/**
 * Why `fd` (an LMDB data file of `size` bytes) cannot be opened safely, or undefined when it can.
 * Without `size` (the check before every operation, which spares the `stat`) the read itself
 * says how long the file is: a file cut to 0 reads 0 bytes, one cut inside its meta pages reads
 * short.
 */
export function lmdbFileProblem(fd: number, size?: number): string | undefined {
  if (size === 0) return "it is empty (0 bytes): zeroed or truncated";
  const got = readSync(fd, BUF, 0, BUF.length, 0);
  if (got === 0) return "it is empty (0 bytes): zeroed or truncated";
  if (got < HEAD) return `it is ${size ?? got} bytes, too short for a store`;
  const first = BUF.subarray(0, HEAD);
  const psize = first.readUInt32LE(PSIZE_AT);
  if (!isMeta(first) || psize < 512 || psize > 65536 || (psize & (psize - 1)) !== 0) return "its header is not an LMDB store's (zeroed or overwritten)";
  if (size !== undefined && size < 2 * psize) return `it is ${size} bytes, too short for a store`;
  let second: Buffer;
  if (psize + HEAD <= got) second = BUF.subarray(psize, psize + HEAD);
  else {
    second = Buffer.alloc(HEAD);
    if (readSync(fd, second, 0, HEAD, psize) < HEAD) return `it is ${size ?? "under " + String(psize + HEAD)} bytes, too short for a store`;
  }
  if (!isMeta(second)) return "its second header is not an LMDB store's (zeroed or overwritten)";
  return undefined;
}
