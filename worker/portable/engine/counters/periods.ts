/**
 * Calendar periods in UTC (checks.md: `per` one of call, run, session, minute, hour, day, week,
 * month). A counter belongs to one period: its key names the period and `until` is when it ends,
 * so a new period starts from zero without anyone resetting anything. The clock is passed in.
 */
import type { Period } from "../catalogue/types.js";

export interface PeriodWindow {
  /** names the period inside a counter key */
  id: string;
  /** ms since epoch when it ends; 0 = does not end by time (session, run) */
  until: number;
}

/** Monday 00:00 UTC starts an ISO week. */
function weekStart(d: Date): number {
  const day = (d.getUTCDay() + 6) % 7;
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - day);
}

export function periodWindow(per: Period, now: number, session: string, run: number): PeriodWindow {
  const d = new Date(now);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  switch (per) {
    case "minute": {
      const start = Math.floor(now / 60_000) * 60_000;
      return { id: new Date(start).toISOString().slice(0, 16), until: start + 60_000 };
    }
    case "hour": {
      const start = Math.floor(now / 3_600_000) * 3_600_000;
      return { id: new Date(start).toISOString().slice(0, 13), until: start + 3_600_000 };
    }
    case "day": {
      const start = Date.UTC(y, m, d.getUTCDate());
      return { id: new Date(start).toISOString().slice(0, 10), until: start + 86_400_000 };
    }
    case "week": {
      const start = weekStart(d);
      return { id: `W${new Date(start).toISOString().slice(0, 10)}`, until: start + 7 * 86_400_000 };
    }
    case "month":
      return { id: new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 7), until: Date.UTC(y, m + 1, 1) };
    case "session":
      return { id: `s:${session}`, until: 0 };
    case "run":
      return { id: `r:${session}:${run}`, until: 0 };
    case "call":
      return { id: "call", until: 0 };
  }
}

function describePeriod(per: Period): string {
  return per === "call" ? "per call" : `per ${per}`;
}
