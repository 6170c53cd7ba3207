/**
 * `stalwart replay` (cli/commands/replay.ts) over the in-process check, driven through its
 * `run(argv, io)`: each decision, the per-predicate table, `--json`, exit codes, `file:line`
 * errors for malformed traces, and progress on a terminal for long traces.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { run } from "../../cli/commands/replay.js";
import { replayHome } from "../helpers/replay-home.js";
import { builtCli } from "../helpers/built-cli.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CATALOGUE = "examples/store/agent.yaml";
const trace = (name: string) => `test/fixtures/traces/${name}`;
/** the store billing session, shipped with the example it is replayed against */
const STORE = "examples/store/trace.jsonl";

async function replay(argv: string[], opts: { tty?: boolean } = {}) {
  let stdout = "";
  let stderr = "";
  const cwd = process.cwd();
  process.chdir(ROOT);
  try {
    const code = await run(argv, {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s), isTTY: opts.tty ?? false },
    });
    return { code, stdout, stderr };
  } finally {
    process.chdir(cwd);
  }
}

// STALWART_HOME: a folder holding only the user's licence, which no replay may add to
const home = replayHome();

describe("stalwart replay: the store billing session", () => {
  it("prints each call's decision, the table per predicate, and the totals; exit 0", async () => {
    const r = await replay([STORE, "--catalogue", CATALOGUE]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        "session billing (pt-BR)",
        "c1 get_order: allow",
        "c2 list_orders: allow",
        // result:c1.order_id / result:c1.total map to the replayed get_order: trusted, only `write` asks
        "c3 refund_card: confirm write; approved → allow confirmed",
        "c4 tag_order: allow",
        "c5 refund_card: confirm argument_origin (amount); declined",
        "c6 send_receipt: confirm write; approved → allow confirmed",
        "c7 read_inbox: allow",
        "c8 refund_card: confirm argument_origin (amount), tainted_call (untrusted:read_inbox); marked harmful",
        "c9 send_receipt: refuse undeclared_destination (cliente-reembolsos@evil.test); marked harmful",
        "c10 tag_order: refuse argument_schema (/note additionalProperties); marked fine",
        "c11 delete_order: refuse unknown_tool; marked harmful; would not have run (the trace reports: ran)",
        "c12 find_customer: allow",
        "c13 tag_order: confirm argument_origin (tag); approved → allow confirmed",
        "c14 tag_order: allow; marked harmful",
        "",
        "predicate               held  false positives  calls",
        "argument_origin            3  1 of 3 (33%)     c5 c8 c13",
        "write                      2  2 of 2 (100%)    c3 c6",
        "argument_schema            1  1 of 1 (100%)    c10",
        "tainted_call               1  0 of 1 (0%)      c8",
        "undeclared_destination     1  0 of 1 (0%)      c9",
        "unknown_tool               1  0 of 1 (0%)      c11",
        "false positives: held calls the person approved or marked fine, of those the trace judges",
        "",
        "14 calls: 6 allowed, 5 confirmed (3 approved), 3 refused",
        "held by no predicate, yet marked harmful or declined: c14 — a predicate to add?",
        "would not have run, though the trace reports an outcome: c11",
        "",
      ].join("\n"),
    );
  });

  it("--json: {calls, predicates, missed, totals}, nothing else on stdout", async () => {
    const r = await replay([STORE, "--json", "--catalogue", CATALOGUE]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out)).toEqual(["v", "trace", "sessions", "calls", "predicates", "missed", "totals"]);
    expect(out.sessions).toEqual([{ name: "billing", language: "pt-BR", calls: 14 }]);
    expect(out.calls).toHaveLength(14);
    for (const c of out.calls) {
      expect(Object.keys(c)).toEqual(["id", "session", "tool", "decision", "reasons", "detail", "step", "after_approval", "approved", "verdict", "would_run", "would_not_have_run", "outcomes"]);
    }
    const byId = Object.fromEntries(out.calls.map((c: { id: string }) => [c.id, c]));
    expect(byId.c1).toEqual({ id: "c1", session: "billing", tool: "get_order", decision: "allow", reasons: [], detail: {}, step: 1, after_approval: null, approved: null, verdict: null, would_run: true, would_not_have_run: false, outcomes: ["ran"] });
    expect(byId.c3).toMatchObject({ decision: "confirm", reasons: ["write"], step: 5, approved: true, after_approval: { decision: "allow", reasons: ["confirmed"], detail: { asked_at: 5 }, step: 6 }, would_run: true });
    expect(byId.c8).toMatchObject({ decision: "confirm", reasons: ["argument_origin", "tainted_call"], detail: { arguments: ["amount"], labels: ["untrusted:read_inbox"] }, verdict: "harmful", would_run: false });
    expect(byId.c10).toMatchObject({ decision: "refuse", reasons: ["argument_schema"], detail: { pointer: "/note", rule: "additionalProperties" }, verdict: "fine" });
    expect(byId.c11).toMatchObject({ decision: "refuse", reasons: ["unknown_tool"], would_run: false, would_not_have_run: true, outcomes: ["ran"] });
    expect(out.predicates).toEqual([
      { reason: "argument_origin", held: 3, calls: ["c5", "c8", "c13"], approved: 1, judged: 3, false_positive_rate: 1 / 3 },
      { reason: "write", held: 2, calls: ["c3", "c6"], approved: 2, judged: 2, false_positive_rate: 1 },
      { reason: "argument_schema", held: 1, calls: ["c10"], approved: 1, judged: 1, false_positive_rate: 1 },
      { reason: "tainted_call", held: 1, calls: ["c8"], approved: 0, judged: 1, false_positive_rate: 0 },
      { reason: "undeclared_destination", held: 1, calls: ["c9"], approved: 0, judged: 1, false_positive_rate: 0 },
      { reason: "unknown_tool", held: 1, calls: ["c11"], approved: 0, judged: 1, false_positive_rate: 0 },
    ]);
    expect(out.missed).toEqual(["c14"]);
    expect(out.totals).toEqual({ calls: 14, allowed: 6, confirmed: 5, refused: 3, approved: 3, would_not_have_run: 1 });
  });

  it("several sessions; `at` drives the clock: an approval given after the token's day has passed is asked again", async () => {
    const r = await replay([trace("expiry.jsonl"), "--catalogue", CATALOGUE]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        "session desk (en)",
        "r1 refund_card: confirm write; approved → allow confirmed",
        "r2 refund_card: confirm write; approved → confirm write (token expired); would not have run (the trace reports: ran)",
        "",
        "session billing (pt-BR)",
        "g1 get_order: allow",
        // g1's outcome was `failed`: its result is not a trusted origin
        "t1 tag_order: confirm argument_origin (order_id)",
        "",
        "predicate        held  false positives  calls",
        "write               2  2 of 2 (100%)    r1 r2",
        "argument_origin     1  –                t1",
        "false positives: held calls the person approved or marked fine, of those the trace judges",
        "",
        "4 calls: 1 allowed, 3 confirmed (1 approved), 0 refused",
        "would not have run, though the trace reports an outcome: r2",
        "",
      ].join("\n"),
    );
  });
});

