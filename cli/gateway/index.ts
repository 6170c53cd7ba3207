/**
 * `stalwart gateway` assembled: the catalogue, one stalwart session (in-process, or on the check
 * worker with `checkUrl`), the upstream tool server, and the downstream server on stdio or HTTP.
 * docs/gateway.md says what it checks, what it can and cannot see, and how a person is asked.
 */
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { Client } from "../sdk/index.js";
import { resolveHome } from "../sdk/home.js";
import { ajvCompiler } from "../sdk/ajv-compiler.js";
import { readCatalogueFile } from "../sdk/catalogue-node.js";
import { catalogueFrom } from "../sdk/catalogue-input.js";
import { parse } from "yaml";
import { CatalogueError, decide, loadCatalogue, receiptProblem, sha256, standingOf, type Approval, type ApprovalStore, type CompiledCatalogue, type Entry, type Language, type Mac, type PendingRecord } from "../../worker/portable/engine/index.js";
import { homeMac } from "../approvals/mac.js";
import { remoteApprovals } from "../approvals/remote.js";
import { Http } from "../sdk/remote.js";
import { Calls, type GatewaySession } from "./calls.js";
import { FileApprovalStore } from "../approvals/store.js";
import { LiveServers, serverFactory } from "./server.js";
import { Upstream, type UpstreamSpec } from "./upstream.js";
import type { listen } from "./http.js";
import { GonePosts } from "./gone-posts.js";
import { Pins, pinsOf } from "./pins.js";
import { TaskTools } from "./task-tools.js";
import { OUTSIDE_TOOLS, outsideEntryProblems, withOutsideReads } from "./outside.js";
import { gatewayAgent } from "./agent.js";
import { TraceFile } from "./trace-file.js";
import { oneLine } from "../../worker/portable/approvals/visible.js";
import { loadRulebookNode } from "../sdk/rulebook-node.js";
import { Relay } from "./relay.js";
import { licenceAtStart } from "./licence-warning.js";
import { loadFetch } from "../licence/load-fetch.js";
import { workerWarning } from "./worker-warning.js";
import { rulebookNotes, startNotes } from "./start-notes.js";
import { CheckedStdioTransport } from "./stdio.js";
import { GatewayOwners } from "../approvals/owners.js";

export interface GatewayOptions {
  /** path to agent.yaml */
  catalogue: string;
  upstream: UpstreamSpec;
  /** downstream streamable HTTP on this loopback address; absent: stdio */
  listen?: { host: string; port: number };
  /** with `listen`: a 2025-era session idle for longer than this is ended (default half an hour) */
  sessionIdleMs?: number;
  /** with `listen`: at most this many 2025-era sessions are held (default 100) */
  maxSessions?: number;
  home?: string;
  /** a check worker shared by several gateways (`--check-url`, `--key`) */
  checkUrl?: string;
  key?: string;
  /** with `checkUrl`: how long the check worker has to answer before the call is refused `check_unavailable` (default 5 s) */
  checkTimeoutMs?: number;
  sessionName?: string;
  /** the catalogue's agent whose calls these are (`--agent`); required when it names several */
  agent?: string;
  /** a rulebook (`--rulebook`): a path to .yaml / .csv, or a compiled registry folder */
  rulebook?: string;
  /** every `model` argument written after an untrusted read carries its label (`--taint-model-after-untrusted`) */
  taintModelAfterUntrusted?: boolean;
  language?: Language;
  context?: Record<string, unknown>;
  /** how long a person may take to answer (default: a day) */
  askTimeoutMs?: number;
  /** a client without elicitation: how long to wait for a person in the approval store (default 0: answer at once with the pending id) */
  approvalWaitMs?: number;
  /** how long a forwarded call may take (default: a day) */
  callTimeoutMs?: number;
  now?: () => Date;
  log?: (line: string) => void;
  /** how long the tool server has to answer `initialize` (default a minute: `npx` may fetch it first) */
  upstreamStartMs?: number;
  /** lines about the start itself, said whatever `log` does (`--quiet` too): a tool server slow to answer `initialize` */
  notice?: (line: string) => void;
  /** `--trace FILE`: append each call, the person's answers and the outcomes to FILE as a trace for `stalwart replay` (trace-file.ts) */
  trace?: string;
  /** programmatic only (never a flag): a session of the caller's own instead of a stalwart one — bench/gateway.ts stubs the check with it to measure the gateway alone */
  session?: GatewaySession;
}

