/**
 * A session dropped by its caller is garbage for the young-generation collector too, whether or
 * not its history was read, in-process and through `Client`.
 *
 * V8's young collector takes as live whatever an old-generation object points to. Two ways this
 * project had of pointing at a young session from there: an object literal with accessors (V8 keeps
 * a literal's `get`/`set` in a map in the old generation; `session.history` was one, made at every
 * read, and `SerialSession` gave its guarded steps one with `get id()`), and a module-wide WeakMap
 * whose value holds the session's data (the young collector keeps such a value while its key is
 * young: each turn's folded form was one). Each kept every session, or its turns, alive and copied
 * twice until a full collection (engine history/caller-history.ts; docs/perf/README.md, round 27).
 * A third, found but not explained: an AI SDK guard whose constructor made closures (of its
 * catalogue, its language) kept its session so too, closures made by a module function do not
 * (cli/adapters/catalogue-parts.ts).
 *
 * Measured by what the old generation gains over young collections only, from sessions whose first
 * turn is large (kept, they would hold it) against the same sessions with a short turn. Only on
 * sessions that live a few hundred µs, as in-process engine sessions do: a session that lives
 * across young collections (a `Client` session waits on its state store and files) survives them
 * for that reason alone, and V8 then allocates its objects in the old generation from the start
 * (pretenuring), which this measure cannot tell from a session kept alive.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Client } from "../../cli/sdk/index.js";
import { Engine } from "../../worker/portable/engine/engine.js";
import { Session } from "../../worker/portable/engine/session.js";
import { SerialSession } from "../../worker/portable/engine/serial-session.js";
import { nodeCore } from "../../cli/sdk/wasm-node.js";
import { installationKey } from "../../cli/sdk/home.js";
import { catalogueFrom } from "../../cli/sdk/catalogue-input.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";
import { copyLicence } from "../helpers/licensed-home.js";
import { guard } from "../../cli/adapters/ai/index.js";

const catalogueFile = join(import.meta.dirname, "../../examples/store/agent.yaml");
const home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-hview-")));

interface Checked {
  read(text: string): Promise<unknown>;
  checkToolCall(tool: string, args: unknown, options?: object): Promise<unknown>;
  readonly history: { entries: unknown[] };
}

const SESSIONS = 60;
const TURN = 80_000;

/** What the old generation gained over young collections from SESSIONS dropped sessions, each with a first turn of `size` characters, its history read at every check. */
async function gained(make: () => Checked, size: number): Promise<number> {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as (o?: { type: "minor" | "major" }) => void;
  const oldSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === "old_space")!.space_used_size;
  gc();
  gc();
  const before = oldSpace();
  for (let i = 0; i < SESSIONS; i++) {
    const s = make();
    // a string of its own per session (kept, each would be TURN bytes)
    await s.read(`${"estorne 40,00 do pedido 4411 ".repeat(Math.ceil(size / 29)).slice(0, size)} ${i}`);
    for (let k = 0; k < 10; k++) {
      await s.checkToolCall("refund_card", { order_id: "4411", amount: 40 }, { origins: { order_id: "typed", amount: "model" } });
      expect(s.history.entries.length).toBe(k + 2);
    }
  }
  gc({ type: "minor" });
  gc({ type: "minor" });
  gc({ type: "minor" });
  return oldSpace() - before;
}

/** Large turns against short ones, after a warm-up: kept, the large sessions would add SESSIONS × TURN (4.8 MB). */
async function keptByTurns(make: () => Checked): Promise<number> {
  await gained(make, 10);
  const short = Math.max(await gained(make, 10), await gained(make, 10));
  const large = await gained(make, TURN);
  return large - short;
}

describe("a dropped session is young garbage, its history read or not", { timeout: 180_000 }, () => {
  const core = nodeCore();
  const engine = new Engine({ core, key: installationKey(mkdtempSync(join(tmpdir(), "stalwart-hview-key-"))), schemaCompiler: ajvCompiler });
  const catalogue = catalogueFrom(catalogueFile, { schemaCompiler: ajvCompiler, sha256: (b: Uint8Array) => core.sha256(b) });

  it("an in-process engine session", async () => {
    const s = new Session(engine, "billing", catalogue);
    expect(s.history).toBe(s.history);
    expect(Object.getOwnPropertyNames(s.history)).not.toContain("entries");
    expect(await keptByTurns(() => new Session(engine, "billing", catalogue))).toBeLessThan(1_500_000);
  });

  it("the same in the SDK's queue (SerialSession)", async () => {
    expect(await keptByTurns(() => new SerialSession(new Session(engine, "billing", catalogue)))).toBeLessThan(1_500_000);
  });

  it("the same guarded for the AI SDK, its guarded tools dropped with it", async () => {
    const tools = { get_order: { description: "an order", inputSchema: {}, execute: async () => ({ ok: true }) } };
    const guarded = () => {
      const s = new SerialSession(new Session(engine, "billing", catalogue));
      expect(Object.keys(guard(tools as never, s, { catalogue: catalogueFile }))).toEqual(["get_order"]);
      return s;
    };
    expect(await keptByTurns(guarded)).toBeLessThan(1_500_000);
  });

  it("a Client session's history is one object, its setter still taking a new list", async () => {
    const client = new Client({ home });
    const s = client.session("billing", { catalogue: catalogueFile });
    await s.read("estorne 40,00 do pedido 4411");
    expect(s.history).toBe(s.history);
    // the setter still hands the history a new list (an edited one fails the next check)
    s.history.entries = s.history.entries.slice(0, 0);
    expect(s.history.entries.length).toBe(0);
    client.close();
  });
});
