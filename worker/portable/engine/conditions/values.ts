/**
 * The values conditions compare (checks.md "Conditions, limits, spend, outcomes"): JSON equality
 * without serialising, and ISO 8601 instants read the same way on every runtime.
 * Pure, no allocation on the common paths.
 */

/** A list or a map: what `one_of`, `at_least`, … cannot compare with a single value. */
export const isStructured = (v: unknown): v is object => v !== null && typeof v === "object";

/** Thrown (and caught by the evaluator, which answers `unknown`) on data nested past any JSON's depth. */
export class TooDeep extends Error {}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * JSON equality: same type and value; lists item by item; maps with the same keys (in any order)
 * and equal values. `5` and `"5"` differ. Scalars compare with `===`; only structures recurse.
 */
export function jsonEqual(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (!isStructured(a) || !isStructured(b)) return false;
  if (depth > 256) throw new TooDeep("value nested too deeply to compare");
  const la = Array.isArray(a);
  if (la !== Array.isArray(b)) return false;
  if (la) {
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!jsonEqual(x[i], y[i], depth + 1)) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let n = 0;
  for (const k in x) {
    if (!hasOwn.call(x, k) || x[k] === undefined) continue;
    n++;
    if (!hasOwn.call(y, k) || !jsonEqual(x[k], y[k], depth + 1)) return false;
  }
  let m = 0;
  for (const k in y) if (hasOwn.call(y, k) && y[k] !== undefined) m++;
  return n === m;
}

/** Is `v` in `list` (JSON equality)? A scalar uses the native `includes`; a structure compares deeply. */
export function member(list: readonly unknown[], v: unknown): boolean {
  if (!isStructured(v)) return list.includes(v);
  for (let i = 0; i < list.length; i++) if (jsonEqual(list[i], v)) return true;
  return false;
}

/** The decimal value of `len` digits of `s` at `at`; -1 when one is not a digit. */
function digits(s: string, at: number, len: number): number {
  let n = 0;
  for (let i = at; i < at + len; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

const leap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil; exact for any year). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/**
 * Milliseconds since the epoch of an ISO 8601 date or date-time, NaN for anything else (a number,
 * `"tomorrow"`, `"2025/01/31"`, `"2025-02-30"`). Accepted, and nothing more:
 *   `YYYY-MM-DD`                                   midnight UTC of that day
 *   `YYYY-MM-DDTHH:MM[:SS[.fraction]][offset]`      `T`, `t` or a space; offset `Z`, `±HH:MM`, `±HHMM`
 * A date-time without an offset is read as UTC, so that Node (local time zone) and workerd (UTC)
 * agree; `Date.parse` would read it in the machine's zone. Second 60 (a leap second) is the next
 * minute's first instant. The fraction is read to the millisecond (truncated).
 */
export function parseInstant(v: unknown): number {
  if (typeof v !== "string") return NaN;
  const n = v.length;
  if (n < 10 || n > 40) return NaN;
  const y = digits(v, 0, 4);
  const mo = digits(v, 5, 2);
  const d = digits(v, 8, 2);
  if (y < 0 || v.charCodeAt(4) !== 45 || v.charCodeAt(7) !== 45 || mo < 1 || mo > 12 || d < 1) return NaN;
  if (d > (mo === 2 && leap(y) ? 29 : MONTH_DAYS[mo - 1]!)) return NaN;
  const day = daysFromCivil(y, mo, d) * 86_400_000;
  if (n === 10) return day;
  const t = v.charCodeAt(10);
  if ((t !== 84 && t !== 116 && t !== 32) || n < 16 || v.charCodeAt(13) !== 58) return NaN; // T t space, ':'
  const h = digits(v, 11, 2);
  const mi = digits(v, 14, 2);
  if (h < 0 || h > 23 || mi < 0 || mi > 59) return NaN;
  let i = 16;
  let s = 0;
  let ms = 0;
  if (i < n && v.charCodeAt(i) === 58) {
    s = digits(v, 17, 2);
    if (s < 0 || s > 60) return NaN;
    i = 19;
    if (i < n && v.charCodeAt(i) === 46) {
      i++;
      const start = i;
      let scale = 100;
      while (i < n) {
        const c = v.charCodeAt(i) - 48;
        if (c < 0 || c > 9) break;
        ms += c * scale;
        scale /= 10;
        i++;
      }
      if (i === start) return NaN;
      ms = Math.floor(ms);
    }
  }
  let offset = 0;
  if (i < n) {
    const c = v.charCodeAt(i);
    if (c === 90 || c === 122) {
      if (i + 1 !== n) return NaN; // Z z
    } else if (c === 43 || c === 45) {
      const oh = digits(v, i + 1, 2);
      let om: number;
      if (i + 6 === n && v.charCodeAt(i + 3) === 58) om = digits(v, i + 4, 2);
      else if (i + 5 === n) om = digits(v, i + 3, 2);
      else return NaN;
      if (oh < 0 || oh > 23 || om < 0 || om > 59) return NaN;
      offset = (c === 43 ? 1 : -1) * (oh * 60 + om) * 60_000;
    } else return NaN;
  }
  return day + ((h * 60 + mi) * 60 + s) * 1000 + ms - offset;
}
