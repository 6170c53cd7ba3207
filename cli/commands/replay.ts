/**
 * `stalwart replay TRACE.jsonl --catalogue agent.yaml [--rulebook R] [--json]` (interfaces.md CLI):
 * check a recorded session offline — every call as it would be checked now, with this catalogue —
 * and summarise per predicate how many calls it held and how many of those the person approved
 * (seed 003: post-hoc checking finds the predicates to add and measures their false positives).
 *
 * Exit 0 when the trace replayed (whatever the decisions), 1 when the trace, catalogue or rulebook
 * cannot be read (every problem as `file:line: error: …` with a `hint:` on stderr) or there is no
 * licence, 2 on bad usage. With `--json` those problems are `{"error": {code, message, problems}}` on
 * stdout instead, as every other command's errors are (outside audit 26, F1). The replay runs in a fresh, temporary home: it starts with no counters
 * and never touches the live ones (rate limits and spend under ~/.stalwart stay as they are). It
 * runs under the user's licence (`--home`, else $STALWART_HOME, else ~/.stalwart; licensing.md): without one it
 * stops with `LicenceRequired`, and a lapsed one gates its checks as it gates live ones; but a
 * replay is not live use, so it counts nothing against the licence's meters (cli/replay/licence.ts).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "../sdk/client.js";
import { readCatalogueFile } from "../sdk/catalogue-node.js";
import { loadCatalogue, type Language } from "../../worker/portable/engine/index.js";
import { ajvCompiler } from "../sdk/ajv-compiler.js";
import { CatalogueError, formatProblem } from "../../worker/portable/engine/index.js";
import { formatTraceProblem, parseTrace, TraceError, type Trace } from "../replay/trace.js";
import { readTrace } from "../replay/read-trace.js";
import { ReplayClock, replayTrace } from "../replay/replay.js";
import { buildReport, formatReport, reportJsonText } from "../replay/report.js";
import { openLicence } from "../licence/index.js";
import { uncounted } from "../replay/licence.js";
import { defineCommand, runLeaf, type Io } from "../command.js";
import { resolveHome } from "../sdk/home.js";
import { StalwartError } from "../../worker/portable/engine/index.js";
import { parse } from "yaml";
import { withOutsideReads } from "../gateway/outside.js";

export const command = defineCommand({
  path: "replay",
  summary: "check a recorded session offline; print each decision, then per predicate how many calls it held",
  details:
    "Every call of the trace (its format: docs/trace-format.md, shipped in the package) is checked as it would be\n" +
    "checked now, with this catalogue, in a fresh temporary home. It runs under this machine's licence but\n" +
    "counts nothing against its meters and contacts no service. Exit 0 when the trace replayed, whatever the decisions.",
  args: { synopsis: "TRACE.jsonl", min: 1, max: 1, missing: "name the trace to replay", extra: "one trace at a time" },
  options: {
    catalogue: { type: "string", value: "agent.yaml", help: "the catalogue to check against", required: "name the catalogue to check against with `--catalogue agent.yaml`" },
    rulebook: { type: "string", value: "PATH", help: "a rulebook (YAML, CSV, or a compiled registry folder)" },
    home: { type: "string", value: "DIR", help: "the home whose licence the replay runs under (default $STALWART_HOME, else ~/.stalwart); its counters are never touched" },
    json: { type: "boolean", help: "print {calls, predicates, missed, totals} as JSON; an error as {error: {code, message, problems}}" },
  },
  run: ({ values, positionals, io }) =>
    replay(io, { trace: positionals[0] ?? "", catalogue: values.catalogue ?? "", json: values.json === true, ...(values.rulebook !== undefined ? { rulebook: values.rulebook } : {}), ...(values.home !== undefined ? { home: values.home } : {}) }),
});

const summary = command.summary;
export const run = (argv: string[], io?: Io): Promise<number> => runLeaf(command, argv, io);

/** Progress shows on a terminal's stderr for traces longer than this many calls. */
const PROGRESS_ABOVE = 1000;

interface Args {
  trace: string;
  catalogue: string;
  rulebook?: string;
  home?: string;
  json: boolean;
}

