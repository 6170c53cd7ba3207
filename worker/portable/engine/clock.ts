/**
 * The host's clock, read so that whatever it gives or throws is a typed `ClockUnreadable`, never a
 * TypeError deep inside a check. A date within ~400 days of the last a Date can hold is
 * unreadable too: the calendar periods of counters (a week, a month) must be dates themselves. So
 * is one before 1970: counters keep a period's end as a time after it (0 stands for a period that
 * ends with its session), and no host runs today with such a clock (outside audit 12, R5).
 */
import { StalwartError } from "./errors.js";

/** 8.64e15 ms is the last instant a Date holds; a month and a week past a time must be dates too. */
const LAST = 8.64e15 - 400 * 86_400_000;

export function checkedClock(now: () => Date): () => Date {
  return () => {
    let d: unknown;
    try {
      d = now();
    } catch (err) {
      if (err instanceof StalwartError && err.code === "ClockUnreadable") throw err;
      throw new StalwartError("ClockUnreadable", `the injected clock threw: ${err instanceof Error ? err.message : String(err)}`, { cause: err, hint: "`now` must return a Date, e.g. () => new Date()" });
    }
    const t = d instanceof Date ? d.getTime() : NaN;
    if (!Number.isFinite(t) || t < 0 || t > LAST) {
      const what = d instanceof Date ? (!Number.isFinite(t) ? "an invalid date" : t < 0 ? `a date before 1970 (${d.toISOString()})` : `a date too near the end of time (${t} ms)`) : d === null ? "null" : `a ${typeof d}`;
      throw new StalwartError("ClockUnreadable", `the injected clock gave ${what}, not a date this runtime can count in`, { hint: "`now` must return a valid Date, e.g. () => new Date()" });
    }
    return d as Date;
  };
}
