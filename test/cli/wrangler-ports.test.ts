/**
 * The tests' servers under `wrangler dev` (scripts/wrangler-server.mjs) get ports nothing else is
 * handed: below the kernel's range for outgoing connections, whose ports a busy run's own
 * connections take. A port taken between the choice and wrangler's bind (seen once in CI: "Address
 * already in use") is chosen again, not a failed test; a port the caller gave is not. A workerd that
 * stops at start-up logging nothing of its own (seen once in CI) is started again, twice at most.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer, type Server } from "node:net";
import { describe, expect, it } from "vitest";
// @ts-expect-error — a plain .mjs helper shared with scripts/dev.mjs
import { freePort, PortTaken, RuntimeDidNotStart, startFailure, startWrangler } from "../../scripts/wrangler-server.mjs";

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

  // What wrangler printed in the CI run where workerd stopped at start-up with nothing else logged.
  const silent =
    "\u001b[31m✘ \u001b[41;31m[\u001b[41;97mERROR\u001b[41;31m]\u001b[0m \u001b[1mThe Workers runtime failed to start. There is likely additional logging output above.\u001b[0m\n\n\n" +
    '🪵  Logs were written to "/root/.config/.wrangler/logs/wrangler-2026-12-07_10-44-50_175.log"\n';

  it("a runtime that stops at start-up with no error of its own is tried again; a script's own error is not", async () => {
    expect(startFailure(silent)).toBeInstanceOf(RuntimeDidNotStart);
    expect(startFailure(silent.replace("The Workers", "Address already in use (127.0.0.1:20123)\nThe Workers"))).toBeInstanceOf(PortTaken);

    const dir = mkdtempSync(join(tmpdir(), "stalwart-wfail-"));
    writeFileSync(join(dir, "w.mjs"), 'throw new Error("boom at start");\nexport default { fetch() { return new Response("ok"); } };\n');
    writeFileSync(join(dir, "wrangler.toml"), 'name = "wfail"\nmain = "w.mjs"\ncompatibility_date = "2025-01-01"\n');
    let picks = 0;
    const err = await startWrangler({ config: join(dir, "wrangler.toml"), health: "/", pickPort: async () => (++picks, freePort()) }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(RuntimeDidNotStart);
    expect(String((err as Error).message)).toContain("boom at start");
    expect(picks).toBe(1);
  }, 120_000);
});
