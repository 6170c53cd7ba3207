/**
 * The amount a `spend` rule counts: its `field` is a path into the call's arguments (catalogue.md:
 * names joined by `.`, `[i]` for one item, `[]` for every item). A `[]` path counts the total of
 * every item (`items[].price`), added as the decimals they are written as; an empty list is 0.
 * Undefined when any value it reads is absent or not a finite number ≥ 0: nothing is guessed.
 */
import { compilePath, MISSING, readValue } from "../conditions/read.js";
import { own } from "../canonical/own.js";
import { addAmounts } from "../state/amounts.js";

const countable = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v >= 0;

export function spendAmount(args: Record<string, unknown>, field: string): number | undefined {
  // a plain name (the usual field) is read without parsing a path
  if (!field.includes(".") && !field.includes("[")) {
    const v = own(args, field);
    return countable(v) ? v : undefined;
  }
  const path = compilePath(field);
  if (path === null) return undefined;
  const v = readValue(args, field);
  if (v === MISSING) return undefined;
  if (!path.multi) return countable(v) ? v : undefined;
  if (!Array.isArray(v)) return undefined;
  let total = 0;
  for (const x of v) {
    if (!countable(x)) return undefined;
    total = addAmounts(total, x);
  }
  return total;
}
