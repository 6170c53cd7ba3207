/**
 * `stalwart gateway --catalogue agent.yaml [--listen 127.0.0.1:PORT] -- CMD ARGS…` (or `--url URL`)
 * and `stalwart gateway init [-o agent.yaml] -- CMD ARGS…` (interfaces.md CLI; docs/gateway.md).
 */
import { defineCommand, runLeaf, usageError, type Io } from "../command.js";
import { InputError, defineOwn, type Language } from "../../worker/portable/engine/index.js";
import type { UpstreamSpec } from "../gateway/upstream.js";

export const command = defineCommand({
  path: "gateway",
  summary: "an MCP server in front of a tool server, checking every tools/call (`gateway init` writes a starter catalogue)",
  details: [
    "  stalwart gateway --catalogue agent.yaml [options] -- CMD ARGS…   (stdio tool server)",
    "  stalwart gateway --catalogue agent.yaml [options] --url URL      (streamable HTTP tool server)",
    "  stalwart gateway init [-o agent.yaml] [--force] (-- CMD ARGS… | --url URL)",
    "A call that needs a person is asked about through MCP elicitation (docs/gateway.md). A client without",
    "elicitation gets the pending id at once; with --approval-wait SECS the gateway waits that long for a",
    "person to decide it (`stalwart approvals approve|deny ID`, or the page of `stalwart approvals serve`)",
    "and then runs the call once if approved.",
  ].join("\n"),
  // the tool server's command starts at its first word, `--` or not (the MCP Inspector 0.15's CLI drops it)
  args: { synopsis: "[init]", min: 0, max: Number.MAX_SAFE_INTEGER, command: { verbs: ["init"], operands: "[-- CMD ARGS…]" } },
  options: {
    catalogue: { type: "string", value: "FILE", help: "the catalogue (agent.yaml); tools/list offers only the tools it names" },
    url: { type: "string", value: "URL", help: "the tool server's streamable HTTP URL, instead of `-- CMD ARGS…`" },
    header: { type: "string", multiple: true, value: "'NAME: VALUE'", help: "with --url: a header sent with every request to the tool server (e.g. its Authorization); again for another" },
    "header-env": { type: "string", multiple: true, value: "NAME=VAR", help: "with --url: like --header, its value read from the gateway's environment variable VAR (a secret kept out of the arguments, which the process list shows)" },
    listen: { type: "string", value: "HOST:PORT", help: "serve streamable HTTP at http://HOST:PORT/mcp (loopback only); default: stdio" },
    "check-url": { type: "string", value: "URL", help: "check against a check worker (shared ceilings across gateways)" },
    key: { type: "string", value: "KEY", help: "the check worker's key" },
    "check-timeout": { type: "string", value: "SECS", help: "with --check-url: how long the check worker has to answer a check before the call is refused check_unavailable (default 5)" },
    home: { type: "string", value: "DIR", help: "licence and state folder (default $STALWART_HOME or ~/.stalwart)" },
    session: { type: "string", value: "NAME", help: "the session's name (default: gateway)" },
    agent: { type: "string", value: "NAME", help: "the catalogue's agent whose calls these are (needed when it names several); tools/list offers what it reaches" },
    rulebook: { type: "string", value: "FILE", help: "a rulebook the check applies (.yaml, .csv, or a compiled registry folder)" },
    "taint-model-after-untrusted": { type: "boolean", help: "every argument the model writes after anything untrusted was read carries that read's label (held tainted_call)" },
    language: { type: "string", value: "en|pt-BR", help: "the session language (default: the catalogue's)" },
    "ask-timeout": { type: "string", value: "SECS", help: "how long to wait for the person's answer, or for a 2026-07-28 client's answer to the tool server's own question (default 86400)" },
    "call-timeout": { type: "string", value: "SECS", help: "how long a forwarded call may take (default 86400)" },
    "start-timeout": { type: "string", value: "SECS", help: "how long the tool server has to answer `initialize` when it starts (default 60: `npx` may fetch it first)" },
    "session-idle": { type: "string", value: "SECS", help: "with --listen: a 2025-era HTTP session with nothing running and no request for this long is ended (default 1800)" },
    "max-sessions": { type: "string", value: "N", help: "with --listen: at most N 2025-era HTTP sessions are held; a new one ends the least recently used idle one (default 100)" },
    "approval-wait": { type: "string", value: "SECS", help: "a client without elicitation: how long a call that needs a person waits for their decision in the approvals store before answering (default 0: answer at once with the pending id)" },
    trace: { type: "string", value: "FILE", help: "append every call, the person's answers and the outcomes to FILE as a trace that `stalwart replay` reads (arguments and results included: FILE is made readable by its owner only)" },
    quiet: { type: "boolean", help: "do not log each decision on stderr" },
    json: { type: "boolean", help: "log each decision on stderr as a JSON line" },
    out: { type: "string", short: "o", value: "FILE", help: "init: where to write the starter catalogue (default agent.yaml)" },
    force: { type: "boolean", help: "init: overwrite an existing file" },
  },
  async run({ values: v, positionals, beforeEnd, io }) {
    // after `--` every word is the tool server's command: `-- init …` is a server named init
    if (beforeEnd > 0 && positionals[0] === "init") return init(v, positionals.slice(1), io);
    if (!v.catalogue) {
      // `gateway npx server --catalogue a.yaml`: the option went to the command, which starts at its first word
      const late = positionals.slice(beforeEnd).some((w) => w === "--catalogue" || w.startsWith("--catalogue="));
      throw usageError("`--catalogue` is required", late ? "give it before the tool server's command: every word from the command on is the command's own" : undefined);
    }
    const upstream = upstreamOf(v.url, positionals, { literal: v.header ?? [], fromEnv: v["header-env"] ?? [] });
    if (typeof upstream === "string") throw usageError(upstream);
    if (v.language !== undefined && v.language !== "en" && v.language !== "pt-BR") throw usageError(`\`--language ${v.language}\` is not en or pt-BR`);
    for (const flag of ["session-idle", "max-sessions"] as const) if (v[flag] !== undefined && !v.listen) throw usageError(`\`--${flag}\` is for \`--listen\` (HTTP sessions); on stdio the client's one connection ends with it`);
    if (v["check-timeout"] !== undefined && !v["check-url"]) throw usageError("`--check-timeout` is for `--check-url`: in-process checks answer without a network");
    const quiet = v.quiet === true;
    // The MCP SDK loads only when the gateway runs, not for every other command.
    const { startGateway } = await import("../gateway/index.js");
    const { parseListen } = await import("../gateway/listen-address.js");
    // a value an option cannot take is a usage error (exit 2, cli.md), as `--language pt` is
    const listen = v.listen ? asUsage(() => parseListen(v.listen!)) : undefined;
    const gateway = await startGateway({
      catalogue: v.catalogue,
      upstream,
      ...(listen ? { listen } : {}),
      ...(v.home ? { home: v.home } : {}),
      ...(v["check-url"] ? { checkUrl: v["check-url"] } : {}),
      ...(v.key ? { key: v.key } : {}),
      ...(v["check-timeout"] ? { checkTimeoutMs: seconds(v["check-timeout"], "--check-timeout", MAX_TIMER_SECONDS) } : {}),
      ...(v.session ? { sessionName: v.session } : {}),
      ...(v.trace !== undefined ? { trace: v.trace } : {}),
      ...(v.agent !== undefined ? { agent: v.agent } : {}),
      ...(v.rulebook !== undefined ? { rulebook: v.rulebook } : {}),
      ...(v["taint-model-after-untrusted"] === true ? { taintModelAfterUntrusted: true } : {}),
      ...(v.language ? { language: v.language as Language } : {}),
      ...(v["ask-timeout"] ? { askTimeoutMs: seconds(v["ask-timeout"], "--ask-timeout", MAX_TIMER_SECONDS) } : {}),
      ...(v["call-timeout"] ? { callTimeoutMs: seconds(v["call-timeout"], "--call-timeout", MAX_TIMER_SECONDS) } : {}),
      ...(v["start-timeout"] ? { upstreamStartMs: seconds(v["start-timeout"], "--start-timeout", MAX_TIMER_SECONDS) } : {}),
      ...(v["session-idle"] ? { sessionIdleMs: seconds(v["session-idle"], "--session-idle") } : {}),
      ...(v["max-sessions"] ? { maxSessions: count(v["max-sessions"], "--max-sessions") } : {}),
      // 0 is the default written out: answer at once with the pending id
      ...(v["approval-wait"] && Number(v["approval-wait"]) !== 0 ? { approvalWaitMs: seconds(v["approval-wait"], "--approval-wait") } : {}),
      notice: (line) => process.stderr.write(`stalwart gateway: ${line}\n`),
      // --quiet gives no logger at all: a line that goes nowhere is not made one-line first (~1% of the gateway's busy time)
      ...(quiet ? {} : { log: v.json ? (line: string) => process.stderr.write(JSON.stringify({ gateway: line }) + "\n") : (line: string) => process.stderr.write(`stalwart gateway: ${line}\n`) }),
    });
    // Run until the client goes away (stdio end) or a signal; then stop the tool server too. The
    // handlers are in place before the line that says it serves: a host that stops the gateway as
    // soon as it reads that line had it killed outright, its tool server and counts left as they were.
    const stopped = new Promise<Error | undefined>((resolve) => {
      process.once("SIGINT", () => resolve(undefined));
      process.once("SIGTERM", () => resolve(undefined));
      if (!gateway.url) process.stdin.once("end", () => resolve(undefined));
      void gateway.ended?.then(resolve);
    });
    // said even with --quiet: it is not a decision, and it is why every decision would be a refusal
    for (const w of gateway.warnings) process.stderr.write(`stalwart gateway: warning: ${w}\n`);
    const n = gateway.catalogue.tools.size;
    process.stderr.write(`stalwart gateway: checking ${n} tool${n === 1 ? "" : "s"}; ${gateway.url ? `listening on ${gateway.url}` : "serving on stdio"}\n`);
    const failure = await stopped;
    await gateway.close();
    if (!failure) return 0;
    process.stderr.write(`stalwart gateway: stopped: a message from the client was larger than the stdio transport reads, so the connection was closed (${failure.message})\n`);
    return 1;
  },
});

