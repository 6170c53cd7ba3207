/**
 * Another process's `counters reset` while this one looks at the files (outside audit 7, F13). The
 * reset moves the store and its witness aside and makes new ones; a look that found the witness
 * missing at that moment marked the store damaged against the files as they were a moment later
 * (the new store), so the process kept throwing CounterStoreDamaged for its life, while
 * `counters status` called the new store healthy. The damage is now kept against the files as
 * the look saw them: once they differ, the process opens what is there.
 *
 * The moment is made certain here: the look's `stat` of the witness runs the reset (in another
 * process, as a user would) and then reports the witness missing, as it was mid-reset.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type * as FileIdent from "../../cli/sdk/state/file-ident.js";
import { nodeState } from "../../cli/sdk/state/index.js";
import { builtModule } from "../helpers/built-cli.js";
import type { CounterItem } from "../../worker/portable/engine/index.js";

const hook = vi.hoisted(() => ({ onStat: undefined as undefined | ((path: string) => boolean) }));
vi.mock("../../cli/sdk/state/file-ident.js", async (original) => {
  const real = await original<typeof FileIdent>();
  return { ...real, statOf: (path: string) => (hook.onStat?.(path) ? undefined : real.statOf(path)) };
});

const NOV = Date.UTC(2026, 10, 15);
const item: CounterItem = { key: "spend|wallet|USD|month|2026-11", amount: 10, limit: 100, until: Date.UTC(2026, 11, 1) };

describe("a reset by another process in the middle of this one's look at the files", () => {
  it("is a moment of damage, then the new store is used", () => {
    const home = mkdtempSync(join(tmpdir(), "stalwart-reset-race-"));
    const store = nodeState(home, { now: () => NOV });
    for (let i = 0; i < 3; i++) expect(store.reserve(`r${i}`, [item], NOV)).toEqual({ ok: true });
    expect(store.peek([{ ...item, amount: 80 }], NOV)).toEqual({ ok: false, key: item.key, used: 30, limit: 100 });
    hook.onStat = (path) => {
      if (!path.endsWith("state.witness")) return false;
      hook.onStat = undefined;
      const code = `import { resetState } from ${JSON.stringify(builtModule("cli/sdk/state/index.js"))}; resetState(${JSON.stringify(home)}, { by: "other", force: true });`;
      execFileSync(process.execPath, ["--input-type=module", "-e", code], { cwd: join(import.meta.dirname, "../..") });
      return true; // missing, as the look found it mid-reset
    };
    expect(() => store.peek([item], NOV)).toThrow(expect.objectContaining({ code: "CounterStoreDamaged", message: expect.stringMatching(/witness .* was deleted while in use/) }));
    expect(hook.onStat, "the look ran the reset").toBeUndefined();
    // the files are the reset's now, not the ones the look saw: opened, and the counts start anew
    expect(store.peek([{ ...item, amount: 80 }], NOV)).toEqual({ ok: true });
    expect(store.load("s").head).toBeNull();
  }, 60_000);
});
