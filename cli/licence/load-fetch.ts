/**
 * Node defines `fetch` and its classes lazily: the first use loads undici, about 40 ms of CPU on
 * Node 20. A lease renewal's first request would pay that on the main thread, in front of whatever
 * waits; a process that knows a renewal is coming loads it at a moment when nothing does (the
 * gateway, while its tool server starts). Reading any of those globals loads it.
 */
export function loadFetch(): void {
  void globalThis.Headers;
}
