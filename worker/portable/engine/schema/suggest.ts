/**
 * The project's one "did you mean …?": edit distance (Damerau–Levenshtein, optimal string
 * alignment) between an unknown word and the words that fit. Catalogue and rulebook lint, the
 * SDK's option checks (options.ts), `unknown_tool`'s `detail.nearest` and the CLI's unknown
 * commands and options all ask here, so they agree on what counts as a likely typo.
 */

function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length > 64 || b.length > 64) return Math.max(a.length, b.length);
  const d: number[][] = [];
  for (let i = 0; i <= a.length; i++) d.push([i]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The closest known word, if it is close enough to be a likely typo. */
export function closest(word: string, known: readonly string[]): string | undefined {
  const w = folded(word);
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(w, folded(k));
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  if (best === undefined) return undefined;
  if (w.length >= 2 && bestD > 0) {
    const prefixed = known.filter((k) => folded(k).startsWith(w));
    if (prefixed.length === 1) return prefixed[0];
  }
  return bestD <= limitFor(best) ? best : undefined;
}

/**
 * A word as compared: lower case, in one unicode form (NFC), so that `preço` written as `c` and a
 * combining cedilla is the declared `preço`, not two letters away from it.
 */
function folded(word: string): string {
  return word.normalize("NFC").toLowerCase();
}

/** How far a known word may be from a typo of it: none for 1–2 letters, then a third of it, 1–3. */
function limitFor(known: string): number {
  return known.length <= 2 ? 0 : Math.max(1, Math.min(3, Math.floor(known.length / 3)));
}

/**
 * Up to `n` known words close enough to `word` to be what was meant, nearest first (ties in the
 * order given); [] when none is. A word that starts `word` counts as near (`refund` → `refund_card`).
 */
export function nearest(word: string, known: Iterable<string>, n = 3): string[] {
  const w = folded(word);
  const scored: { k: string; d: number; i: number }[] = [];
  let i = 0;
  for (const k of known) {
    const lk = folded(k);
    const d = editDistance(w, lk);
    if (d <= limitFor(k) || (w.length >= 3 && lk.startsWith(w))) scored.push({ k, d, i });
    i++;
  }
  scored.sort((a, b) => a.d - b.d || a.i - b.i);
  return scored.slice(0, n).map((s) => s.k);
}

/** `did you mean \`x\`?` for a likely typo, else undefined. */
export function didYouMean(word: string, known: readonly string[]): string | undefined {
  const c = closest(word, known);
  if (c === undefined) return undefined;
  // the same letters in another unicode form look the same: say what differs, or the hint reads as a riddle
  if (c !== word && c.normalize("NFC") === word.normalize("NFC")) return `did you mean \`${c}\`? It is the same text in another unicode form (${formOf(c)}; this is ${formOf(word)})`;
  return `did you mean \`${c}\`?`;
}

/** A hint for an unknown word: the likely typo, or the words that fit here. */
export function unknownWordHint(word: string, known: readonly string[]): string {
  return didYouMean(word, known) ?? `known words here: ${known.map((k) => `\`${k}\``).join(", ")}`;
}

function formOf(s: string): string {
  return s === s.normalize("NFC") ? "NFC" : s === s.normalize("NFD") ? "NFD" : "neither NFC nor NFD";
}
