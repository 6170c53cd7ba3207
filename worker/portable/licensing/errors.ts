/** Licensing errors: one base class (worker/portable/engine/errors.ts), stable codes callers switch on. */
import { StalwartError } from "../engine/index.js";

export { LicenceRequired, StalwartError } from "../engine/index.js";

/** Past a monthly limit: the answer names the meter (licensing.md, "Meters and usage reports"). */
export class QuotaExhausted extends StalwartError {
  readonly meter: string;
  readonly limit: number;
  readonly used: number;
  constructor(meter: string, limit: number, used: number, month: string) {
    super("quota_exhausted", `meter \`${meter}\` has reached its limit of ${limit} for ${month}`, {
      hint: "the count resets at the start of next month (UTC); `stalwart licence status` shows every meter, a larger plan raises the limit",
    });
    this.meter = meter;
    this.limit = limit;
    this.used = used;
  }
}

/** The stored licence or lease does not verify (tampered, foreign, replayed). */
export class LicenceInvalid extends StalwartError {
  readonly reason: string;
  constructor(reason: string, detail: string) {
    super("LicenceInvalid", `the stored licence does not verify: ${detail} (${reason})`, {
      hint: "run `stalwart licence activate` again to fetch a fresh licence and lease",
    });
    this.reason = reason;
  }
}

/** The licence service answered with an error. */
export class LicenceServiceError extends StalwartError {
  readonly status: number;
  readonly pointer?: string;
  constructor(status: number, code: string, message: string, hint?: string, pointer?: string) {
    super(code, message, hint ? { hint } : undefined);
    this.status = status;
    if (pointer !== undefined) this.pointer = pointer;
  }
}
