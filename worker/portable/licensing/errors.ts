/** Licensing errors: one base class (worker/portable/engine/errors.ts), stable codes callers switch on. */
import { StalwartError, isErrorCode, type ErrorCode } from "../engine/index.js";

export { LicenceInvalid, LicenceRequired, StalwartError } from "../engine/index.js";

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

/**
 * The licence service answered with an error. Its codes are registered as the service spells
 * them; one this build does not know becomes `http_<status>`, the service's code kept in the message.
 */
export class LicenceServiceError extends StalwartError {
  readonly status: number;
  constructor(status: number, code: string, message: string, hint?: string, pointer?: string) {
    const known = isErrorCode(code);
    const fallback: ErrorCode = `http_${status >= 100 && status <= 599 ? status : 500}`;
    super(known ? code : fallback, known ? message : `${code}: ${message}`, { hint, pointer });
    this.status = status;
  }
}
