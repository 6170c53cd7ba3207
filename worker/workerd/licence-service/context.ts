/**
 * What the licence service's routes share: the Hono env (bindings and the per-request variables
 * its authentication middleware sets), the body rules and field checks, the id formats.
 */
import type { Context } from "hono";
import { fields, type JsonRules } from "../http/body.js";
import type { RequestParts } from "./deps.js";
import type { KeyGrant } from "./directory-object.js";
import type { Env } from "./env.js";
import { bad } from "./errors.js";

/** An installation-signed call as the Durable Object verifies it. */
interface SignedCall {
  parts: RequestParts;
  signature: string;
}

export type ServiceEnv = {
  Bindings: Env;
  Variables: {
    /** the organisation's API key, resolved (auth.ts `apiKey`) */
    grant: KeyGrant;
    /** the signed parts of an installation's request (auth.ts `signed`) */
    call: SignedCall;
    /** that request's body, parsed after its bytes were hashed */
    signedBody: Record<string, unknown>;
  };
};

export type C = Context<ServiceEnv>;

/** 64 KiB: every request the service takes is small. */
export const MAX_BODY = 64 * 1024;

/** Bodies are JSON whatever their content type says, an empty one is `{}`, bad input `malformed_request`. */
export const BODY: JsonRules = { anyType: true, emptyIsObject: true, invalid: (message, pointer) => bad(message, pointer) };
export const { field,  } = fields(BODY.invalid);

export const INSTALLATION_ID = /^inst_[A-Za-z0-9_-]{16,64}$/;
export const LICENCE_ID = /^lic_[A-Za-z0-9_-]{16,64}$/;
export const ORG_ID = /^org_[A-Za-z0-9_-]{16,64}$/;

export const matches = (re: RegExp) => (v: unknown): v is string => typeof v === "string" && re.test(v);
