/**
 * A trace file's lines, for `stalwart replay`. Read line by line, not as one string: a line too
 * long to be a string was reported at `:1:` with the JavaScript engine's message and the hint
 * "check the file's permissions" (outside audit 15, F3). Now such a line is named at its own line
 * number, as too long to read, and a file larger than one string can hold replays when each of its
 * lines is within the limit.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { TraceError, type TraceProblem } from "./trace.js";

/**
 * The longest line replay reads, in bytes (docs/trace-format.md): 500 MiB, under V8's longest
 * string (2^29 − 24 UTF-16 units), so that every line within it decodes and parses.
 */
export const MAX_LINE_BYTES = 500 * 1024 * 1024;
const CHUNK = 16 * 1024 * 1024;

/** The trace's lines (as `text.split("\n")` gives them, less the empty one after a final line break), or a TraceError saying why they cannot be read. */
export function readTrace(path: string, maxLineBytes = MAX_LINE_BYTES): string[] {
  const fail = (message: string, hint: string, line = 1): never => {
    throw new TraceError([{ file: path, line, message, hint }]);
  };
  if (!existsSync(path)) fail(`cannot read \`${path}\`: no such file`, "check the path, relative to the current directory");
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    return fail(`cannot read \`${path}\`: ${(e as Error).message}`, "check the file's permissions");
  }
  if (st.isDirectory()) fail(`\`${path}\` is a folder, not a trace`, "name the .jsonl file the agent's recorder wrote");
  // (a device, a pipe or a socket would be read forever, or wait for a writer)
  if (!st.isFile()) fail(`\`${path}\` is not a regular file`, "name the .jsonl file the agent's recorder wrote, not a device, pipe or socket");
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    return fail(`cannot read \`${path}\`: ${(e as Error).message}`, "check the file's permissions");
  }
  try {
    const { lines, problems } = linesOf(fd, path, maxLineBytes, (e, line) => fail(`cannot read \`${path}\` past line ${line - 1}: ${e.message}`, "check that the file can be read to its end (the disk, or a file being replaced)", line));
    if (problems.length > 0) throw new TraceError(problems);
    return lines;
  } finally {
    closeSync(fd);
  }
}

function linesOf(fd: number, path: string, max: number, failed: (e: Error, line: number) => never): { lines: string[]; problems: TraceProblem[] } {
  const lines: string[] = [];
  const problems: TraceProblem[] = [];
  const buf = Buffer.allocUnsafe(CHUNK);
  // the line read so far, when it spans chunks: its parts (copies), its length, whether it is over the limit
  let parts: Buffer[] = [];
  let size = 0;
  let over = false;
  const done = (last?: string): void => {
    if (over) {
      problems.push({ file: path, line: lines.length + 1, message: `the line is ${size} bytes long: too long to read (replay reads lines of at most ${max / 1024 / 1024} MiB)`, hint: "each line of a trace is one event; cut the long value out of this one, or leave the line out" });
      lines.push("");
    } else lines.push(last ?? Buffer.concat(parts, size).toString("utf8"));
    parts = [];
    size = 0;
    over = false;
  };
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buf, 0, CHUNK, null);
    } catch (e) {
      return failed(e as Error, lines.length + 1);
    }
    if (n === 0) break;
    const chunk = buf.subarray(0, n);
    let start = 0;
    while (start < n) {
      const nl = chunk.indexOf(0x0a, start);
      const stop = nl < 0 ? n : nl;
      const len = stop - start;
      if (!over && size + len > max) {
        over = true;
        parts = [];
      }
      const whole = nl >= 0 && size === 0 && !over;
      if (!over && !whole) parts.push(Buffer.from(chunk.subarray(start, stop)));
      size += len;
      if (nl < 0) break;
      // a line within one chunk is decoded in place, without a copy
      done(whole ? chunk.toString("utf8", start, stop) : undefined);
      start = nl + 1;
    }
  }
  if (size > 0 || over) done();
  return { lines, problems };
}