const summary = command.summary;
const run = (argv: string[], io?: Io): Promise<number> => runLeaf(command, argv, io);

async function init(v: { url?: string | undefined; header?: string[] | undefined; "header-env"?: string[] | undefined; out?: string | undefined; force?: boolean | undefined; json?: boolean | undefined }, positionals: string[], io: Io): Promise<number> {
  const upstream = upstreamOf(v.url, positionals, { literal: v.header ?? [], fromEnv: v["header-env"] ?? [] });
  if (typeof upstream === "string") throw usageError(upstream);
  const out = v.out ?? "agent.yaml";
  const { writeStarter, shownName } = await import("../gateway/init.js");
  const written = await writeStarter(upstream, out, { force: v.force === true });
  if (v.json) {
    // cli.md: with --json the result is JSON on stdout, each tool left out with its reason
    io.stdout.write(`${JSON.stringify({ file: out, tools: written.tools, guesses: written.guesses, left_out: written.left }, null, 2)}\n`);
    return 0;
  }
  const left = written.skipped.length ? `; left out ${written.skipped.map(shownName).join(", ")} (a name a catalogue cannot hold or the gateway keeps, a name listed twice, a listing that is not valid MCP, or a schema a catalogue cannot take: see the file)` : "";
  io.stdout.write(`${out}: wrote ${written.tools} tool${written.tools === 1 ? "" : "s"} (${written.guesses} guesses marked \`# review\`${left}); check it with \`stalwart check ${out}\`\n`);
  return 0;
}

