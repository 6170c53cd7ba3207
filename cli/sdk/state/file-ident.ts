/**
 * A home's two store files as one look saw them: StateFile keeps a damage until the files are no
 * longer so (their inode and change time), then looks again.
 */
import { statSync, type Stats } from "node:fs";

export type Ident = string;

/** The store file and its witness as a look found them (undefined: missing). */
export interface Look {
  db: Stats | undefined;
  witness: Stats | undefined;
}

export function statOf(path: string): Stats | undefined {
  return statSync(path, { throwIfNoEntry: false });
}

export function identOf(l: Look): Ident {
  return `${l.db ? `${l.db.ino}:${l.db.ctimeMs}` : "-"} ${l.witness ? `${l.witness.ino}:${l.witness.ctimeMs}` : "-"}`;
}

/** The same two files (or the same missing): a write changes a file's time, not which file it is. */
export function sameFiles(a: Look, b: Look): boolean {
  return a.db?.ino === b.db?.ino && a.witness?.ino === b.witness?.ino;
}

/** The looks of one StateFile at its two files, and what a damage it finds is kept against. */
export class FileLooks {
  /** the last look: of an opening, or the full look before an operation */
  private looked: Look | undefined;
  constructor(private readonly dbPath: string, private readonly witnessPath: string) {}

  look(): Look {
    return (this.looked = this.current());
  }

  saw(l: Look): void {
    this.looked = l;
  }

  /** The files as they are now, to tell "still the damaged store" from "a reset made a new one". */
  now(): Ident {
    return identOf(this.current());
  }

  /**
   * What a damage is kept against: the files now (a mark this process wrote changed their times),
   * unless they are other files than the last look found. Then another process's reset made new
   * ones since, and a damage kept against those stuck to the new store for the life of the process
   * (outside audit 7, F13: the witness missing for a moment mid-reset); kept against what the
   * look saw, the next operation opens the new store.
   */
  damageIdent(): Ident {
    const now = this.current();
    return identOf(this.looked && !sameFiles(this.looked, now) ? this.looked : now);
  }

  private current(): Look {
    return { db: statOf(this.dbPath), witness: statOf(this.witnessPath) };
  }
}
