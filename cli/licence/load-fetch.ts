/**
 * Node defines `fetch` and its classes lazily: the first use loads undici, about 40 ms of CPU on
 * Node 20. A lease renewal's first request would pay that on the main thread, in front of whatever
 * waits; a process that knows a renewal is coming loads it at a moment when nothing does (the
 * gateway, as it starts). Reading any of those globals loads it. Never throws: a load that fails
 * here is only done again (and reported) where the renewal uses `fetch`.
 */
export function loadFetch(): void {
  try {
    void globalThis.Headers;
  } catch {
    // (see above)
  }
}
