/**
 * `--listen HOST:PORT`, read apart from the HTTP side (http.ts) so that a gateway on stdio does
 * not load that side (its HTTP server and the SDK's HTTP transports: ~60–90 ms of every start).
 */
import { InputError } from "../../worker/portable/engine/index.js";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

export function parseListen(value: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(value);
  if (!m || Number(m[2]) > 65535) throw new InputError(`\`--listen ${value}\` is not HOST:PORT`, undefined, "e.g. `--listen 127.0.0.1:8765`");
  const host = m[1]!;
  if (!LOOPBACK.has(host)) throw new InputError(`\`--listen ${value}\`: the gateway binds to loopback only`, undefined, "use 127.0.0.1 (the person's own machine); put a reverse proxy with authentication in front for anything else");
  return { host: host.replace(/^\[|\]$/g, ""), port: Number(m[2]) };
}
