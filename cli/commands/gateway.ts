/**
 * `stalwart gateway --catalogue agent.yaml [--listen 127.0.0.1:PORT] -- CMD ARGS…` (or `--url URL`)
 * and `stalwart gateway init [-o agent.yaml] -- CMD ARGS…` (interfaces.md CLI; docs/gateway.md).
 */
import { parseArgs } from "node:util";
import { InputError, type Language } from "../../worker/portable/engine/index.js";
import { startGateway } from "../gateway/index.js";
import { parseListen } from "../gateway/http.js";
import { writeStarter } from "../gateway/init.js";
import type { UpstreamSpec } from "../gateway/upstream.js";

export const summary = "an MCP server in front of a tool server, checking every tools/call";

const USAGE = `usage: stalwart gateway --catalogue agent.yaml [options] -- CMD ARGS…
       stalwart gateway --catalogue agent.yaml [options] --url URL
       stalwart gateway init [-o agent.yaml] [--force] (-- CMD ARGS… | --url URL)

  an MCP server that forwards to the tool server started by CMD (stdio) or at URL (streamable HTTP),
  checking every tools/call first; a call that needs a person is asked about through elicitation

  --catalogue FILE     the catalogue (agent.yaml); tools/list offers only the tools it names
  --listen HOST:PORT   serve streamable HTTP at http://HOST:PORT/mcp (loopback only); default: stdio
  --check-url URL      check against a check worker (shared ceilings across gateways); --key K its key
  --home DIR           licence and state folder (default $STALWART_HOME or ~/.stalwart)
  --session NAME       the session's name (default: gateway)
  --language en|pt-BR  the session language (default: the catalogue's)
  --ask-timeout SECS   how long to wait for the person's answer (default 86400)
  --call-timeout SECS  how long a forwarded call may run without progress (default 86400)
  --quiet              do not log each decision on stderr`;

export async function run(argv: string[]): Promise<number> {
  if (argv[0] === "init") return init(argv.slice(1));
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        catalogue: { type: "string" },
        url: { type: "string" },
        listen: { type: "string" },
        "check-url": { type: "string" },
        key: { type: "string" },
        home: { type: "string" },
        session: { type: "string" },
        language: { type: "string" },
        "ask-timeout": { type: "string" },
        "call-timeout": { type: "string" },
        quiet: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    return usage((err as Error).message);
  }
  const v = parsed.values;
  if (v.help) {
    process.stdout.write(USAGE + "\n");
    return 0;
  }
  if (!v.catalogue) return usage("`--catalogue` is required");
  const upstream = upstreamOf(v.url, parsed.positionals);
  if (typeof upstream === "string") return usage(upstream);
  if (v.language !== undefined && v.language !== "en" && v.language !== "pt-BR") return usage(`\`--language ${v.language}\` is not en or pt-BR`);
  const quiet = v.quiet === true;
  const gateway = await startGateway({
    catalogue: v.catalogue,
    upstream,
    ...(v.listen ? { listen: parseListen(v.listen) } : {}),
    ...(v.home ? { home: v.home } : {}),
    ...(v["check-url"] ? { checkUrl: v["check-url"] } : {}),
    ...(v.key ? { key: v.key } : {}),
    ...(v.session ? { sessionName: v.session } : {}),
    ...(v.language ? { language: v.language as Language } : {}),
    ...(v["ask-timeout"] ? { askTimeoutMs: seconds(v["ask-timeout"], "--ask-timeout") } : {}),
    ...(v["call-timeout"] ? { callTimeoutMs: seconds(v["call-timeout"], "--call-timeout") } : {}),
    log: quiet ? () => undefined : (line) => process.stderr.write(`stalwart gateway: ${line}\n`),
  });
  process.stderr.write(`stalwart gateway: checking ${gateway.catalogue.tools.size} tools; ${gateway.url ? `listening on ${gateway.url}` : "serving on stdio"}\n`);
  // Run until the client goes away (stdio end) or a signal; then stop the tool server too.
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
    if (!gateway.url) process.stdin.once("end", resolve);
  });
  await gateway.close();
  return 0;
}

async function init(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { out: { type: "string", short: "o" }, url: { type: "string" }, force: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    });
  } catch (err) {
    return usage((err as Error).message);
  }
  if (parsed.values.help) {
    process.stdout.write(USAGE + "\n");
    return 0;
  }
  const upstream = upstreamOf(parsed.values.url, parsed.positionals);
  if (typeof upstream === "string") return usage(upstream);
  const out = parsed.values.out ?? "agent.yaml";
  const written = await writeStarter(upstream, out, { force: parsed.values.force === true });
  process.stdout.write(`${out}: wrote ${written.tools} tool${written.tools === 1 ? "" : "s"} (${written.guesses} guesses marked \`# review\`); check it with \`stalwart check ${out}\`\n`);
  return 0;
}

function upstreamOf(url: string | undefined, positionals: string[]): UpstreamSpec | string {
  if (url !== undefined && positionals.length > 0) return "give the tool server as `-- CMD ARGS…` or `--url URL`, not both";
  if (url !== undefined) {
    if (!/^https?:\/\//.test(url)) return `\`--url ${url}\` is not an http(s) URL`;
    return { url };
  }
  const [command, ...args] = positionals;
  if (!command) return "no tool server: give `-- CMD ARGS…` (stdio) or `--url URL` (streamable HTTP)";
  return { command, args };
}

function seconds(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InputError(`\`${flag} ${value}\` is not a number of seconds`);
  return Math.round(n * 1000);
}

function usage(message: string): number {
  process.stderr.write(`stalwart gateway: ${message}\n\n${USAGE}\n`);
  return 2;
}
