/**
 * The licence in the runtime (licensing.md "When the licence lapses", "Meters"; checks.md step 1,
 * `licence_lapsed`, `quota_exhausted`), through the in-process SDK with an injected clock and the
 * fixture installation, the licence service unreachable (a fetch that rejects):
 *   - active → grace → lapsed, for both `on_licence_lapse` values: what a turn, a read
 *     (`get_order`) and a write (`refund_card`) get at each stage;
 *   - the whole conformance corpus under a lapsed licence: nothing the licensed runtime refused or
 *     confirmed is allowed;
 *   - no licence: `LicenceRequired`; past the `tool_checks` limit: `quota_exhausted`;
 *   - bundles pinned per session; the first answer starts the renewal in the background;
 *   - the CLI: `replay` and `rules compile` stop with `LicenceRequired` without a licence.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Client, type ClientSession } from "../../cli/sdk/index.js";
import { openLicence, resetRenewals, type LicenceHandle } from "../../cli/licence/index.js";
import { DAY_MS, type LicenceView, type OnLapse } from "../../worker/portable/licensing/index.js";
import { unreachable, writeFixtureInstallation } from "../helpers/licence-fixtures.js";
import { licensedHome, licensedHomeWith } from "../helpers/licensed-home.js";
import { loadCases, REPO, runCase, type Driver, type StepOutcome } from "../conformance/runner.js";
import { run as replay } from "../../cli/commands/replay.js";
import { run as rules } from "../../cli/commands/rules.js";

const CATALOGUE = join(REPO, "examples/store/agent.yaml");
const T0 = new Date("2026-03-02T12:00:00Z");
const temp = (tag: string) => mkdtempSync(join(tmpdir(), `stalwart-gate-${tag}-`));

/** A client on the fixture installation (lease ends day 7, grace day 37) with a movable clock. */
async function staged(onLapse: OnLapse) {
  let t = T0.getTime();
  const now = () => new Date(t);
  const { home } = await writeFixtureInstallation({ now: T0, onLapse, leaseEndsInDays: 7, graceDays: 30 });
  const licence = await openLicence({ home, now, fetch: unreachable });
  const client = new Client({ home: temp("state"), now, licence });
  return { client, licence, at: (days: number) => (t = T0.getTime() + days * DAY_MS) };
}

/** A turn, a read and a write in a new session, and what each got. */
async function turnReadWrite(client: Client, name: string, turns = true) {
  const s = client.session(name, { catalogue: CATALOGUE });
  const turn = turns ? await s.read("estorne 40,00 do pedido 4411") : undefined;
  const read = await s.checkToolCall("get_order", { order_id: "4411" });
  const write = await s.checkToolCall("refund_card", { order_id: "4411", amount: 40 }, { origins: { order_id: "typed", amount: "typed" } });
  const recorded = turn ? s.history.entries[turn.step] : undefined;
  return { s, turn, recorded, read, write };
}

const shape = (r: { decision: string; reasons: string[] }) => ({ decision: r.decision, reasons: r.reasons });

