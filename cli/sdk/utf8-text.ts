/**
 * A file's bytes as UTF-8 text, or where they are not UTF-8. Node's "utf8" reading puts U+FFFD in
 * place of every byte that is not, without a word: a catalogue saved as Latin-1 loaded with
 * `none_of: ["Z\uFFFDrich"]`, which no longer held "Zürich" back (outside audit 13, F2).
 */
import { isUtf8 } from "node:buffer";

export type Utf8Text = { ok: true; text: string } | { ok: false; line: number; column: number; byte: number; offset: number };

export function utf8Text(bytes: Uint8Array): Utf8Text {
  if (isUtf8(bytes)) return { ok: true, text: new TextDecoder().decode(bytes) };
  const at = firstInvalid(bytes);
  let start = 0;
  let line = 1;
  for (let i = 0; i < at; i++) if (bytes[i] === 0x0a) (line++, (start = i + 1));
  const column = [...new TextDecoder().decode(bytes.subarray(start, at))].length + 1;
  return { ok: false, line, column, byte: bytes[at]!, offset: at };
}

/** The offset of the first byte that does not begin a well-formed UTF-8 sequence. */
function firstInvalid(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    const need = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
    if (need === 0) return i;
    let cp = c & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const d = b[i + k];
      if (d === undefined || (d & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (d & 0x3f);
    }
    // overlong forms, surrogates and what lies past U+10FFFF are not UTF-8 either
    if (cp < [0, 0x80, 0x800, 0x10000][need]! || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return b.length;
}

/** The sentence for a file that is not UTF-8. */
export function notUtf8(what: string, bad: Extract<Utf8Text, { ok: false }>): { message: string; hint: string } {
  return {
    message: `the ${what} is not UTF-8 text: byte 0x${bad.byte.toString(16).padStart(2, "0")} at line ${bad.line}, column ${bad.column} begins no UTF-8 character`,
    hint: "save the file as UTF-8 (a file saved as Latin-1 or Windows-1252 reads otherwise than it was written)",
  };
}
