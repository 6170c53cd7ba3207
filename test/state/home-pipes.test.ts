/**
 * A pipe (FIFO) put in place of a home file — the store, the history key or its record, the
 * licence's counts — while a client runs or between runs. Opening it waited for a writer: the
 * check (or the counts' flush, on a timer) never ended and the process hung. Each is now a typed
 * error naming the file. Each case runs in a process of its own (the host that hung), with a
 * deadline.
 */
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { mkdtempSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { copyLicence } from "../helpers/licensed-home.js";
import { builtModule } from "../helpers/built-cli.js";

const repo = resolve(import.meta.dirname, "../..");

/**
 * A client on `home`: one counted check, `act` (a file to replace by a pipe, or none), then two
 * checks; one line per answer. The pipe goes where the file is or is about to be: the counts are
 * first written on the turn of the event loop after the first answer, not before it returns.
 */
function host(home: string, pipe: string | null, first = true): string[] {
  const code = `
    import { execFileSync } from "node:child_process";
    import { rmSync } from "node:fs";
    import { join } from "node:path";
    import { Client } from ${JSON.stringify(builtModule("cli/sdk/index.js"))};
    const home = ${JSON.stringify(home)};
    const client = new Client({ home, now: () => new Date("2026-11-15T12:00:00Z") });
    const check = async () => {
      try {
        const s = client.session("s", { catalogue: "test/fixtures/ceiling.yaml" });
        const r = await s.checkToolCall("pay", { amount: 1 }, { origins: { amount: "context" } });
        console.log(r.decision + " " + r.reasons.join(",") + " " + (r.detail.error ?? "") + " " + (r.detail.wording ?? ""));
      } catch (e) { console.log("threw " + e.code + " " + e.message); }
    };
    ${first ? "await check();" : ""}
    ${pipe ? `rmSync(join(home, ${JSON.stringify(pipe)}), { force: true }); execFileSync("mkfifo", [join(home, ${JSON.stringify(pipe)})]);` : ""}
    await check(); await check();`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", code], { cwd: repo, encoding: "utf8", timeout: 30_000, stdio: ["ignore", "pipe", "pipe"] });
  return out.trim().split("\n");
}

const NOT_REGULAR = "is not a regular file (a pipe, a device or a socket was put in its place)";

describe("a pipe in place of a home file", () => {
  it("the store, while a client runs: counted calls refuse `spend_unknown` naming it", () => {
    const home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-pipe-")));
    const [first, ...rest] = host(home, "state.mdb");
    expect(first).toMatch(/^allow /);
    for (const line of rest) expect(line).toBe(`refuse spend_unknown CounterStoreDamaged the counter and session store \`${join(home, "state.mdb")}\` is damaged: it ${NOT_REGULAR}`);
  }, 60_000);

  it("the history key, while a client runs: KeyUnreadable naming it", () => {
    const home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-pipe-")));
    const [first, ...rest] = host(home, "history.key");
    expect(first).toMatch(/^allow /);
    for (const line of rest) expect(line).toContain(`threw KeyUnreadable the history key in \`${join(home, "history.key")}\` cannot be read (\`${join(home, "history.key")}\` ${NOT_REGULAR})`);
  }, 60_000);

  it("the licence's counts, while a client runs: their flush (a timer, and at exit) fails instead of hanging the process", () => {
    const home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-pipe-")));
    const lines = host(home, "licence/counters.json");
    expect(lines).toHaveLength(3); // the process answered every check and exited (before: it never did)
    expect(lines[0]).toMatch(/^allow /);
  }, 60_000);

  it.each(["history.key", "history.key.id", "state.mdb"])("%s, between runs: the next client's checks are typed errors or refusals naming it", (file) => {
    const home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-pipe-")));
    host(home, null);
    const lines = host(home, file, false);
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).toContain(`${join(home, file)}\` `);
    for (const line of lines) expect(line).toMatch(/^(threw KeyUnreadable|refuse spend_unknown CounterStoreDamaged) /);
  }, 60_000);
});