describe("active → grace → lapsed (service unreachable)", () => {
  for (const onLapse of ["reads_only", "refuse"] as const) {
    it(`on_licence_lapse: ${onLapse}`, async () => {
      const st = await staged(onLapse);

      // active (day 0): the reference answers
      expect(st.licence.view().stage).toBe("active");
      const active = await turnReadWrite(st.client, "active");
      expect(active.recorded).toMatchObject({ kind: "turn", text: "estorne 40,00 do pedido 4411" });
      expect(shape(active.read)).toEqual({ decision: "allow", reasons: [] });
      expect(active.write.decision).toBe("confirm");

      // grace (day 10): the lease ended, the service cannot be reached — everything as when active
      st.at(10);
      expect(st.licence.view().stage).toBe("grace");
      const grace = await turnReadWrite(st.client, "grace");
      expect(grace.recorded).toMatchObject({ kind: "turn" });
      expect(shape(grace.read)).toEqual(shape(active.read));
      expect(shape(grace.write)).toEqual(shape(active.write));

      // a session started while active, still open when the licence lapses: gated at once
      st.at(40);
      const view = st.licence.view();
      expect(view.stage).toBe("lapsed");
      expect(view.lapsedAt).toBe(new Date(T0.getTime() + 37 * DAY_MS).toISOString());
      const late = await active.s.checkToolCall("refund_card", { order_id: "4411", amount: 40 }, { origins: { order_id: "typed", amount: "typed" } });
      expect(shape(late)).toEqual({ decision: "refuse", reasons: ["licence_lapsed"] });

      // lapsed (day 40): `reads_only` still reads a person's turns; `refuse` refuses every
      // operation, a turn included (licensing.md; outside audit 21, F3), and records nothing
      if (onLapse === "refuse") {
        const refused = st.client.session("lapsed-turn", { catalogue: CATALOGUE });
        await expect(refused.read("estorne 40,00 do pedido 4411")).rejects.toMatchObject({ code: "LicenceLapsed", message: expect.stringContaining(view.lapsedAt!) });
        expect(refused.history.entries).toHaveLength(0);
      }
      const lapsed = await turnReadWrite(st.client, "lapsed", onLapse === "reads_only");
      if (onLapse === "reads_only") expect(lapsed.recorded, "turns are read").toMatchObject({ kind: "turn", text: "estorne 40,00 do pedido 4411" });
      expect(shape(lapsed.write)).toEqual({ decision: "refuse", reasons: ["licence_lapsed"] });
      expect(lapsed.write.detail.lapsed_at).toBe(view.lapsedAt);
      if (onLapse === "reads_only") {
        expect(shape(lapsed.read), "reads are checked normally").toEqual(shape(active.read));
        // every write, whatever else it carries
        for (const tool of ["charge_card", "send_receipt", "tag_order"]) {
          const r = await lapsed.s.checkToolCall(tool, { order_id: "4411", amount: 1, to: "a@example.com", tag: "x" });
          expect(r.reasons, tool).toEqual(["licence_lapsed"]);
        }
      } else {
        expect(shape(lapsed.read)).toEqual({ decision: "refuse", reasons: ["licence_lapsed"] });
        expect(lapsed.read.detail.lapsed_at).toBe(view.lapsedAt);
        // every operation, whatever it names: a tool the catalogue does not have too
        expect((await lapsed.s.checkToolCall("delete_order", {})).reasons).toEqual(["licence_lapsed"]);
        for (const tool of ["list_orders", "find_customer", "read_inbox", "charge_card"]) {
          const r = await lapsed.s.checkToolCall(tool, {});
          expect(r, tool).toMatchObject({ decision: "refuse", reasons: ["licence_lapsed"], detail: { lapsed_at: view.lapsedAt } });
        }
      }
      // the history the lapse wrote still verifies: a report goes through
      expect((await lapsed.s.report(lapsed.read.step, "ran", { order_id: "4411", status: "paid" })).step).toBeGreaterThan(lapsed.read.step);
    });
  }

  it("`licence: {renew: false}` or `{now}` without `home` opens the client's home's licence, not $STALWART_HOME's (outside audits 20 F3, 21 F5)", async () => {
    const { home } = await writeFixtureInstallation({ now: T0, leaseEndsInDays: 7 });
    const elsewhere = temp("env-home");
    const before = process.env.STALWART_HOME;
    process.env.STALWART_HOME = elsewhere;
    try {
      for (const licence of [{ renew: false }, { now: () => T0, renew: false }]) {
        const s = new Client({ home, now: () => T0, licence }).session("own", { catalogue: CATALOGUE });
        expect(shape(await s.checkToolCall("get_order", { order_id: "4411" })), JSON.stringify(Object.keys(licence))).toEqual({ decision: "allow", reasons: [] });
      }
    } finally {
      if (before === undefined) delete process.env.STALWART_HOME;
      else process.env.STALWART_HOME = before;
    }
  });

  it("a client opening its own home's licence gets the same stage", async () => {
    let t = T0.getTime() + 40 * DAY_MS;
    const { home } = await writeFixtureInstallation({ now: T0, onLapse: "reads_only", leaseEndsInDays: 7, graceDays: 30 });
    const client = new Client({ home, now: () => new Date(t), licence: { home, fetch: unreachable } });
    const { read, write } = await turnReadWrite(client, "own");
    expect(shape(read)).toEqual({ decision: "allow", reasons: [] });
    expect(shape(write)).toEqual({ decision: "refuse", reasons: ["licence_lapsed"] });
    t = T0.getTime(); // time never runs back: the licence keeps the latest time the home has seen
    // (a client of another state home: this home's session store refuses to start a session behind its time)
    const back = new Client({ home: temp("back"), now: () => new Date(t), licence: { home, fetch: unreachable } });
    expect(shape((await turnReadWrite(back, "back")).write)).toEqual({ decision: "refuse", reasons: ["licence_lapsed"] });
  });
});