async function replay(io: Io, args: Args): Promise<number> {
  // The user's licence, on the real clock (the trace's clock drives only the temporary home);
  // a replay renews nothing: it stays offline.
  const licence = await openLicence({ renew: false, home: resolveHome(args.home) });

  // The catalogue first, compiler-style, so that a bad one is not reported as a bad trace.
  let catalogueText: string;
  let language: Language;
  try {
    catalogueText = readCatalogueFile(args.catalogue);
    language = loadCatalogue(catalogueText, { file: args.catalogue, schemaCompiler: ajvCompiler }).settings.language;
  } catch (err) {
    if (!(err instanceof CatalogueError)) throw err;
    return problems(io, args, err, err.problems.map(formatProblem), args.catalogue);
  }
  if (args.rulebook !== undefined && !existsSync(args.rulebook)) {
    const problem = { file: args.rulebook, line: 1, message: `cannot read the rulebook \`${args.rulebook}\`: no such file or folder`, hint: "check the path, relative to the current directory" };
    return problems(io, args, new StalwartError("FileUnreadable", problem.message, { hint: problem.hint }), [`${args.rulebook}: error: ${problem.message}\n  hint: ${problem.hint}`], args.rulebook, [problem]);
  }

  let trace: Trace;
  try {
    trace = parseTrace(readTrace(args.trace), args.trace);
  } catch (err) {
    if (!(err instanceof TraceError)) throw err;
    return traceProblems(io, args, err);
  }

  const home = mkdtempSync(join(tmpdir(), "stalwart-replay-"));
  try {
    const clock = new ReplayClock();
    // a session the gateway traced: its reads from outside are calls of the entries it adds
    let gatewayCatalogue: Record<string, unknown> | undefined;
    const catalogueOf = (gateway: boolean | undefined) => (gateway ? (gatewayCatalogue ??= withOutsideReads(parse(catalogueText) as Record<string, unknown>)) : catalogueText);
    const client = new Client({ home, now: clock.now, licence: uncounted(licence) });
    const progress = trace.calls > PROGRESS_ABOVE && io.stderr.isTTY === true ? progressLine(io, trace.calls) : undefined;
    let result;
    try {
      result = await replayTrace(trace, {
        clock,
        open: (spec) =>
          client.session(spec.name, {
            catalogue: catalogueOf(spec.gateway),
            ...(args.rulebook !== undefined ? { rulebook: args.rulebook } : {}),
            ...(spec.language ? { language: spec.language } : {}),
            ...(spec.context ? { context: spec.context } : {}),
            ...(spec.agent ? { agent: spec.agent } : {}),
          }),
        ...(progress ? { onProgress: progress.update } : {}),
        defaultLanguage: language,
      });
    } catch (err) {
      if (err instanceof CatalogueError) {
        // the rulebook, compiled when the first session opens: reported as `stalwart check` does
        return problems(io, args, err, err.problems.map(formatProblem), args.rulebook ?? args.catalogue);
      }
      if (!(err instanceof TraceError)) throw err;
      return traceProblems(io, args, err);
    } finally {
      progress?.clear();
    }
    const report = buildReport(result);
    io.stdout.write(args.json ? reportJsonText(report) : formatReport(report));
    return 0;
  } finally {
    licence.flush();
    rmSync(home, { recursive: true, force: true });
  }
}

function traceProblems(io: Io, args: Args, err: TraceError): number {
  return problems(io, args, err, err.problems.map(formatTraceProblem), args.trace, err.problems, err.more);
}

/**
 * A trace, catalogue or rulebook that cannot be used: every problem compiler-style on stderr and
 * their count, or with `--json` one `{"error": {code, message, problems}}` on stdout; exit 1.
 */
function problems(io: Io, args: Args, err: StalwartError, lines: readonly string[], file: string, list: readonly object[] = (err as { problems?: readonly object[] }).problems ?? [], more = 0): number {
  const n = lines.length + more;
  const count = `${file}: ${n} error${n === 1 ? "" : "s"}`;
  if (args.json) {
    io.stdout.write(JSON.stringify({ error: { code: err.code, message: count, ...(err.hint ? { hint: err.hint } : {}), problems: list, ...(more > 0 ? { more } : {}) } }, null, 2) + "\n");
    return 1;
  }
  io.stderr.write(lines.join("\n") + "\n");
  if (more > 0) io.stderr.write(`… and ${more} more\n`);
  io.stderr.write(count + "\n");
  return 1;
}

/** `stalwart replay: 1200 of 5000 calls`, rewritten in place at most 100 times. */
function progressLine(io: Io, total: number): { update(done: number): void; clear(): void } {
  const every = Math.max(1, Math.ceil(total / 100));
  let shown = false;
  return {
    update(done) {
      if (done % every !== 0 && done !== total) return;
      io.stderr.write(`\rstalwart replay: ${done} of ${total} calls`);
      shown = true;
    },
    clear() {
      if (shown) io.stderr.write("\r\x1b[K");
    },
  };
}
