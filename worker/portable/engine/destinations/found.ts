/** What one scan reports: destinations deduplicated, in order, within bounds. */
import { cutText } from "../canonical/cut.js";

/**
 * Bounds on what one call reports, so that a hostile argument cannot make the answer huge: a
 * destination longer than `MAX_LENGTH` is cut there and ends with `…`, and after `MAX_FOUND`
 * destinations (or ten times as many finds, repeats included: hashing them is the cost) the scan
 * stops and reports `MORE_DESTINATIONS`; a part of a URL nested past the depth the scanner reads
 * (scan.ts `MAX_DEPTH`) ends with `…` too. Nothing the scanner finds ends
 * with `…` otherwise (trailing punctuation is never part of one), and `destinationAllowed` allows
 * no such string but under `"*"`: a cut list still refuses where the whole one would.
 */
export const MAX_LENGTH = 4096;
export const MAX_FOUND = 1000;
export const MORE_DESTINATIONS = "(more destinations…)";
export const CUT = "…";

/** Found destinations, deduplicated, in order of appearance. */
export class Found {
  readonly list: string[] = [];
  full = false;
  private finds = 0;
  private seen: Set<string> | undefined;
  add(found: string): void {
    if (this.full) return;
    if (++this.finds > 10 * MAX_FOUND) return this.stop();
    const d = found.length > MAX_LENGTH ? cutText(found, MAX_LENGTH) + CUT : found;
    const seen = (this.seen ??= new Set());
    if (seen.has(d)) return;
    if (this.list.length === MAX_FOUND) return this.stop();
    seen.add(d);
    this.list.push(d);
  }
  private stop(): void {
    this.full = true;
    this.list.push(MORE_DESTINATIONS);
  }
}
