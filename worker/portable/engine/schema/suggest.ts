/** "did you mean …?" by edit distance (Damerau–Levenshtein, optimal string alignment). */

export function editDistance(a: string, b: string): number {
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
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(w, k.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  if (best === undefined) return undefined;
  if (w.length >= 2 && bestD > 0) {
    const prefixed = known.filter((k) => k.toLowerCase().startsWith(w));
    if (prefixed.length === 1) return prefixed[0];
  }
  const limit = best.length <= 2 ? 0 : Math.max(1, Math.min(3, Math.floor(best.length / 3)));
  return bestD <= limit ? best : undefined;
}

/** A hint for an unknown word: the likely typo, or the words that fit here. */
export function unknownWordHint(word: string, known: readonly string[]): string {
  const c = closest(word, known);
  if (c) return `did you mean \`${c}\`?`;
  return `known words here: ${known.map((k) => `\`${k}\``).join(", ")}`;
}
