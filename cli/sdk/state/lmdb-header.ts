/**
 * A look at an LMDB data file before LMDB maps it. LMDB trusts its file: a zero-filled one
 * crashes the process (seen with lmdb@3.5.6: a segmentation fault inside `open`). So the two
 * meta pages are checked here, by hand, on open and before every operation: the magic and version
 * of both. The offsets are those of the lmdb@3.5.6 builds (page header 24 bytes, then the meta);
 * a layout this does not know fails closed (the store reads as damaged). A file shorter than the
 * pages its metas count is not damage by itself (LMDB counts pages it never wrote: a page freed in
 * the transaction that took it; seen under four writers), but LMDB maps every one of them, and a
 * page past the end kills the process with SIGBUS: `lmdbPagesEnd` says how long the file must be.
 */
import { closeSync, constants, openSync, readSync, truncateSync } from "node:fs";
import { StalwartError } from "../../../worker/portable/engine/index.js";

const MAGIC = 0xbeefc0de;
const VERSION = 2;
const META_AT = 24; // mm_magic, after the page header
const PSIZE_AT = 0x30; // mm_dbs[FREE_DBI].md_pad holds the page size
const LAST_PG_AT = META_AT + 120; // mm_last_pg, after mm_address, mm_mapsize and the two MDB_db
const HEAD = LAST_PG_AT + 8;
/** Past this a meta's page count is garbage, not a store (1 TiB). */
const MAX_END = 2 ** 40;

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

/**
 * How many bytes the LMDB data file behind `fd` must have to hold every page its two meta pages
 * count (the larger of the two: LMDB maps up to the newer one's, and the other may be chosen), or
 * why it cannot be read for that. Call it after `lmdbFileProblem` found nothing.
 */
export function lmdbPagesEnd(fd: number): number | string {
  const head = Buffer.alloc(HEAD);
  if (readSync(fd, head, 0, HEAD, 0) < HEAD) return "it is too short for a store";
  const psize = head.readUInt32LE(PSIZE_AT);
  let end = 0;
  for (const at of [0, psize]) {
    if (at > 0 && readSync(fd, head, 0, HEAD, at) < HEAD) return "it is too short for a store";
    const pages = Number(head.readBigUInt64LE(LAST_PG_AT)) + 1;
    if (!(pages * psize <= MAX_END)) return `its header counts ${pages} pages of ${psize} bytes (garbage)`;
    end = Math.max(end, pages * psize);
  }
  return end;
}

/**
 * Before LMDB maps the store's data file at `path` (`size` bytes, from a `stat`): why it cannot be
 * opened (`lmdbFileProblem`), or undefined once it can. Shorter than the pages its header counts
 * (cut short, or pages LMDB counted and never wrote), it is lengthened with zeros first: LMDB maps
 * them all, and a page past the end kills the process (SIGBUS). Zeros are what a never-written page
 * may hold, and a lost page that LMDB reads is a zero page, whose error (MDB_CORRUPTED) is damage.
 * Call it under the open gate: no writer may be inside.
 */
export function readyToMap(path: string, size: number): string | undefined {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK); // a pipe swapped in since the stat does not hang
  try {
    const problem = lmdbFileProblem(fd, size);
    if (problem) return problem;
    const end = lmdbPagesEnd(fd);
    if (typeof end === "string") return end;
    if (size < end) truncateSync(path, end);
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Whether the data file behind `fd`, at `size` bytes, holds every page its header counts (an older copy put back in place does). */
export function holdsItsPages(fd: number, size: number): boolean {
  const end = lmdbPagesEnd(fd);
  return typeof end === "number" && size >= end;
}

/** What LMDB itself failed at (MDB_CORRUPTED, I/O): a store that cannot be trusted either. A typed error is already what it is (its message may name a path holding "lmdb"). */
export function lmdbFailed(err: unknown): string | undefined {
  return err instanceof Error && !(err instanceof StalwartError) && /MDB_|lmdb|mdb_/i.test(err.message) ? `LMDB failed: ${err.message}` : undefined;
}
