/**
 * What a URL parser says a value reaches: the host of `new URL(value, base)` as it writes it, or
 * null when it reads none, one the check's host reading refuses to name, or the base's own. The
 * egress property tests hold step 4 to it.
 */
import { tidy } from "../../worker/portable/engine/destinations/host.js";

export function resolvedHost(value: string, base: string): string | null {
  let u: URL;
  try {
    u = new URL(value, base);
  } catch {
    return null;
  }
  return tidy(u.hostname) === null || u.host === new URL(base).host ? null : u.hostname;
}