export interface RunningGateway {
  /** the downstream URL with `listen`; undefined on stdio */
  url?: string;
  /** stdio: resolves when the client's connection ends — with why, when it was not the client closing it */
  ended?: Promise<Error | undefined>;
  sessionId: string;
  /** the home's approvals store: where a pending call waits in-process (with `checkUrl`, on the worker instead: `approvals`) */
  pending: FileApprovalStore;
  /** the store the gateway's pending ids are in: the home's, or with `checkUrl` the check worker's */
  approvals: ApprovalStore;
  catalogue: CompiledCatalogue;
  /** what the person should read at the start: a home's licence, or with `checkUrl` a check worker, that refuses calls (licence-warning.ts, worker-warning.ts); tools left out of `tools/list` (start-notes.ts) */
  warnings: string[];
  /** downstream connections open (a stdio connection, 2025-era HTTP sessions): each one's server is let go when it ends */
  connections(): number;
  /** the session's history (what the check signed); a call's report is in it once `settled()` resolves */
  entries(): Entry[];
  /** every report of a call answered so far is recorded (reports are made just after each reply) */
  settled(): Promise<void>;
  close(): Promise<void>;
}

const DAY = 24 * 60 * 60 * 1000;
const START_LISTING_MS = 5000;
/** `--check-timeout`'s default: past it, a check the worker has not answered refuses (fail closed) */
const CHECK_TIMEOUT_MS = 5000;
/** how long the tool server has to answer `initialize` (`npx` may fetch it first), and when to say it is slow */
const UPSTREAM_START_MS = 60_000;
const SLOW_START_MS = 10_000;

