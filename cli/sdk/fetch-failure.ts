/**
 * What a failed `fetch` says, in words: Node's fetch rejects with "fetch failed" and puts the
 * reason (a refused connection, an unknown host, a port it will not use) in the error's `cause`.
 */
export function fetchFailure(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? err.cause.message : undefined;
  return cause && !err.message.includes(cause) ? `${err.message}: ${cause}` : err.message;
}
