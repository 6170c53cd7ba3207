/**
 * Why a tool server given by `--url` did not answer `initialize`, in words that name the cause and
 * what to look at. The SDK's own errors say "fetch failed" for a refused connection or an unknown
 * host (the cause is one level down), and "Error POSTing to endpoint: <body>" without the status.
 */
import { SdkError, SdkHttpError } from "@modelcontextprotocol/client";
import { fetchFailure } from "../sdk/fetch-failure.js";

export interface UrlFailure {
  why: string;
  hint: string;
}

const REACH = "is a tool server running at that address, serving MCP over streamable HTTP? (A tool server started by a command is given as `-- CMD ARGS…` instead.)";
const PATH = "is that the path where it serves MCP (often `/mcp`)?";
const CREDENTIALS = "does it need credentials? Send them with `--header 'Authorization: …'`, or `--header-env Authorization=VAR` to keep the secret out of the process list";

export function urlFailure(url: URL, err: unknown): UrlFailure {
  if (err instanceof SdkHttpError) {
    const { status, statusText, text } = (err.data ?? {}) as { status?: unknown; statusText?: unknown; text?: unknown };
    if (typeof status === "number") {
      const body = typeof text === "string" ? oneLine(text) : "";
      const why = `it answered HTTP ${status}${typeof statusText === "string" && statusText ? ` ${statusText}` : ""}${body ? ` (${body})` : ""}`;
      return { why, hint: status === 401 || status === 403 ? CREDENTIALS : status === 404 || status === 405 ? PATH : REACH };
    }
  }
  if (err instanceof SdkError) {
    const { contentType } = (err.data ?? {}) as { contentType?: unknown };
    if (typeof contentType === "string") return { why: `it answered with \`${oneLine(contentType)}\`, which is not MCP (JSON or an event stream)`, hint: PATH };
  }
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : undefined;
  if (cause === "bad port") {
    return { why: `fetch does not connect to port ${url.port}: it is one of the ports that browsers and Node's fetch refuse (6000 and 5060 among them)`, hint: "serve the tool server on another port" };
  }
  return { why: fetchFailure(err), hint: REACH };
}

/** A server's text on one short line: it is quoted in an error, not shown whole. */
function oneLine(text: string): string {
  const line = text.slice(0, 400).replace(/\s+/g, " ").trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
