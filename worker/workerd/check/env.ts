/** The check worker's options, bindings and per-request context variables (typed for every route). */
import type { CallOptions, CheckResult, CompiledCatalogue, Core, Session, SignedReceipt } from "../../portable/engine/index.js";
import type { KeySet, LicenceState } from "../../portable/licensing/index.js";
import type { LicenceStore, RenewalEnv } from "./renewal.js";
import type { Stores } from "./stores.js";
import type { SessionShape } from "./session-shape.js";
import type { TenantConfig } from "./tenants.js";
import type { WorkerApprovalStore } from "./approvals-store.js";
import type { HeldPrefix } from "./verified-heads.js";

export interface AppOptions {
  core: () => Core;
  stores: (env: unknown) => Stores;
  /** the wall clock (licences, leases) and the default request clock; default: the system's */
  now?: () => Date;
  version?: string;
  /** the key set licences and leases must verify under; default: the one compiled into this build */
  trustedKeys?: KeySet;
  /** the fetch lease renewals use (renewal.ts); default: the global one */
  fetch?: typeof fetch;
  /** where renewed leases are shared between isolates (the LICENCE_STATE Durable Object); none: per isolate only */
  licenceStore?: (env: unknown, installationId: string) => LicenceStore | undefined;
  /** where a tenant's pending confirmations live (approvals-store.ts); default: the APPROVALS binding, else memory */
  approvals?: (env: unknown, tenant: string) => WorkerApprovalStore;
  /** the body limit, and so a session's in its full form (carried.ts); default MAX_BODY_BYTES, 1 MiB */
  maxBodyBytes?: number;
}

/** The sessions a request resumed, each with the form it came in and what the isolate held of it (runtime.ts). */
export type CarriedForms = Map<Session, { saved: SessionShape; held: HeldPrefix | undefined }>;

export type CheckEnv = {
  Bindings: TenantConfig & RenewalEnv & Record<string, unknown>;
  Variables: {
    /** the tenant the bearer key belongs to (tenants.ts) */
    tenant: string;
    /** the licence this request answers under (licence.ts, renewal.ts) */
    licence: LicenceState;
    /** this request's clock (clock.ts) */
    now: () => Date;
    /** the sessions this request resumed, each with the form it came in (runtime.ts) */
    carried?: CarriedForms;
    /** the person's decision on the call a presented token covers, from the tenant's approvals (approvals.ts) */
    decisionOf?: (token: string) => Promise<SignedReceipt | undefined>;
    /** what POST /v1/check answered, for the approvals (approvals.ts): a confirm becomes a pending record */
    checked?: {
      /** the session's id: what its confirmation token names (read here, not from the token again) */
      session: string;
      tool: string; args: unknown; options: CallOptions; check: CheckResult;
      /** the catalogue the session was resumed with */
      catalogue: CompiledCatalogue;
      /** the step of the person's last turn, -1 before any (a `per: run` counter's run follows it) */
      run: () => number;
      /** the tool whose result a step is, for a `result:` origin's words on the page */
      resultTool: (step: number) => string | undefined;
    };
  };
};
