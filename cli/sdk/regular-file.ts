/**
 * A home file read as text only when it is a regular file. A pipe put in its place hung the
 * process at its next read (open waits for a writer), and a device such as /dev/zero would be
 * read without end: opened without blocking, then refused by its own `fstat`.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";

/**
 * `path`'s text; throws the file system's error, or one saying it is not a regular file.
 * `noFollow`: a symbolic link in its place is refused, not read (files only the runtime writes,
 * where a link can only have been put to make it read something else).
 */
export function readRegular(path: string, opts: { noFollow?: boolean } = {}): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (opts.noFollow ? constants.O_NOFOLLOW : 0));
  } catch (err) {
    if (opts.noFollow && (err as NodeJS.ErrnoException).code === "ELOOP") throw Object.assign(new Error(`\`${path}\` is a symbolic link, which is not followed here`), { code: "ELOOP" });
    throw err;
  }
  try {
    const s = fstatSync(fd);
    if (s.isDirectory()) throw new Error(`\`${path}\` is a directory, not a regular file`);
    if (!s.isFile()) throw new Error(`\`${path}\` is not a regular file (a pipe, a device or a socket was put in its place)`);
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}