/** The headers given: `--header 'NAME: VALUE'` and `--header-env NAME=VAR`, as typed. */
interface HeaderFlags {
  literal: readonly string[];
  fromEnv: readonly string[];
}

function upstreamOf(url: string | undefined, positionals: string[], header: HeaderFlags): UpstreamSpec | string {
  if (url !== undefined && positionals.length > 0) return "give the tool server as `-- CMD ARGS…` or `--url URL`, not both";
  const given = header.literal.length + header.fromEnv.length;
  if (url !== undefined) {
    if (!/^https?:\/\//.test(url)) return `\`--url ${url}\` is not an http(s) URL`;
    const headers = headersOf(header);
    if (typeof headers === "string") return headers;
    return { url, ...(given > 0 ? { headers } : {}) };
  }
  if (given > 0) return `\`--${header.literal.length > 0 ? "header" : "header-env"}\` is for \`--url\` (a tool server over HTTP); a command's server takes its settings from its arguments and environment`;
  const [command, ...args] = positionals;
  if (!command) return "no tool server: give `-- CMD ARGS…` (stdio) or `--url URL` (streamable HTTP)";
  return { command, args };
}

const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Each header once: an HTTP field name and a value without line breaks. A `--header-env` value is
 * the gateway's own environment variable, so that a secret reaches it through the MCP host's `env`
 * rather than its arguments. No template syntax in `--header` does that: hosts expand `${VAR}` in
 * the arguments themselves (Claude Code's `.mcp.json` does), which would put the secret back there.
 * A fault names the header and the variable, never a value.
 */
function headersOf(given: HeaderFlags, env: NodeJS.ProcessEnv = process.env): Record<string, string> | string {
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  const add = (flag: string, name: string, value: string): string | undefined => {
    if (/[\r\n\0]/.test(value)) return `\`${flag} ${name}\`: a value cannot hold a line break`;
    if (seen.has(name.toLowerCase())) return `the header ${name} is given twice (\`--header\`, \`--header-env\`)`;
    seen.add(name.toLowerCase());
    defineOwn(headers, name, value); // a header's name is the user's: `__proto__` too
    return undefined;
  };
  for (const h of given.literal) {
    const colon = h.indexOf(":");
    const name = colon < 0 ? h : h.slice(0, colon).trim();
    if (colon < 0 || !FIELD_NAME.test(name)) return `\`--header ${h.split(":")[0]}…\` is not NAME: VALUE (e.g. \`--header 'Authorization: Bearer …'\`)`;
    const fault = add("--header", name, h.slice(colon + 1).trim());
    if (fault) return fault;
  }
  for (const h of given.fromEnv) {
    const m = /^([^=]+)=([A-Za-z_][A-Za-z0-9_]*)$/.exec(h);
    if (!m || !FIELD_NAME.test(m[1]!)) return `\`--header-env ${h}\` is not NAME=VAR, a header's name and the environment variable that holds its value (e.g. \`--header-env Authorization=TOOLS_AUTH\`)`;
    const name = m[1]!, variable = m[2]!;
    const value = Object.hasOwn(env, variable) ? env[variable] : undefined;
    if (value === undefined || value.trim() === "") return `\`--header-env ${name}=${variable}\`: ${variable} is ${value === undefined ? "not set" : "empty"} in the gateway's environment (set it where the MCP host starts the gateway, e.g. its \`env\`)`;
    const fault = add("--header-env", name, value.trim());
    if (fault) return fault;
  }
  return headers;
}

/**
 * The longest wait a Node timer holds (2^31 - 1 ms, about 24.8 days): the SDK times a forwarded
 * call and a person's answer with one, and a longer one fires at once (every call would time out).
 */
const MAX_TIMER_SECONDS = Math.floor(2_147_483_647 / 1000);

function seconds(value: string, flag: string, max = Number.MAX_SAFE_INTEGER / 1000): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw usageError(`\`${flag} ${value}\` is not a number of seconds`);
  if (n > max) throw usageError(`\`${flag} ${value}\` is longer than the gateway can wait: at most ${max} seconds (about ${Math.floor(max / 86400)} days)`);
  // a fraction of a millisecond is not no wait at all
  return Math.max(1, Math.round(n * 1000));
}

/** `--listen`'s reading, its InputError (message and hint) made a usage error. */
function asUsage<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof InputError) throw usageError(err.message, err.hint);
    throw err;
  }
}

function count(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw usageError(`\`${flag} ${value}\` is not a whole number of at least 1`);
  return n;
}
