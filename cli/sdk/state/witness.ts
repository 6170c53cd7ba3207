/**
 * The store's witness: a second file under the home, `state.witness`, holding the store's id and
 * its generation, one fixed-length line rewritten in place inside every write transaction (under
 * LMDB's writer lock, before the commit). The store keeps the same two; on every operation they
 * must be equal. A store rolled back to an older copy is behind its witness; a store deleted or
 * replaced has another id or none. See STORAGE.md.
 */
import { closeSync, fstatSync, openSync, readSync, renameSync, writeFileSync, writeSync } from "node:fs";

export interface WitnessValue {
  id: string;
  generation: number;
}

const PREFIX = "stalwart state witness v1 ";
const LINE = PREFIX.length + 32 + 1 + 16 + 1;
const PARSE = /^stalwart state witness v1 ([0-9a-f]{32}) ([0-9a-f]{16})\n$/;
const hex16 = (n: number) => n.toString(16).padStart(16, "0");

function line(v: WitnessValue): Buffer {
  return Buffer.from(`${PREFIX}${v.id} ${hex16(v.generation)}\n`, "latin1");
}

/** Create the witness file anew (temporary file + rename), readable by the owner only. */
export function createWitness(file: string, v: WitnessValue): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, line(v), { mode: 0o600 });
  renameSync(tmp, file);
}

/** An open witness: read and rewritten through one descriptor (pread / pwrite at offset 0). */
export class Witness {
  readonly fd: number;
  readonly ino: number;
  private readonly buf = Buffer.alloc(LINE + 1);

  constructor(readonly file: string) {
    this.fd = openSync(file, "r+");
    this.ino = fstatSync(this.fd).ino;
  }

  /**
   * The line last read or written here and its value: a read of the same bytes is not parsed
   * again. A memo of the parsing only — the file is read every time.
   */
  private last: { bytes: Buffer; value: WitnessValue } | undefined;

  /** The value, or why it cannot be read. */
  read(): WitnessValue | string {
    const n = readSync(this.fd, this.buf, 0, LINE + 1, 0);
    const last = this.last;
    if (last && n === LINE && this.buf.compare(last.bytes, 0, LINE, 0, LINE) === 0) return { ...last.value };
    const m = PARSE.exec(this.buf.toString("latin1", 0, n));
    if (!m) return n === 0 ? "it is empty" : "it is not a witness line (edited or overwritten)";
    const value = { id: m[1]!, generation: parseInt(m[2]!, 16) };
    this.last = { bytes: Buffer.from(this.buf.subarray(0, LINE)), value };
    return { ...value };
  }

  write(v: WitnessValue): void {
    const b = line(v);
    this.last = undefined;
    if (writeSync(this.fd, b, 0, b.length, 0) !== b.length) throw new Error(`short write to ${this.file}`);
    this.last = { bytes: b, value: { id: v.id, generation: v.generation } };
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // closing twice, or a descriptor already gone: nothing left to release
    }
  }
}
