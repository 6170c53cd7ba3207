/**
 * A file LMDB maps (the store's data and lock file, the open gate's files), held open by this
 * process to notice it moved or cut short while in use. LMDB trusts these files: one cut
 * short under a running process kills it with SIGBUS at its next touch (seen with each of
 * `state.mdb-lock`, `state.gate` and `state.gate-lock` truncated to 0), and one deleted or
 * replaced leaves this process excluding nobody, since processes started since made a new one
 * (two processes then wrote at once and one died of SIGSEGV). Either way this process must stop
 * using the environment; its users refuse until it restarts.
 */
import { closeSync, fstatSync, ftruncateSync, openSync, statSync } from "node:fs";

export const RESTART_HINT = "restart every process that uses this home (the store needs no reset); never delete or truncate a store's lock or gate file while a process uses it";

export class MappedFile {
  private readonly fd: number;
  /** the longest it has been seen (LMDB grows a data file, never shortens it) */
  private size: number;
  private readonly key: string;
  /** once cut short, always: its length put back holds nothing LMDB can use */
  private broken: string | undefined;

  /**
   * `path` as LMDB opened it a moment ago. `whole`, for a data file: whether it is still whole at
   * a shorter length (an older copy of the store put back in place is not cut short: it holds
   * every page it counts, and the witness judges it).
   */
  constructor(readonly path: string, private readonly whole?: (fd: number, size: number) => boolean) {
    this.fd = openSync(path, "r+");
    const s = fstatSync(this.fd);
    this.size = s.size;
    this.key = `${s.dev}:${s.ino}`;
  }

  /** What is wrong with the file LMDB has mapped (one `fstat`), or undefined. */
  cutShort(): string | undefined {
    if (this.broken) return this.broken;
    const size = fstatSync(this.fd).size;
    if (size >= this.size || this.whole?.(this.fd, size)) {
      this.size = size;
      return undefined;
    }
    try {
      // Its length back (zeros): LMDB touches the mapping once more when the process exits, and a
      // page past the end would kill it then. Nobody can use what the file held any more: every
      // process that opens it now finds it invalid until this one exits, as it would cut short.
      ftruncateSync(this.fd, this.size);
    } catch {
      // a full disk: this process refuses all the same
    }
    return (this.broken = `\`${this.path}\` was cut short while this process had it mapped (${size} bytes, it had ${this.size})`);
  }

  /** Let go of the file (a store's data file, when the store is opened again). */
  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
  }

  /** The path no longer names the file this process holds (one `stat`), or undefined. */
  moved(): string | undefined {
    const s = statSync(this.path, { throwIfNoEntry: false });
    if (s && `${s.dev}:${s.ino}` === this.key) return undefined;
    return `\`${this.path}\` was deleted or replaced while this process had it open: processes on this home no longer exclude each other`;
  }
}
