/**
 * `fetch` for the background renewal only (handle.ts): its connection does not hold the process
 * open. A host whose own work is done exits at once, with the renewal dropped (the next process
 * renews), instead of waiting up to the request's timeout for a slow or silent service
 * (outside audit 17, F7). Foreground commands (`licence activate`, `status --refresh`) keep
 * Node's `fetch`: there, the answer is the work.
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";

export const backgroundFetch: typeof fetch = (input, init = {}) =>
  new Promise<Response>((resolve, reject) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      reject(new TypeError("fetch failed", { cause: new Error(`unsupported protocol \`${url.protocol}\``) }));
      return;
    }
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => (headers[k] = v));
    const req = (url.protocol === "https:" ? httpsRequest : httpRequest)(url, { method: init.method ?? "GET", headers });
    req.on("socket", (socket) => socket.unref());
    const signal = init.signal;
    const abort = () => req.destroy(signal?.reason instanceof Error ? signal.reason : new Error("aborted"));
    if (signal?.aborted) abort();
    signal?.addEventListener("abort", abort, { once: true });
    req.on("error", (err) => reject(new TypeError("fetch failed", { cause: err })));
    req.on("response", (res) => {
      try {
        resolve(new Response(streamOf(res), { status: res.statusCode ?? 502, headers: responseHeaders(res) }));
      } catch (err) {
        res.destroy();
        reject(new TypeError("fetch failed", { cause: err }));
      }
    });
    if (typeof init.body === "string") req.write(init.body);
    req.end();
  });

function responseHeaders(res: IncomingMessage): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(", ") : v);
  return h;
}

/** The body as a web stream, read as it arrives; cancelling it (an answer too large) closes the connection. */
function streamOf(res: IncomingMessage): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(c) {
      res.on("data", (d: Buffer) => c.enqueue(new Uint8Array(d.buffer, d.byteOffset, d.byteLength)));
      res.on("end", () => c.close());
      res.on("error", (e) => c.error(e));
    },
    cancel() {
      res.destroy();
    },
  });
}
