/**
 * Tools the tool server runs only as tasks (MCP 2025-11-25, `execution.taskSupport: "required"`):
 * called plainly, the server refuses them (-32601), so through the gateway they could never run.
 * The gateway offers its clients no tasks. It runs such a call as a task upstream itself: it
 * creates the task (progress under a token of its own, relayed under the client's), waits for
 * `tasks/result`, which answers once the task is done (the server's requests meanwhile reach the
 * person's client as any call's do: relay.ts), and answers the client with that result as a
 * plain call's. A client that cancels, or a wait that fails, cancels the task.
 *
 * Clients are offered these tools without `execution.taskSupport`: to them the gateway is a
 * server without tasks, where every tool is called plainly.
 */
import type { ListedTool, Progress, Upstream } from "./upstream.js";

const RELATED_TASK = "io.modelcontextprotocol/related-task";

export class TaskTools {
  private readonly required = new Set<string>();
  private readonly known = new Set<string>();
  private fresh = false;

  constructor(private readonly listAll: () => Promise<ListedTool[]>) {}

  /** A page the upstream listed. */
  note(tools: readonly unknown[]): void {
    for (const t of tools) {
      if (typeof t !== "object" || t === null || typeof (t as { name?: unknown }).name !== "string") continue;
      const name = (t as { name: string }).name;
      this.known.add(name);
      // A name listed twice is run as a task when any copy says it must be: a plain call of it would be refused.
      if (taskSupportOf(t) === "required") this.required.add(name);
    }
  }

  /** The upstream's tools changed, or it was started again: nothing listed before is known to hold. */
  invalidate(): void {
    this.fresh = false;
    this.known.clear();
    this.required.clear();
  }

  /**
   * Whether `tool` must be called as a task: at once when a listing said (every call after the
   * first), else after one full listing. A listing that fails says no (the plain call then gets
   * the server's own answer).
   */
  needsTask(tool: string): boolean | Promise<boolean> {
    if (this.known.has(tool) || this.fresh) return this.required.has(tool);
    return this.listAll().then(
      (tools) => {
        this.invalidate();
        this.note(tools);
        this.fresh = true;
        return this.required.has(tool);
      },
      () => false,
    );
  }
}

function taskSupportOf(t: object): unknown {
  const execution = Object.hasOwn(t, "execution") ? (t as { execution?: unknown }).execution : undefined;
  return typeof execution === "object" && execution !== null && Object.hasOwn(execution, "taskSupport") ? (execution as { taskSupport?: unknown }).taskSupport : undefined;
}

/** A tool as offered to the gateway's clients: without `execution.taskSupport` (the gateway offers no tasks). */
export function offered(tool: Record<string, unknown>): Record<string, unknown> {
  if (taskSupportOf(tool) === undefined) return tool;
  const { taskSupport: _t, ...execution } = tool.execution as Record<string, unknown>;
  const { execution: _e, ...rest } = tool;
  return Object.keys(execution).length > 0 ? { ...rest, execution } : rest;
}

export interface SendOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  onprogress?: (p: Progress) => void;
}

/**
 * A checked `tools/call`, sent upstream: as a task when the tool requires one, else plainly. A
 * `task` the client asked for is dropped: the gateway offers no tasks, so it runs the call as
 * MCP asks of a receiver without them (forwarded, the upstream's answer is one it cannot read).
 */
export function sendToolCall(upstream: Upstream, tasks: TaskTools | undefined, params: { name: string } & Record<string, unknown>, o: SendOptions): Promise<Record<string, unknown>> {
  const { task: _task, ...plain } = params;
  const send = (asTask: boolean) => (asTask ? callAsTask(upstream, plain, o) : upstream.request("tools/call", plain, o)).then(complete);
  // known from a listing (nearly every call): sent now, with no step through the microtask queue
  const needs = tasks ? tasks.needsTask(params.name) : false;
  return typeof needs === "boolean" ? send(needs) : needs.then(send);
}

