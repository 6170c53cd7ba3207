/** Small pure parts of a call's handling (calls.ts): what a refusal's `_meta` says, and values read without throwing. */
import type { CheckResult } from "../../worker/portable/engine/index.js";
import { canonicalize, sha256Hex } from "../../worker/portable/engine/index.js";

/** The check's answer as a result's `_meta` carries it. */
export function summary(check: CheckResult): Record<string, unknown> {
  return { decision: check.decision, reasons: check.reasons, detail: check.detail, step: check.step };
}

export function safeCanonical(v: unknown): string | undefined {
  try {
    return canonicalize(v);
  } catch {
    return undefined;
  }
}

export function safeDigest(args: unknown): string | undefined {
  try {
    return sha256Hex(canonicalize(args));
  } catch {
    return undefined;
  }
}

export function progressTokenOf(meta: Record<string, unknown> | undefined): string | number | undefined {
  const t = meta?.progressToken;
  return typeof t === "string" || typeof t === "number" ? t : undefined;
}
