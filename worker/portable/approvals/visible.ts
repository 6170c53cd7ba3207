/**
 * Text as a person must read it before deciding (the approvals page, `stalwart approvals show`,
 * the gateway's elicitation question, the adapters' approval text): every character that
 * reorders, hides or controls the text around it, or renders as nothing, is named (`[U+202E]`)
 * instead of acting, so "‮moc.liame@bob" cannot read as "bob@email.com" and a sentence spelled in
 * invisible TAG characters cannot pass unseen. Tab and newline stay: they hide nothing.
 */

/**
 * Controls (Cc, but tab and newline), format characters (Cf: bidi controls, zero-width marks,
 * U+00AD, U+206A–206F, TAG characters), private use (Co), lone surrogates (Cs), line and
 * paragraph separators (Zl, Zp), and default-ignorables (variation selectors, U+034F, the Hangul
 * fillers U+115F/U+1160/U+3164/U+FFA0, which render blank), and the overlay marks (Unicode's
 * combining class 1: U+0334–U+0338, U+20D2, …), which strike through the character before them.
 * The `u` flag makes each one code point, so characters beyond the BMP match whole.
 */
const HIDDEN_RUN = /(?:(?![\t\n])[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u115F\u1160\u3164\uFFA0\u0334-\u0338\u1CD4\u1CE2-\u1CE8\u20D2\u20D3\u20D8-\u20DA\u20E5\u20E6\u20EA\u20EB\u{10A39}\u{16AF0}-\u{16AF4}\u{1BC9E}\u{1D167}-\u{1D169}])+/gu;

/** TAG characters that mirror printable ASCII (U+E0020–U+E007E): a run of them spells text some readers (a model) see. */
const TAG_ASCII = /[\u{E0020}-\u{E007E}]{2,}/uy;

export function visible(text: string): string {
  return text.replace(HIDDEN_RUN, nameRun);
}

/**
 * An argument's name as a person must read it: as `visible`, and every other character beyond
 * ASCII named too (`[U+0430]mount`). Where a schema is open the model picks names, and `аmount`
 * with a Cyrillic а would read as the declared `amount` beside it (outside audit 11, F5).
 */
export function nameVisible(name: string): string {
  let out = "";
  let from = 0;
  for (const m of name.matchAll(HIDDEN_RUN)) {
    out += beyondAscii(name.slice(from, m.index)) + nameRun(m[0]);
    from = m.index + m[0].length;
  }
  return out + beyondAscii(name.slice(from));
}

const beyondAscii = (s: string) => s.replace(/[^\x00-\x7f]/gu, (c) => `[U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}]`);

/**
 * Text on one line: a line break is shown escaped (`\n`), every other hidden character by name
 * (`[U+000D]`, `[U+001B]`, `[U+2028]`). For text someone else chose (a model's tool name or
 * value, a trace's) in a line of ours: it cannot start a line that reads as ours, nor hide the
 * rest of ours (ESC[8m).
 */
export function oneLine(s: string): string {
  return visible(s.replace(/\n/g, "\\n"));
}

/**
 * JSON text (JSON.stringify's) with every hidden character written as its `\uXXXX` escape: the
 * same value to a reader of JSON, and nothing in it that acts on a terminal it is printed to
 * (JSON.stringify escapes C0 controls only, not C1, bidi or TAG characters).
 */
export function jsonVisible(json: string): string {
  return json.replace(HIDDEN_RUN, (run) => {
    let out = "";
    for (let i = 0; i < run.length; i++) out += `\\u${run.charCodeAt(i).toString(16).padStart(4, "0")}`;
    return out;
  });
}

/**
 * A run of hidden characters by name, kept readable however long it is: a run of TAG characters
 * as its count, code points and the ASCII it spells; a character repeated as one name with its
 * count (`[U+200B ×40]`); anything else one name each.
 */
function nameRun(run: string): string {
  let out = "";
  let i = 0;
  while (i < run.length) {
    TAG_ASCII.lastIndex = i;
    const tags = TAG_ASCII.exec(run);
    if (tags) {
      // no spread: a run may be longer than a call takes arguments
      const points = [...tags[0]].map((c) => c.codePointAt(0)!);
      const spelled = points.map((p) => String.fromCharCode(p - 0xe0000)).join("");
      const low = points.reduce((a, b) => Math.min(a, b));
      const high = points.reduce((a, b) => Math.max(a, b));
      out += `[${points.length} TAG characters ${hex(low)}–${hex(high)} spelling ${JSON.stringify(spelled)}]`;
      i += tags[0].length;
      continue;
    }
    const p = run.codePointAt(i)!;
    const c = String.fromCodePoint(p);
    let n = 1;
    while (run.startsWith(c, i + n * c.length)) n++;
    out += n > 1 ? `[${hex(p)} ×${n}]` : `[${hex(p)}]`;
    i += n * c.length;
  }
  return out;
}

function hex(p: number): string {
  return `U+${p.toString(16).toUpperCase().padStart(4, "0")}`;
}
