/**
 * The tests' servers under `wrangler dev` (scripts/wrangler-server.mjs) get ports nothing else is
 * handed: below the kernel's range for outgoing connections, whose ports a busy run's own
 * connections take. A port taken between the choice and wrangler's bind (seen once in CI: "Address
 * already in use") is chosen again, not a failed test; a port the caller gave is not.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { describe, expect, it } from "vitest";
// @ts-expect-error — a plain .mjs helper shared with scripts/dev.mjs
import { freePort, PortTaken, startWrangler } from "../../scripts/wrangler-server.mjs";

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(port, "127.0.0.1", () => resolve(s));
  });
}

describe("the tests' wrangler ports", () => {
  it("are free, and below the kernel's range for outgoing connections", async () => {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    for (let i = 0; i < 20; i++) {
      const port = (await freePort()) as number;
      expect(port).toBeGreaterThanOrEqual(20000);
      expect(port).toBeLessThan(Math.max(21000, Math.min(low, 32768)));
      (await listen(port)).close();
    }
  });

  it("a port taken before wrangler binds it is chosen again; one the caller gave is their error", async () => {
    const busy = (await freePort()) as number;
    const holder = await listen(busy);
    try {
      let picks = 0;
      const w = await startWrangler({ pickPort: async () => (++picks === 1 ? busy : freePort()) });
      try {
        expect(picks).toBe(2);
        expect(w.port).not.toBe(busy);
        expect((await fetch(`${w.url}/v1/health`)).ok).toBe(true);
      } finally {
        await w.stop();
      }
      const given = await startWrangler({ port: busy }).then(
        () => null,
        (err: unknown) => err,
      );
      expect(given).toBeInstanceOf(PortTaken);
      expect((given as { port: number }).port).toBe(busy);
    } finally {
      holder.close();
    }
  }, 180_000);
});
