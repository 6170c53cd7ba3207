/**
 * The licence service as the runtime sees it: API-key calls (activate, offline answer, licence,
 * account) and installation-signed calls (refresh, release, bundles, usage reports). Every
 * outgoing body is checked against the organisation's own identifiers first: nothing containing
 * one is sent (licensing.md, bundles).
 */
import { containsOwnIdentifier, signRequest, LicenceServiceError } from "../../worker/portable/licensing/index.js";
import { fetchFailure } from "../sdk/fetch-failure.js";

export const DEFAULT_SERVICE_URL = "http://127.0.0.1:8788";
/**
 * The service of a development licence (`stalwart licence dev`): it ran inside that command and
 * is gone, so no request reaches it and nothing renews the lease in the background.
 */
export const DEV_SERVICE_URL = "in-process://stalwart-licence-dev";
const TIMEOUT_MS = 10_000;
/** The largest answer read (a licence, a lease, a bundle): past it the answer is `service_bad_answer`, not read whole. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export interface SignedIdentity {
  licenceId: string;
  installationId: string;
  secretKey: Uint8Array;
}

export class ServiceClient {
  constructor(
    readonly baseUrl: string,
    private readonly fetchImpl: typeof fetch = fetch,
    private readonly ownIdentifiers: readonly string[] = [],
  ) {}

  async withKey<T>(method: string, path: string, apiKey: string, body?: unknown): Promise<T> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
    if (text !== undefined) headers["content-type"] = "application/json";
    return this.send<T>(method, path, headers, text);
  }

  async signed<T>(method: string, path: string, who: SignedIdentity, now: Date, body?: unknown): Promise<T> {
    const text = body === undefined ? "" : JSON.stringify(body);
    const headers = await signRequest({ method, path, body: text, licenceId: who.licenceId, installationId: who.installationId, secretKey: who.secretKey, now });
    if (text) headers["content-type"] = "application/json";
    return this.send<T>(method, path, headers, text || undefined);
  }

  private async send<T>(method: string, path: string, headers: Record<string, string>, body: string | undefined): Promise<T> {
    if (body !== undefined) {
      const hit = containsOwnIdentifier(body, this.ownIdentifiers);
      if (hit !== undefined) {
        throw new LicenceServiceError(0, "own_identifier_withheld", "a request to the licence service contained one of the organisation's own identifiers and was not sent", "remove the identifier from what is being reported (own_identifiers bundle)");
      }
    }
    const url = new URL(path, this.baseUrl).toString();
    let res: Response;
    try {
      res = await this.fetchImpl(url, { method, headers, ...(body !== undefined ? { body } : {}), signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (err) {
      if (this.baseUrl === DEV_SERVICE_URL) {
        throw new LicenceServiceError(0, "service_unreachable", "a development licence has no licence service to reach: it ran inside `stalwart licence dev`", "run `stalwart licence dev` again to renew the development licence");
      }
      throw new LicenceServiceError(0, "service_unreachable", `the licence service at \`${this.baseUrl}\` could not be reached (${fetchFailure(err)})`, "check the network, or set STALWART_LICENCE_URL to the service's base URL");
    }
    const bad = (what: string) => new LicenceServiceError(res.status, "service_bad_answer", `the licence service answered ${res.status} with ${what}`, "check STALWART_LICENCE_URL points at a licence service");
    const text = await boundedText(res, MAX_ANSWER_BYTES);
    if (text === undefined) throw bad(`a body over ${MAX_ANSWER_BYTES} bytes`);
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      throw bad("a body that is not JSON");
    }
    // JSON, but not an object (null, a list, a number): no answer of the service is one
    if (typeof payload !== "object" || payload === null || Array.isArray(payload)) throw bad(`JSON ${payload === null ? "null" : Array.isArray(payload) ? "list" : typeof payload}, not an object`);
    if (!res.ok) {
      const raw = (payload as { error?: unknown }).error;
      const e = (typeof raw === "object" && raw !== null ? raw : {}) as { code?: unknown; message?: unknown; hint?: unknown; pointer?: unknown };
      const str = (x: unknown) => (typeof x === "string" ? x : undefined);
      throw new LicenceServiceError(res.status, str(e.code) ?? `http_${res.status}`, str(e.message) ?? `the licence service answered ${res.status}`, str(e.hint), str(e.pointer));
    }
    return payload as T;
  }
}

/** The body as text, or undefined once it passes `max` bytes (the rest is not read). */
async function boundedText(res: Response, max: number): Promise<string | undefined> {
  const declared = Number(res.headers.get("content-length"));
  if (declared > max) {
    await res.body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(all);
}
