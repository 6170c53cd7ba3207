/**
 * The licence of the in-process SDK (licensing.md; checks.md step 1 and "quota_exhausted").
 *
 * A `Client` opens its licence once, lazily, on the first session operation (`session()` itself
 * stays synchronous); every async operation waits for it, and with no installation rejects with
 * `LicenceRequired` naming `stalwart licence activate`. Then, per operation:
 *   - the engine's step-1 hook reads `view()` (stage, onLapse, lapsedAt): a lapsed licence
 *     refuses writes (`reads_only`) or every check (`refuse`) with `licence_lapsed`; under
 *     `refuse` a turn throws `LicenceLapsed` (the engine's read, session-rules.ts);
 *   - each check counts the `tool_checks` meter first; past the plan's limit the check answers
 *     `refuse` / `quota_exhausted` naming the meter — an answer on the caller's side, outside the
 *     order, like `check_unavailable` (step -1, not recorded in the history), never an exception;
 *   - the first answer in a process starts the lease renewal in the background (the handle does
 *     that on `count` / `answered`; it never blocks or fails a check).
 */
import { openLicence, type LicenceHandle } from "../licence/index.js";
import { LicenceRequired, StalwartError } from "../../worker/portable/engine/index.js";
import type { LicenceGate } from "../../worker/portable/engine/index.js";
import type { CheckResult } from "../../worker/portable/engine/index.js";
import type { LicenceView } from "../../worker/portable/licensing/index.js";

/** What the SDK needs of an opened licence: `LicenceHandle` (cli/licence) has it all. */
export type LicencePort = Pick<LicenceHandle, "view" | "count" | "answered">;

/** Where to open the licence from, when the client is not handed an opened one. */
export interface LicenceSource {
  /** the home holding `licence/installation.json`; absent: $STALWART_HOME, else ~/.stalwart */
  home?: string;
  /** the licence's clock; default the client's `now` */
  now?: () => Date;
  serviceUrl?: string;
  fetch?: typeof fetch;
  /** `false`: never contact the licence service from this client */
  renew?: boolean;
}

export type LicenceOption = LicencePort | LicenceSource;

const METER = "tool_checks";

/** Any error here is a gate, not a crash: with no open licence the hook refuses everything. */
const CLOSED: LicenceGate = Object.freeze({ stage: "lapsed", onLapse: "refuse" });

const STAGES: ReadonlySet<unknown> = new Set(["active", "grace", "lapsed"]);
const ON_LAPSE: ReadonlySet<unknown> = new Set(["reads_only", "refuse"]);

/**
 * An injected licence is the host's object: a `view()` that throws, or answers no stage we know
 * (`null`, `{}`), refuses every check rather than reading as "not lapsed" (fail closed).
 */