export async function startGateway(o: GatewayOptions): Promise<RunningGateway> {
  // The person's file is linted as it is (its problems point at its own lines); the check then
  // gets it with the outside-read entries for resources and prompts added (outside.ts).
  const text = readCatalogueFile(o.catalogue);
  const own = loadCatalogue(text, { file: o.catalogue, schemaCompiler: ajvCompiler });
  const taken = outsideEntryProblems(text, o.catalogue, own);
  if (taken.length > 0) throw new CatalogueError(taken);
  const source = parse(text) as Record<string, unknown>;
  const effective = withOutsideReads(source);
  // through the SDK's cache, so that the session made from `effective` below is not compiled again
  const catalogue = catalogueFrom(effective, { schemaCompiler: ajvCompiler, sha256 });
  const hidden = new Set([...OUTSIDE_TOOLS].filter((n) => !own.tools.has(n)));
  const { agent, reach } = gatewayAgent(catalogue, o.agent);
  // compiled now so that a bad rulebook stops the gateway with where it is wrong, not every call
  // later (with --check-url the worker compiles it again)
  const rulebook = o.rulebook !== undefined ? loadRulebookNode(o.rulebook, { catalogue }) : undefined;
  const home = resolveHome(o.home);
  const language = o.language ?? catalogue.settings.language;
  const context = o.context ?? {};
  // opened before anything starts: a path that cannot be written stops the gateway here
  // Every log line holds names and values the model chose (a tool named "x\r\nallow …\x1b[8m"):
  // on one line, hidden characters named, so it can neither forge a line nor conceal one (audit 7, F11).
  const log = o.log ? (line: string) => o.log!(oneLine(line)) : () => undefined;
  const notice = o.notice ? (line: string) => o.notice!(oneLine(line)) : undefined;
  const trace = o.trace !== undefined ? new TraceFile(o.trace, o.now ?? (() => new Date()), log).open({ name: o.sessionName ?? "gateway", language, context, ...(agent ? { agent } : {}) }) : undefined;
  let client: Client | undefined;
  let session: GatewaySession;
  if (o.session) session = o.session;
  else {
    // In-process, the session's kept state stays in this process (ClientInternals; with
    // --check-url it is the worker's, as every remote session's): the gateway
    // holds the only copy of its history, and it is never saved or resumed; counters (ceilings,
    // rates) stay in the home's store, shared with every other process on it.
    client = new Client({
      ...(o.home ? { home: o.home } : {}),
      ...(o.now ? { now: o.now } : {}),
      ...(o.checkUrl ? { url: o.checkUrl, timeoutMs: o.checkTimeoutMs ?? CHECK_TIMEOUT_MS } : {}),
      ...(o.key ? { key: o.key } : {}),
    }, { sessionsInProcess: !o.checkUrl });
    session = client.session(o.sessionName ?? "gateway", { catalogue: effective, language, context, ...(agent ? { agent } : {}), ...(o.rulebook !== undefined ? { rulebook: o.rulebook } : {}), ...(o.taintModelAfterUntrusted ? { taintModelAfterUntrusted: true } : {}) });
  }

  const live = new LiveServers();
  const askTimeoutMs = o.askTimeoutMs ?? DAY;
  let name = "the tool server";
  let sampled: ((answer: unknown) => void) | undefined;
  const relay = new Relay({ askTimeoutMs, serverName: () => name, log, sent: (answer) => sampled?.(answer) });
  let http: Awaited<ReturnType<typeof listen>> | undefined;
  let pins: Pins | undefined;
  let owners: GatewayOwners | undefined;
  let tasks: TaskTools | undefined;
  // A tool server's first start may be slow (`npx` fetching it), and the MCP host gives up on the
  // gateway after its own timeout: say what is being waited for, so its log shows why.
  const what = "url" in o.upstream ? `at ${o.upstream.url}` : `\`${[o.upstream.command, ...o.upstream.args].join(" ")}\``;
  const startMs = o.upstreamStartMs ?? UPSTREAM_START_MS;
  const slowMs = Math.min(SLOW_START_MS, startMs / 2);
  const slow = notice ? setTimeout(() => notice(`the tool server ${what} has not answered \`initialize\` after ${slowMs / 1000} s; waiting up to ${startMs / 1000} s`), slowMs) : undefined;
  slow?.unref();
  // The tool server starts once everything that can stop the gateway has been read (the person's
  // files, the home), and answers while the licence or the check worker is looked at. Settled,
  // never rejected: a start that fails meanwhile is taken up below, not left unhandled.
  const starting = new Upstream(o.upstream, {
    toolsChanged: () => (pins?.invalidate(), tasks?.invalidate(), live.toolsChanged(), http?.toolsChanged()),
    resourcesChanged: () => (live.resourcesChanged(), http?.resourcesChanged()),
    promptsChanged: () => (live.promptsChanged(), http?.promptsChanged()),
    request: (method, params, signal) => relay.request(method, params, signal),
    message: (params) => relay.message(params),
    resourceUpdated: (params) => relay.updated(params),
    // the server that answers next (`npx` may fetch a newer build) is compared with the pins afresh
    lost: () => (pins?.invalidate(), tasks?.invalidate()),
  }, startMs).start().then(
    (started) => ({ started }),
    (err: unknown) => ({ err }),
  ).finally(() => clearTimeout(slow));
  // What the checks will run under — the home's licence on the session's clock, or with a check
  // worker, whether it answers, is licensed and takes the key (neither throws: each says what it found).
  const checker = !client ? undefined : o.checkUrl ? workerWarning(o.checkUrl, o.key) : licenceAtStart(home, o.now?.() ?? new Date()).then((l) => {
    // The first answer renews the lease with Node's fetch, whose first use loads undici (~40 ms of
    // CPU, in front of the first call's answer): loaded during the start instead, where no tool's
    // answer waits on it (hidden when the tool server is the slower to start).
    if (l.renews) loadFetch();
    return l.warning;
  });
  const [s, warning] = await Promise.all([starting, checker?.then((w) => ({ w }), (err: unknown) => ({ err }))]);
  if ("err" in s || (warning && "err" in warning)) {
    if ("started" in s) await s.started.close();
    client?.close(); // its licence counts written, its timers let go: nothing will check
    trace?.close();
    throw "err" in s ? s.err : (warning as { err: unknown }).err;
  }
  const upstream = s.started;
  // From here the tool server runs: a start that fails after this point stops it (and the
  // client) before it throws, rather than leave it behind (a taken --listen port, for one).
  try {
    name = upstream.serverInfo()?.name ?? name;

    pins = new Pins(pinsOf(source), () => upstream.listTools());
    // One listing at the start, for what a person should read before a tool goes missing in their
    // client (start-notes.ts); a server slow to list, or with no tools, is not waited for long.
    const raw = await upstream.listTools(START_LISTING_MS, { raw: true }).catch(() => undefined);
    const named = [...own.tools.keys()].filter((n) => !OUTSIDE_TOOLS.has(n) && (!reach || reach.has(n)));
    const notes = raw ? startNotes({ listed: upstream.readable(raw), named, pins: pinsOf(source), unreadable: raw.filter((t) => !upstream.asListed(t)).map((t) => t.name) }) : [];
    tasks = new TaskTools(() => upstream.listTools());
    // The key is loaded once, when first needed (a record signed, a standing approval):
    // after `stalwart key reset` its MAC refuses (KeyChanged) until the gateway is restarted, as
    // the session's own checks do.
    let mac: Mac | undefined;
    const pending = new FileApprovalStore(home, () => (mac ??= homeMac(home)), { verify: false });
    const remote = !o.session && o.checkUrl ? remoteStanding(o.checkUrl, o.key, o.checkTimeoutMs ?? CHECK_TIMEOUT_MS) : undefined;
    const callTimeoutMs = o.callTimeoutMs ?? DAY;
    // "Always for this session" (`stalwart approvals approve --always`): a later ask of the same call is
    // approved at once, by the same person, with a receipt of its own — as `run()` does (guarded.ts).
    const standing = async (record: PendingRecord) => {
      const s = await standingOf(pending, record);
      if (!s?.receipt) return undefined;
      const m = (mac ??= homeMac(home));
      // a standing approval is the person's only when its receipt verifies: one edited by hand signs nothing new
      const bad = receiptProblem(m, s.receipt);
      if (bad) {
        log(`standing approval ${s.record.id} not used: ${bad}`);
        return undefined;
      }
      return decide(pending, m, record.id, { decision: "approve", by: s.receipt.by, at: record.created, message: `always for this session (${s.record.id})` });
    };
    const approvals = remote?.store ?? pending;
    // This gateway's records are its own (its session ends with it): those of a gateway that was
    // killed before it could withdraw its own are withdrawn now, and this one's process is marked (cli/approvals/owners.ts).
    owners = client !== undefined ? new GatewayOwners(home, { checker: remote ? o.checkUrl!.replace(/\/+$/, "") : undefined }) : undefined;
    if (owners) {
      await owners.sweep(approvals, (o.now?.() ?? new Date()).getTime(), log);
      owners.claim(session.id, log);
    }
    // requests whose POST an HTTP client closed: a call waiting there for a person stops waiting
    const gone = o.listen ? new GonePosts() : undefined;
    const calls = new Calls({ catalogue, session, upstream, relay, pending: approvals, standing: remote?.standing ?? standing, language, context, callTimeoutMs, askTimeoutMs, log, pins, tasks, hidden, ...(o.approvalWaitMs ? { approvalWaitMs: o.approvalWaitMs } : {}), ...(o.now ? { now: o.now } : {}), ownRecords: client === undefined ? false : o.checkUrl ? "recorded" : true, ...(trace ? { trace } : {}), ...(gone ? { gone } : {}) });
    sampled = (answer) => calls.sentOn(answer);
    const factory = serverFactory({ catalogue, upstream, calls, relay, askTimeoutMs, callTimeoutMs, pins, tasks, hidden, ...(reach ? { reach } : {}), log, ...(trace ? { trace } : {}) }, live);

    let closeDownstream: () => Promise<void>;
    let ended: Promise<Error | undefined> | undefined;
    if (o.listen) {
      // loaded only to listen: the HTTP side is ~30 ms of a stdio gateway's start otherwise
      const { listen } = await import("./http.js");
      http = await listen(factory, o.listen, {
        log,
        ...(o.now ? { now: o.now } : {}),
        ...(o.sessionIdleMs ? { sessionIdleMs: o.sessionIdleMs } : {}),
        ...(o.maxSessions ? { maxSessions: o.maxSessions } : {}),
        ...(gone ? { gone } : {}),
      });
      closeDownstream = () => http!.close();
    } else {
      // The SDK's stdio transport ends the connection on a message over its buffer (10 MB) and says
      // so only to `onerror`: the gateway must not vanish without saying why (exit 0, nothing logged).
      // It answers what the SDK's transport drops in silence (stdio.ts).
      const transport = new CheckedStdioTransport();
      let failure: Error | undefined;
      const handle = serveStdio(factory, { transport, onerror: (err) => void (/exceeded maximum size/.test(err.message) && (failure = err)) });
      ended = new Promise((resolve) => {
        const prev = transport.onclose;
        transport.onclose = () => {
          prev?.();
          resolve(failure);
        };
      });
      closeDownstream = () => handle.close();
    }
    return {
      ...(http ? { url: http.url } : {}),
      ...(ended ? { ended } : {}),
      get sessionId() {
        return session.id;
      },
      pending,
      approvals,
      // the person's catalogue, as they wrote it (the check also has the outside-read entries)
      catalogue: own,
      warnings: [...(warning?.w ? [warning.w] : []), ...notes, ...(rulebook ? rulebookNotes(rulebook) : [])],
      connections: () => live.size,
      entries: () => session.history.entries,
      settled: () => calls.settled(),
      close: async () => {
        await closeDownstream().catch(() => undefined);
        await calls.close();
        owners?.release();
        await calls.settled();
        trace?.close();
        await upstream.close();
        client?.close();
      },
    };
  } catch (err) {
    owners?.release();
    await upstream.close();
    client?.close();
    trace?.close();
    throw err;
  }
}

/**
 * With `checkUrl`, the worker records every confirm it answers in the tenant's approvals, under
 * the id its token names, and signs their receipts under the tenant's key (the only key the
 * session's history takes): the gateway's pending calls are those records, decided on the
 * worker's page or API. A standing approval ("always") is applied by the worker as it records
 * the confirm, so a new record it has decided already is read back, not decided here.
 */
function remoteStanding(url: string, key: string | undefined, timeoutMs: number): { store: ApprovalStore; standing: (record: PendingRecord) => Promise<Approval | undefined> } {
  const { store } = remoteApprovals(new Http({ url, timeoutMs, ...(key ? { key } : {}) }));
  return {
    store,
    standing: async (record) => {
      const a = await store.get(record.id);
      return a?.receipt ? a : undefined;
    },
  };
}