async function callAsTask(upstream: Upstream, params: Record<string, unknown>, o: SendOptions): Promise<Record<string, unknown>> {
  const channel = o.onprogress ? upstream.progressChannel(o.onprogress) : undefined;
  let taskId: string | undefined;
  let cancelled = false;
  const cancel = () => {
    if (taskId === undefined || cancelled) return;
    cancelled = true;
    void upstream.request("tasks/cancel", { taskId }, { timeoutMs: 10_000, resultAs: null }).catch(() => undefined);
  };
  o.signal?.addEventListener("abort", cancel, { once: true });
  try {
    const base = { timeoutMs: o.timeoutMs, ...(o.signal ? { signal: o.signal } : {}) };
    // Not given the client's signal: cancelling the creating request (notifications/cancelled)
    // may leave a task the server made anyway running, unwatched and never cancelled. A client
    // that cancels meanwhile is answered at once, and the task is cancelled once its id is known.
    const creating = upstream.request("tools/call", { ...params, task: { ttl: o.timeoutMs } }, { timeoutMs: o.timeoutMs, creatingTask: true, ...(channel ? { progress: channel } : {}) });
    const created = await (o.signal ? untilAborted(creating, o.signal, upstream) : creating);
    taskId = (created.task as { taskId: string }).taskId;
    if (o.signal?.aborted) cancel();
    const result = await upstream.request("tasks/result", { taskId }, { ...base, resultAs: "tools/call" });
    return withoutRelatedTask(result);
  } catch (err) {
    // Not waited for to its end: the task may still run, and nobody will read its result.
    cancel();
    throw err;
  } finally {
    o.signal?.removeEventListener("abort", cancel);
    channel?.close();
  }
}

/**
 * `creating`, or a rejection as soon as `signal` aborts. When it aborts first, the task the
 * server goes on to create is cancelled when its answer comes (the caller's `cancel` cannot: it
 * has no id yet).
 */
function untilAborted(creating: Promise<Record<string, unknown>>, signal: AbortSignal, upstream: Upstream): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason instanceof Error ? signal.reason : new Error("the call was cancelled"));
      void creating.then(
        (created) => {
          const id = (created.task as { taskId?: unknown } | undefined)?.taskId;
          if (typeof id === "string") void upstream.request("tasks/cancel", { taskId: id }, { timeoutMs: 10_000, resultAs: null }).catch(() => undefined);
        },
        () => undefined,
      );
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    creating.then(
      (v) => (signal.removeEventListener("abort", onAbort), resolve(v)),
      (e: unknown) => (signal.removeEventListener("abort", onAbort), reject(e)),
    );
  });
}

/** The result without the upstream's task id in `_meta`: the client asked for no task, and that id is the gateway's. */
function withoutRelatedTask(result: Record<string, unknown>): Record<string, unknown> {
  const meta = result._meta;
  if (typeof meta !== "object" || meta === null || !Object.hasOwn(meta, RELATED_TASK)) return result;
  const { [RELATED_TASK]: _r, ...rest } = meta as Record<string, unknown>;
  const { _meta: _m, ...out } = result;
  return Object.keys(rest).length > 0 ? { ...out, _meta: rest } : out;
}

/**
 * The keys of the 2026-07-28 flow (`input_required`) that only the gateway puts in what a client
 * gets. A tool server's result read as a complete one (it has content) that still carries them was
 * passed on whole, and a host reading `inputRequests` showed the tool server's form, worded as ours,
 * with nothing to mark it (outside audit 9, N1): they are dropped; the tool server's own questions
 * reach the client only through the relay, marked.
 */
const FLOW_KEYS = ["resultType", "inputRequests", "requestState"] as const;

function complete(r: Record<string, unknown>): Record<string, unknown> {
  if (!FLOW_KEYS.some((k) => Object.hasOwn(r, k))) return r;
  const out = { ...r };
  for (const k of FLOW_KEYS) delete out[k];
  return out;
}
