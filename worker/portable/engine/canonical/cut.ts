/**
 * `s` cut to at most `max` UTF-16 units without splitting a surrogate pair: half of an emoji is
 * not text (canonical JSON refuses it, and a reader shows garbage), so a cut that would land
 * between the two halves steps back one unit.
 */
export function cutText(s: string, max: number): string {
  if (s.length <= max) return s;
  const last = s.charCodeAt(max - 1);
  return s.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
