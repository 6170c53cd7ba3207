/**
 * A query or fragment parameter's value inside a URL the scanner reported (scan.ts `nested`):
 * `https://a.example.com/login?next=//intranet/x`. A server with an open redirect (`?next=`,
 * `?return_to=`) decodes the value once and sends the browser to it, which resolves it against
 * the server's own URL; a client-side router does the same with `#next=`. So a value that, once
 * decoded, is a scheme-relative reference (`//intranet`, `/\intranet`, `%2F%2Fintranet`) names a
 * host, whatever its TLD, and is read whole (whole.ts). Any other value (`/docs/a`, `a//b`) is none.
 */

/** Where a value read at `v` ends (the scan goes on there), and its text, decoded, when it may be one. */
export interface Value {
  end: number;
  /** The value as the server reads it, up to its path's end; null when it starts with no two slashes. */
  text: string | null;
}

const ASCII_ESCAPE = /%[0-7][0-9a-f]/gi;
const ASCII_HEX = /^[0-7][0-9a-f]$/i;

/**
 * The value starting at `v` in `s`, within `[v, to)`. Linear: it reads past its authority only to
 * the next `& # ? =`, where the next value starts, so no character is read by two values' paths.
 */
export function readValue(s: string, v: number, to: number): Value {
  let i = v;
  let slashes = 0;
  // the lead: what the parser strips or removes (spaces, controls, a form's `+`), then slashes
  for (; i < to; i++) {
    const c = s.charCodeAt(i);
    const e = c === 0x25 ? escaped(s, i, to) : -1;
    if (c === 0x2f || c === 0x5c || e === 0x2f || e === 0x5c) slashes++;
    else if (!(c <= 0x20 || c === 0x2b || (e >= 0 && e <= 0x20))) break;
    if (e >= 0) i += 2;
  }
  if (slashes < 2) return { end: v, text: null };
  // the authority: to the first `/ \ ? # &`, as written or encoded (`%2F`)
  let j = i;
  for (; j < to; j++) {
    const c = s.charCodeAt(j);
    if (c === 0x2f || c === 0x5c || c === 0x3f || c === 0x23 || c === 0x26) break;
    const e = c === 0x25 ? escaped(s, j, to) : -1;
    if (e === 0x2f || e === 0x5c || e === 0x3f || e === 0x23) break;
  }
  let end = j;
  while (end < to && !isValueEnd(s.charCodeAt(end))) end++;
  const lead = s.slice(v, i).replace(/\+/g, " ");
  const text = lead + s.slice(i, end);
  return { end, text: text.includes("%") ? text.replace(ASCII_ESCAPE, (x) => String.fromCharCode(parseInt(x.slice(1), 16))) : text };
}

/** The ASCII character `%hh` at `i` encodes, or -1. */
function escaped(s: string, i: number, to: number): number {
  if (i + 2 >= to) return -1;
  const hh = s.slice(i + 1, i + 3);
  return ASCII_HEX.test(hh) ? parseInt(hh, 16) : -1;
}

function isValueEnd(c: number): boolean {
  return c === 0x26 || c === 0x23 || c === 0x3f || c === 0x3d;
}
