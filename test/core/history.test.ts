/**
 * Property test of the signed history: random mutations of a valid history are every one
 * detected (`history_invalid`), and an untouched history keeps verifying, also after resume.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, type ClientSession } from "../../cli/sdk/index.js";
import { copyLicence } from "../helpers/licensed-home.js";
import { canonicalize } from "../../worker/portable/engine/canonical/jcs.js";
import { prng as rng } from "../helpers/prng.js";

const catalogue = join(import.meta.dirname, "../../examples/store/agent.yaml");
const home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-hist-")));


async function build(client: Client, n: number): Promise<ClientSession> {
  const s = client.session("billing", { catalogue });
  await s.read("estorne 40,00 do pedido 4411");
  for (let i = 0; s.history.entries.length < n; i++) {
    const c = await s.checkToolCall(i % 3 === 0 ? "get_order" : "refund_card", i % 3 === 0 ? { order_id: String(4400 + i) } : { order_id: "4411", amount: 40 }, {
      origins: { order_id: "typed", amount: i % 2 ? "typed" : "model" },
      ...(i % 5 === 0 ? { labels: { call: ["untrusted:read_inbox"] } } : {}),
    });
    if (c.decision === "allow") await s.report(c.step, "ran", { order_id: String(4400 + i), total: i, status: "paid" });
  }
  return s;
}

type Mutation = (entries: Record<string, unknown>[], r: () => number, other: Record<string, unknown>[]) => string;

function different(v: unknown, r: () => number): unknown {
  const options: unknown[] = [null, 0, 1, -1, 40.5, "", "x", "get_order", "allow", "refuse", [], ["write"], {}, { a: 1 }, true];
  for (;;) {
    const pick = options[Math.floor(r() * options.length)];
    if (canonicalize(pick) !== canonicalize(v ?? null)) return pick;
  }
}

const MUTATIONS: Record<string, Mutation> = {
  edit(entries, r) {
    const e = entries[Math.floor(r() * entries.length)]!;
    const keys = Object.keys(e);
    const k = keys[Math.floor(r() * keys.length)]!;
    e[k] = different(e[k], r);
    return `edit ${String(e.step)}.${k}`;
  },
  flipLinkChar(entries, r) {
    const e = entries[Math.floor(r() * entries.length)]!;
    const link = String(e.link);
    const i = Math.floor(r() * link.length);
    e.link = link.slice(0, i) + (link[i] === "0" ? "1" : "0") + link.slice(i + 1);
    return `link ${String(e.step)}`;
  },
  addField(entries, r) {
    const e = entries[Math.floor(r() * entries.length)]!;
    e.extra = "x";
    return `add field ${String(e.step)}`;
  },
  deleteField(entries, r) {
    const e = entries[Math.floor(r() * entries.length)]!;
    const keys = Object.keys(e);
    delete e[keys[Math.floor(r() * keys.length)]!];
    return `delete field ${String(e.step)}`;
  },
  remove(entries, r) {
    const i = Math.floor(r() * entries.length);
    entries.splice(i, 1);
    return `remove ${i}`;
  },
  swap(entries, r) {
    const i = Math.floor(r() * (entries.length - 1));
    const t = entries[i]!;
    entries[i] = entries[i + 1]!;
    entries[i + 1] = t;
    return `swap ${i}`;
  },
  truncate(entries, r) {
    const n = Math.floor(r() * entries.length);
    entries.length = n;
    return `truncate to ${n}`;
  },
  duplicate(entries, r) {
    const i = Math.floor(r() * entries.length);
    entries.splice(i, 0, JSON.parse(JSON.stringify(entries[i])));
    return `duplicate ${i}`;
  },
  splice(entries, r, other) {
    const i = Math.floor(r() * Math.min(entries.length, other.length));
    entries[i] = JSON.parse(JSON.stringify(other[i]));
    return `splice ${i} from another session`;
  },
  nestedEdit(entries) {
    const e = entries.find((x) => x.kind === "check" && Array.isArray(x.reasons) && (x.reasons as unknown[]).length > 0);
    if (!e) return "none";
    (e.reasons as string[]).push("write");
    return `push reason ${String(e.step)}`;
  },
  resultEdit(entries) {
    const e = entries.find((x) => x.kind === "report" && x.result && typeof x.result === "object");
    if (!e) return "none";
    (e.result as Record<string, unknown>).total = 99999;
    return `edit result ${String(e.step)}`;
  },
};

describe("signed history (property)", () => {
  it("detects every random mutation, in a live session and after resume", async () => {
    const r = rng(2026);
    const client = new Client({ home });
    const other = await build(client, 30);
    const otherEntries = JSON.parse(JSON.stringify(other.history.entries));
    let detected = 0;
    for (let round = 0; round < 300; round++) {
      const live = await build(client, 12 + Math.floor(r() * 20));
      const names = Object.keys(MUTATIONS);
      const name = names[Math.floor(r() * names.length)]!;
      const resumed = round % 2 === 1;
      const target = resumed ? client.resume(live.toJSON(), { catalogue }) : live;
      const what = MUTATIONS[name]!(target.history.entries as never, r, otherEntries);
      if (what === "none") continue;
      const answer = await target.checkToolCall("get_order", { order_id: "4411" });
      expect(answer.reasons, `${what}${resumed ? " (resumed)" : ""}`).toEqual(["history_invalid"]);
      expect(answer.step, "a new history starts at step 0").toBe(0);
      detected++;
    }
    expect(detected).toBeGreaterThan(250);
  });

  it("an untouched history verifies, live and resumed, and a no-op write is harmless", async () => {
    const client = new Client({ home });
    const s = await build(client, 40);
    expect((await s.checkToolCall("get_order", { order_id: "1" })).decision).toBe("allow");
    const again = client.resume(JSON.parse(JSON.stringify(s.toJSON())), { catalogue });
    expect((await again.checkToolCall("get_order", { order_id: "1" })).decision).toBe("allow");
    const e = again.history.entries[3] as unknown as Record<string, unknown>;
    e.tool = e.tool; // a write that changes nothing is verified in full, and passes
    expect((await again.checkToolCall("get_order", { order_id: "1" })).decision).toBe("allow");
  });

  it("a tampered saved header is a typed error", async () => {
    const client = new Client({ home });
    const s = await build(client, 5);
    const saved = s.toJSON() as unknown as Record<string, unknown>;
    saved.context = { customer: "someone-else" };
    expect(() => client.resume(saved as never, { catalogue })).toThrow(/header was changed/);
    expect(() => client.resume({ nope: 1 } as never, { catalogue })).toThrow(/toJSON/);
  });

  it("a non-object history is refused, not a crash", async () => {
    const client = new Client({ home });
    const s = await build(client, 3);
    (s.history as { entries: unknown }).entries = "not a list";
    const a = await s.checkToolCall("get_order", { order_id: "1" });
    expect(a.reasons).toEqual(["history_invalid"]);
    s.history.entries = [42 as never];
    expect((await s.checkToolCall("get_order", { order_id: "1" })).reasons).toEqual(["history_invalid"]);
  });
});