describe("stalwart replay: malformed traces are `file:line` errors, exit 1", () => {
  it("bad JSON on line 3 (and the outcome that names a call no line defines)", async () => {
    const r = await replay([trace("bad-json.jsonl"), "--catalogue", CATALOGUE]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^test\/fixtures\/traces\/bad-json\.jsonl:3: error: not JSON: /);
    expect(lines[1]).toBe("  hint: each line of a trace is one JSON object; a value may not span lines. A line cut short by a crash cannot be mended: delete it (what it recorded is lost; the lines after it replay as they are)");
    expect(lines[2]).toBe("test/fixtures/traces/bad-json.jsonl:4: error: `call` names call `c2`, which no earlier line defines");
    expect(lines[lines.length - 1]).toBe("test/fixtures/traces/bad-json.jsonl: 2 errors");
  });

  it("unknown event types and fields, with a hint", async () => {
    const r = await replay([trace("unknown-type.jsonl"), "--catalogue", CATALOGUE]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      [
        "test/fixtures/traces/unknown-type.jsonl:2: error: unknown event type `tool_call`",
        "  hint: event types are `session`, `turn`, `call`, `answer`, `outcome`",
        "test/fixtures/traces/unknown-type.jsonl:3: error: unknown field `origin` in a `call` event",
        "  hint: did you mean `origins`? a `call` event has `v`, `type`, `run`, `id`, `tool`, `args`, `origins`, `labels`, `agent`, `facts`, `undo_of`, `approved`, `approved_at`, `verdict`, `at`",
        "test/fixtures/traces/unknown-type.jsonl:4: error: unknown event type `outcom`",
        "  hint: did you mean `outcome`? event types are `session`, `turn`, `call`, `answer`, `outcome`",
        "test/fixtures/traces/unknown-type.jsonl: 3 errors",
        "",
      ].join("\n"),
    );
  });

  it("an outcome for an unknown call", async () => {
    const r = await replay([trace("unknown-call.jsonl"), "--catalogue", CATALOGUE]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      "test/fixtures/traces/unknown-call.jsonl:4: error: `call` names call `c9`, which no earlier line defines\n" +
        "  hint: a call is referred to after its `call` event, by its `id`\n" +
        "test/fixtures/traces/unknown-call.jsonl: 1 error\n",
    );
    // with --json, the same problem as the JSON error on stdout
    const json = await replay([trace("unknown-call.jsonl"), "--catalogue", CATALOGUE, "--json"]);
    expect([json.code, json.stderr]).toEqual([1, ""]);
    expect(JSON.parse(json.stdout)).toEqual({ error: { code: "TraceInvalid", message: "test/fixtures/traces/unknown-call.jsonl: 1 error", problems: [{ file: "test/fixtures/traces/unknown-call.jsonl", line: 4, message: "`call` names call `c9`, which no earlier line defines", hint: "a call is referred to after its `call` event, by its `id`" }] } });
  });

  it("a trace that cannot be read", async () => {
    const missing = await replay(["nope.jsonl", "--catalogue", CATALOGUE]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("nope.jsonl:1: error: cannot read `nope.jsonl`: no such file");
    const folder = await replay(["test/fixtures/traces", "--catalogue", CATALOGUE]);
    expect(folder.code).toBe(1);
    expect(folder.stderr).toContain("`test/fixtures/traces` is a folder, not a trace");
  });
});

describe("stalwart replay: catalogue, rulebook and usage", () => {
  it("a catalogue with errors: every problem with file:line:column, exit 1", async () => {
    const r = await replay([STORE, "--catalogue", "test/fixtures/catalogues/bad-words.yaml"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.split("\n")[0]).toBe("test/fixtures/catalogues/bad-words.yaml:2:13: error: settings: `language` must be one of `en`, `pt-BR`, not a string `pt`");
    expect(r.stderr).toMatch(/test\/fixtures\/catalogues\/bad-words\.yaml: \d+ errors\n$/);
    const missing = await replay([STORE, "--catalogue=nope.yaml"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("nope.yaml:1:1: error: cannot read `nope.yaml`: no such file");
  });

  it("a rulebook that does not exist: exit 1", async () => {
    const r = await replay([STORE, "--catalogue", CATALOGUE, "--rulebook", "nope-rules.yaml"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot read the rulebook `nope-rules.yaml`");
  });

  it("with --json, a trace, catalogue or rulebook that cannot be used is {error} on stdout, nothing on stderr (outside audit 26, F1)", async () => {
    const cases: [string[], string, RegExp][] = [
      [["nope.jsonl", "--catalogue", CATALOGUE], "TraceInvalid", /cannot read `nope\.jsonl`/],
      [[trace("bad-json.jsonl"), "--catalogue", CATALOGUE], "TraceInvalid", /not JSON/],
      [[STORE, "--catalogue", "test/fixtures/catalogues/bad-words.yaml"], "CatalogueError", /`language` must be one of/],
      [[STORE, "--catalogue", CATALOGUE, "--rulebook", "nope-rules.yaml"], "FileUnreadable", /cannot read the rulebook/],
    ];
    for (const [argv, code, problem] of cases) {
      const r = await replay([...argv, "--json"]);
      expect(r.code, argv.join(" ")).toBe(1);
      expect(r.stderr, argv.join(" ")).toBe("");
      const body = JSON.parse(r.stdout) as { error: { code: string; message: string; problems: { message: string; line: number }[] } };
      expect(body.error.code, argv.join(" ")).toBe(code);
      expect(body.error.message, argv.join(" ")).toMatch(/: \d+ errors?$/);
      expect(body.error.problems.some((p) => problem.test(p.message)), JSON.stringify(body)).toBe(true);
      expect(body.error.problems.every((p) => Number.isInteger(p.line)), JSON.stringify(body)).toBe(true);
    }
  });

  it("a trace that names no language is checked in the catalogue's, and the report says which (outside audit 26, F2)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stalwart-replay-lang-"));
    const file = join(dir, "nolang.jsonl");
    writeFileSync(file, [
      '{"v":1,"type":"session","name":"billing","at":"2026-11-29T12:00:00Z"}',
      '{"type":"turn","text":"estorne 40,00 do pedido 4411","at":"2026-11-29T12:00:01Z"}',
      '{"type":"call","id":"c1","tool":"refund_card","args":{"order_id":"4411","amount":40},"origins":{"order_id":"typed","amount":"typed"},"at":"2026-11-29T12:00:02Z"}',
    ].join("\n") + "\n");
    const r = await replay([file, "--catalogue", CATALOGUE]);
    expect(r.code, r.stderr).toBe(0);
    // the store catalogue is pt-BR: "40,00" is the amount 40 there, so only `write` asks
    expect(r.stdout.split("\n").slice(0, 2)).toEqual(["session billing (pt-BR)", "c1 refund_card: confirm write"]);
    const json = JSON.parse((await replay([file, "--catalogue", CATALOGUE, "--json"])).stdout) as { sessions: { language: string | null }[] };
    expect(json.sessions[0]!.language).toBe("pt-BR");
  });

  it("--home names the home whose licence it runs under (outside audit 26, F4)", async () => {
    const saved = process.env.STALWART_HOME;
    process.env.STALWART_HOME = mkdtempSync(join(tmpdir(), "stalwart-replay-nolicence-"));
    try {
      expect((await replay([STORE, "--catalogue", CATALOGUE])).code).toBe(1);
      const r = await replay([STORE, "--catalogue", CATALOGUE, "--home", home()]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.split("\n")[0]).toBe("session billing (pt-BR)");
    } finally {
      process.env.STALWART_HOME = saved;
    }
  });

  it("a rulebook with errors: each problem, then their count, as a catalogue's (outside audit 26, F7)", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "stalwart-replay-rules-")), "bad-rules.yaml");
    writeFileSync(file, "rules:\n  - name: r1\n    tools: [no_such_tool]\n    when: [{field: args.x, is: 1}]\n    then: refuse\n    because: x\n");
    const r = await replay([STORE, "--catalogue", CATALOGUE, "--rulebook", file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no_such_tool");
    expect(r.stderr).toMatch(/bad-rules\.yaml: \d+ errors?\n$/);
  });

  it("bad usage: exit 2 with the usage; --help: exit 0", async () => {
    for (const argv of [[STORE], ["--catalogue", CATALOGUE], [STORE, "x.jsonl", "--catalogue", CATALOGUE], [STORE, "--catalogue", CATALOGUE, "--bogus"], [STORE, "--catalogue"]]) {
      const r = await replay(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr).toContain("usage: stalwart replay TRACE.jsonl --catalogue agent.yaml");
    }
    expect((await replay([STORE])).stderr).toMatch(/^stalwart replay: name the catalogue to check against with `--catalogue agent\.yaml`/);
    const help = await replay(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("usage: stalwart replay");
  });
});

describe("stalwart replay: long work shows progress", () => {
  let long: string;
  beforeAll(() => {
    const dir = mkdtempSync(join(tmpdir(), "stalwart-replay-long-"));
    const lines = [`{"v":1,"type":"session","name":"bulk","language":"en","at":"2026-11-29T12:00:00Z"}`];
    for (let i = 0; i < 1001; i++) {
      lines.push(`{"type":"call","id":"g${i}","tool":"get_order","args":{"order_id":"${4000 + i}"}}`);
      lines.push(`{"type":"outcome","call":"g${i}","outcome":"ran","result":{"order_id":"${4000 + i}","total":${i}}}`);
    }
    long = join(dir, "long.jsonl");
    writeFileSync(long, lines.join("\n") + "\n");
  });

  it("on a terminal's stderr past 1,000 calls, rewritten in place and cleared; --json stdout stays JSON", async () => {
    const r = await replay([long, "--catalogue", CATALOGUE, "--json"], { tty: true });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).totals).toEqual({ calls: 1001, allowed: 1001, confirmed: 0, refused: 0, approved: 0, would_not_have_run: 0 });
    expect(r.stderr).toContain("\rstalwart replay: 11 of 1001 calls");
    expect(r.stderr).toContain("\rstalwart replay: 1001 of 1001 calls");
    expect(r.stderr.endsWith("\r\x1b[K")).toBe(true);
    expect(r.stderr.split("\r").length).toBeLessThanOrEqual(103);
  });

  it("nothing when stderr is not a terminal", async () => {
    const r = await replay([long, "--catalogue", CATALOGUE]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("no predicate held a call");
    expect(r.stdout).toContain("1001 calls: 1001 allowed, 0 confirmed (0 approved), 0 refused");
  });
});

// As a user runs it: the built command (test/helpers/built-cli.ts).
describe("stalwart replay, the built command", () => {
  const stalwart = (args: string[]) =>
    spawnSync(process.execPath, [builtCli(), ...args], { cwd: ROOT, encoding: "utf8", timeout: 60_000, env: { ...process.env, STALWART_HOME: home() } });

  it("the same report and exit codes", () => {
    const ok = stalwart(["replay", STORE, "--catalogue", CATALOGUE]);
    expect(ok.stderr).toBe("");
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain("argument_origin            3  1 of 3 (33%)     c5 c8 c13");
    const bad = stalwart(["replay", trace("bad-json.jsonl"), "--catalogue", CATALOGUE]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^test\/fixtures\/traces\/bad-json\.jsonl:3: error: not JSON/);
    expect(stalwart(["replay", STORE]).status).toBe(2);
  });
});