function gateOf(port: LicencePort): LicenceGate {
  let view: unknown;
  try {
    view = port.view();
  } catch (err) {
    return unreadable(`its view() threw: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof view !== "object" || view === null) return unreadable(`its view() answered ${view === null ? "null" : typeof view}`);
  const { stage, onLapse, lapsedAt } = view as Partial<Record<keyof LicenceGate, unknown>>;
  if (!STAGES.has(stage)) return unreadable(`its view() answered stage ${JSON.stringify(stage) ?? "undefined"}`);
  if (stage === "lapsed" && !ON_LAPSE.has(onLapse)) return unreadable(`its view() answered onLapse ${JSON.stringify(onLapse) ?? "undefined"}`);
  return view as LicenceGate;
}

function unreadable(why: string): LicenceGate {
  return { stage: "lapsed", onLapse: "refuse", unreadable: `the licence cannot be read: ${why}` };
}

function isPort(x: LicenceOption): x is LicencePort {
  return typeof (x as LicencePort).view === "function" && typeof (x as LicencePort).count === "function";
}

/** One client's licence: opened once (a failed open is retried by the next operation). */
export class ClientLicence {
  private handle: LicencePort | undefined;
  private opening: Promise<LicencePort> | undefined;
  /** opened here (not injected): flushed by `close()` */
  private owned = false;

  constructor(
    private readonly source: LicenceOption | undefined,
    private readonly clientHome: string,
    private readonly clientNow: (() => Date) | undefined,
  ) {
    if (source && isPort(source)) this.handle = source;
  }

  /** The opened licence; rejects `LicenceRequired` (or `LicenceInvalid`) when there is none. */
  open(): Promise<LicencePort> {
    if (this.handle) return Promise.resolve(this.handle);
    if (!this.opening) {
      const s = (this.source ?? { home: this.clientHome }) as LicenceSource;
      const now = s.now ?? this.clientNow;
      this.opening = openLicence({
        // `{ now }` or `{ renew: false }` alone still means the client's home (outside audits 20 F3, 21 F5)
        home: s.home ?? this.clientHome,
        ...(now ? { now } : {}),
        ...(s.serviceUrl !== undefined ? { serviceUrl: s.serviceUrl } : {}),
        ...(s.fetch ? { fetch: s.fetch } : {}),
        ...(s.renew !== undefined ? { renew: s.renew } : {}),
      }).then(
        (h) => {
          this.handle = h;
          this.owned = true;
          return h;
        },
        (err: unknown) => {
          this.opening = undefined;
          throw requiredError(err);
        },
      );
    }
    return this.opening;
  }

  /** Step 1's hook (the engine calls it once per check): the current stage, never stale. */
  gate(): LicenceGate {
    return this.handle ? gateOf(this.handle) : CLOSED;
  }

  /** The view, for the bundles a session pins; one that throws pins none (its checks refuse by `gate`). */
  view(): LicenceView | undefined {
    try {
      return this.handle?.view();
    } catch {
      return undefined;
    }
  }

  /** A turn was recorded: an answer (the first one in a process renews the lease). An injected licence that throws here does not fail the turn. */
  answered(): void {
    try {
      this.handle?.answered();
    } catch {
      // the turn is recorded either way; renewal is background work, never the host's error
    }
  }

  /**
   * Count one check. Past the limit: the refusal the check answers instead (step -1); any other
   * failure to count is a refusal too (fail closed).
   */
  count(): CheckResult | undefined {
    const h = this.handle;
    if (!h) return refusal("internal_error", { wording: "the licence is not open" });
    try {
      h.count(METER);
      return undefined;
    } catch (err) {
      const e = err as StalwartError & { meter?: string; limit?: number; used?: number };
      if (e?.code === "quota_exhausted") {
        return refusal("quota_exhausted", { meter: e.meter ?? METER, limit: e.limit, used: e.used, wording: e.message });
      }
      if (e?.code === "MeterUnrecorded") {
        // counts that cannot be written are a limit that cannot be kept: fail closed, saying why
        return refusal("quota_exhausted", { meter: e.meter ?? METER, unrecorded: true, wording: `${e.message}; nothing is allowed until the counts can be written (\`stalwart doctor\`)` });
      }
      return refusal("internal_error", { wording: `the meter could not be counted (${e?.message ?? String(err)})` });
    }
  }

  /** Write this client's counts now (they are also written shortly after each count, and at exit). A failure is recorded, not thrown: the next check answers by it. */
  flush(): void {
    if (this.owned) (this.handle as LicenceHandle | undefined)?.flushInBackground?.();
  }
}

function refusal(reason: "quota_exhausted" | "internal_error", detail: Record<string, unknown>): CheckResult {
  return { decision: "refuse", reasons: [reason], detail, step: -1 };
}

/** `LicenceRequired` always names the commands that fix it. */
function requiredError(err: unknown): unknown {
  if (err instanceof LicenceRequired && !/stalwart licence activate/.test(`${err.message} ${err.hint ?? ""}`)) {
    return new LicenceRequired(err.message, "run `stalwart licence activate` with QLS_API_KEY set; for a development licence, `stalwart licence dev`");
  }
  return err;
}

/** The bundle digests a session pins at its start (recorded in each of its decisions). */
export function pinBundles(view: LicenceView | undefined): Readonly<Record<string, string>> | undefined {
  const digests = view?.bundleDigests;
  if (!digests || Object.keys(digests).length === 0) return undefined;
  return Object.freeze({ ...digests });
}

/**
 * For commands that need a licence but give no answer (`stalwart rules compile|check`): the
 * installation must be there and verify. Nothing is renewed or counted.
 */
export async function requireLicence(home?: string): Promise<void> {
  try {
    const handle = await openLicence({ ...(home !== undefined ? { home } : {}), renew: false });
    await handle.close();
  } catch (err) {
    throw requiredError(err);
  }
}