describe("nothing a licensed runtime would refuse is allowed during a lapse", () => {
  const cases = loadCases().filter((c) => !c.skip?.["in-process"]);

  function driver(name: string, client: (now: () => Date) => Client): Driver {
    return {
      name,
      session: (n, opts, now) => client(now).session(n, opts as never),
      resume: (saved, opts, now) => client(now).resume(saved as never, opts),
    };
  }

  for (const onLapse of ["reads_only", "refuse"] as const) {
    it(`the conformance corpus, on_licence_lapse: ${onLapse} (${cases.length} cases)`, async () => {
      const { home: lapsedHome } = await writeFixtureInstallation({ now: T0, onLapse, leaseEndsInDays: -60, graceDays: 7 });
      const lapsedLicence = await openLicence({ home: lapsedHome, fetch: unreachable });
      expect(lapsedLicence.view().stage).toBe("lapsed");

      let activeHome = licensedHome("corpus");
      let stateHome = temp("corpus");
      const active: Driver = { ...driver("active", (now) => new Client({ home: activeHome, now })), newCase: () => void (activeHome = licensedHome("corpus")) };
      const lapsedDriver = driver("lapsed", (now) => new Client({ home: stateHome, now, licence: lapsedLicence }));
      // `refuse`: a person's turn is refused too (LicenceLapsed), and the case goes on without it
      let turnsRefused = 0;
      const refusingTurns = <S extends { read(text: string): Promise<unknown> }>(s: S): S => {
        const read = s.read.bind(s);
        s.read = async (text: string) => {
          try {
            return await read(text);
          } catch (err) {
            if (onLapse !== "refuse" || (err as { code?: unknown }).code !== "LicenceLapsed") throw err;
            turnsRefused++;
            return { step: -1 };
          }
        };
        return s;
      };
      const lapsed: Driver = {
        ...lapsedDriver,
        session: (n, opts, now) => refusingTurns(lapsedDriver.session(n, opts, now)),
        resume: (saved, opts, now) => refusingTurns(lapsedDriver.resume(saved, opts, now)),
        newCase: () => void (stateHome = temp("corpus")),
      };

      let compared = 0;
      let heldByLapse = 0;
      for (const c of cases) {
        // a case that edits its history by step number counts its turns in: with turns refused
        // (`refuse`) its steps name other entries, and there is nothing to compare
        if (onLapse === "refuse" && c.steps.some((st) => "read" in st) && c.steps.some((st) => "history" in st)) continue;
        const a = await runCase(c, active);
        let l: StepOutcome[];
        try {
          l = await runCase(c, lapsed);
        } catch (err) {
          throw new Error(`${c.file}: ${c.name}: the lapsed run failed: ${(err as Error).message}`);
        }
        expect(l.length, `${c.file}: ${c.name}`).toBe(a.length);
        for (let i = 0; i < a.length; i++) {
          const was = a[i]!.actual;
          const now = l[i]!.actual;
          const where = `${c.file}: ${c.name}, step ${a[i]!.index}: licensed ${was.decision} ${was.reasons.join(",")}, lapsed ${now.decision} ${now.reasons.join(",")}`;
          if (was.decision !== "allow") expect(now.decision, where).not.toBe("allow");
          // `refuse`: every check refused at step 1 — `licence_lapsed`, unless step 1 already
          // refused the call for not reaching the tool at all (`unknown_tool`, `agent_required`)
          if (onLapse === "refuse") {
            expect(now.decision, where).toBe("refuse");
            expect(["licence_lapsed", "unknown_tool", "agent_required"], where).toContain(now.reasons[0]);
          }
          // A write the licensed runtime passed is refused now; a lapse never makes an answer laxer.
          if (now.reasons.includes("licence_lapsed")) heldByLapse++;
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(100);
      expect(heldByLapse).toBeGreaterThan(0);
      // every operation, a person's turn included (licensing.md; outside audit 21, F3)
      if (onLapse === "refuse") expect(turnsRefused).toBeGreaterThan(10);
      else expect(turnsRefused).toBe(0);
    }, 120_000);
  }
});

describe("no licence, meters, bundles, renewal", () => {
  it("a home with no installation: every session operation rejects LicenceRequired naming `stalwart licence activate`", async () => {
    const client = new Client({ home: temp("none") });
    const s: ClientSession = client.session("billing", { catalogue: CATALOGUE }); // synchronous, as before
    for (const op of [() => s.read("oi"), () => s.checkToolCall("get_order", { order_id: "1" }), () => s.report(0, "ran"), () => s.run("get_order", { order_id: "1" }, {}, () => ({}))]) {
      const err = await op().then(
        () => undefined,
        (e: unknown) => e as { code: string; message: string; hint?: string },
      );
      expect(err?.code).toBe("LicenceRequired");
      expect(`${err!.message} ${err!.hint}`).toContain("stalwart licence activate");
    }
    expect(s.history.entries).toEqual([]); // nothing was recorded
  });

  it("an injected licence whose view() throws or answers no stage refuses every check and turn, naming why", async () => {
    const views: [string, () => unknown, RegExp][] = [
      ["throws", () => { throw new Error("boom"); }, /view\(\) threw: boom/],
      ["null", () => null, /answered null/],
      ["{}", () => ({}), /answered stage undefined/],
      ["an unknown stage", () => ({ stage: "paid" }), /answered stage "paid"/],
      ["lapsed without onLapse", () => ({ stage: "lapsed" }), /answered onLapse undefined/],
    ];
    for (const [label, view, why] of views) {
      const licence = { view, count() {}, answered() { throw new Error("no renewals"); } } as unknown as LicenceHandle;
      const s = new Client({ home: temp("fake"), now: () => T0, licence }).session("billing", { catalogue: CATALOGUE });
      // read as a lapse under `refuse` (fail closed): a turn is refused too
      await expect(s.read("estorne 40,00 do pedido 4411"), label).rejects.toMatchObject({ code: "LicenceLapsed", message: expect.stringMatching(why) });
      for (const [tool, args] of [["get_order", { order_id: "4411" }], ["refund_card", { order_id: "4411", amount: 40 }]] as const) {
        const r = await s.checkToolCall(tool, args, { origins: { order_id: "typed", amount: "typed" } });
        expect(shape(r), `${label}: ${tool}`).toEqual({ decision: "refuse", reasons: ["licence_lapsed"] });
        expect(String((r.detail as { unreadable?: string }).unreadable), label).toMatch(why);
      }
    }
  });

  it("past the plan's `tool_checks` limit a check answers refuse / quota_exhausted naming the meter, never an exception", async () => {
    const now = () => T0;
    const home = await licensedHomeWith({ now: T0, leaseEndsInDays: 7, meters: { tool_checks: 3, plan_calls: 10, answer_calls: 10 } }, "quota");
    const client = new Client({ home, now, licence: { home, fetch: unreachable } });
    const s = client.session("billing", { catalogue: CATALOGUE });
    await s.read("pedido 4411");
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await s.checkToolCall("get_order", { order_id: "4411" }));
    expect(answers.slice(0, 3).map((a) => a.decision)).toEqual(["allow", "allow", "allow"]);
    for (const a of answers.slice(3)) {
      expect(shape(a)).toEqual({ decision: "refuse", reasons: ["quota_exhausted"] });
      expect(a.detail).toMatchObject({ meter: "tool_checks", limit: 3 });
      expect(a.step).toBe(-1); // answered on the caller's side, outside the order: not in the history
    }
    expect(s.history.entries.length).toBe(4);
    expect((await s.read("ainda aqui")).step, "turns still recorded").toBe(4);
    client.close(); // writes the counts: another client on this home sees the meter spent
    const again = new Client({ home, now, licence: { home, fetch: unreachable } }).session("again", { catalogue: CATALOGUE });
    expect((await again.checkToolCall("get_order", { order_id: "4411" })).reasons).toEqual(["quota_exhausted"]);
  });

  it("bundles are pinned when a session starts and answered when asked (`explain`)", async () => {
    let digests: Record<string, string> = { vocabulary: "sha256:aaaa" };
    const view = (): LicenceView => ({ stage: "active", onLapse: "reads_only", leaseEnds: "2027-01-01T00:00:00.000Z", graceEnds: "2027-01-31T00:00:00.000Z", plan: "paid", bundleDigests: digests });
    const fake = { view, count: () => undefined, answered: () => undefined };
    const client = new Client({ home: temp("bundles"), licence: fake });
    const explain = { explain: true };
    const first = client.session("first", { catalogue: CATALOGUE });
    expect((await first.checkToolCall("get_order", { order_id: "1" })).detail, "not asked: the detail is the check's own").toEqual({});
    expect((await first.checkToolCall("get_order", { order_id: "1" }, explain)).detail.bundles).toEqual({ vocabulary: "sha256:aaaa" });
    digests = { vocabulary: "sha256:bbbb" }; // a renewal adopted a new bundle
    expect((await first.checkToolCall("get_order", { order_id: "1" }, explain)).detail.bundles, "never mid-conversation").toEqual({ vocabulary: "sha256:aaaa" });
    const second = client.session("second", { catalogue: CATALOGUE });
    expect((await second.checkToolCall("get_order", { order_id: "1" }, explain)).detail.bundles).toEqual({ vocabulary: "sha256:bbbb" });
    // with no bundles, no `bundles` key (the detail stays as the check made it)
    digests = {};
    const third = client.session("third", { catalogue: CATALOGUE });
    expect((await third.checkToolCall("get_order", { order_id: "1" }, explain)).detail).toEqual({});
  });

  it("the first answer in a process starts the renewal in the background; the check does not wait for it", async () => {
    resetRenewals();
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow: typeof fetch = async () => {
      calls++;
      await gate;
      throw new TypeError("fetch failed");
    };
    const { home } = await writeFixtureInstallation({ now: T0, leaseEndsInDays: 7 });
    const licence: LicenceHandle = await openLicence({ home, now: () => T0, fetch: slow });
    const s = new Client({ home: temp("renew"), now: () => T0, licence }).session("b", { catalogue: CATALOGUE });
    expect(licence.renewal).toBeUndefined();
    expect((await s.checkToolCall("get_order", { order_id: "1" })).decision).toBe("allow"); // answered with the renewal pending
    // started in the background (not awaited by the check): it is asked for, and still pending
    await vi.waitFor(() => expect(calls).toBe(1), { timeout: 10_000 });
    expect((await s.checkToolCall("get_order", { order_id: "2" })).decision).toBe("allow");
    release();
    expect(await licence.renewal).toMatchObject({ ok: false });
    expect(calls).toBe(1); // once per process
    expect(licence.view().stage).toBe("active"); // the last lease holds
  });
});

describe("CLI: commands other than `licence activate`, `doctor` and `check` need a licence", () => {
  const saved = process.env.STALWART_HOME;
  beforeEach(() => {
    process.env.STALWART_HOME = temp("cli-none");
    vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    if (saved === undefined) delete process.env.STALWART_HOME;
    else process.env.STALWART_HOME = saved;
  });
  const io = { stdout: { write: () => true }, stderr: { write: () => true } };
  const stderr = () => vi.mocked(process.stderr.write).mock.calls.map((c) => String(c[0])).join("");

  it("`stalwart replay` stops with LicenceRequired, exit 1, naming the commands that fix it", async () => {
    let err = "";
    const code = await replay([join(REPO, "examples/store/trace.jsonl"), "--catalogue", CATALOGUE], { stdout: io.stdout, stderr: { write: (s: string) => (err += s) } });
    expect(code).toBe(1);
    expect(err).toMatch(/^stalwart: LicenceRequired: /);
    expect(err).toContain("stalwart licence activate");
    expect(err).toContain("stalwart licence dev");
  });

  it("`stalwart replay` with a licence in $STALWART_HOME runs, and counts nothing against its meters", async () => {
    const home = licensedHome("cli-replay");
    process.env.STALWART_HOME = home;
    const used = async () => {
      const h = await openLicence({ home, renew: false });
      const m = h.status().meters;
      await h.close();
      return Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v.used]));
    };
    const before = await used();
    for (let i = 0; i < 3; i++) expect(await replay([join(REPO, "examples/store/trace.jsonl"), "--catalogue", CATALOGUE], io)).toBe(0);
    expect(await used()).toEqual(before);
    // the same checks through a client of that licence are counted: the meter is live
    const client = new Client({ home: temp("cli-replay-live"), licence: { home, renew: false } });
    await client.session("b", { catalogue: CATALOGUE }).checkToolCall("get_order", { order_id: "4411" });
    client.close();
    expect((await used()).tool_checks).toBe((before.tool_checks ?? 0) + 1);
  });

  it("`stalwart rules compile` and `rules check` stop with LicenceRequired, exit 1", async () => {
    for (const argv of [["compile", join(REPO, "examples/store/rulebook.yaml"), "-o", temp("rules-out")], ["check", join(REPO, "examples/store/rulebook.yaml")]]) {
      vi.mocked(process.stderr.write).mockClear();
      expect(await rules(argv), argv[0]).toBe(1);
      expect(stderr(), argv[0]).toMatch(/^stalwart: LicenceRequired: /);
      expect(stderr(), argv[0]).toContain("stalwart licence activate");
    }
  });
});
