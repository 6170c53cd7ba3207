/**
 * A tool server's own request during a call whose client speaks protocol 2026-07-28 (relay.ts).
 * That protocol has no request from a server in the middle of a call. The call ends with
 * `input_required`, which carries the tool server's request, and the client sends the same
 * `tools/call` again with its answer. So the gateway keeps the tool server's call open between
 * the two:
 *
 *   - the `requestState` names the held call by a random id under the gateway's MAC. It is spent
 *     on the first retry that carries it, and a retry of another tool or other arguments is
 *     refused without being spent;
 *   - the retry is not checked again: the check allowed this call once, and reserved its
 *     counters then. It resumes the call: the answer goes to the tool server, and the retry waits
 *     for the tool server's next request or its result;
 *   - the call's outcome is reported when the tool server ends it, whether or not its client is
 *     there to read it (forward.ts); a client that does not come back within the ask timeout:
 *     the tool server's request is answered with an error;
 *   - progress goes to the request the client is waiting on now, and cancelling that request
 *     cancels the tool server's call.
 *
 * The tool server's call is one process's. Over HTTP, a retry that reaches another gateway
 * process (a fleet behind one address) is told that no such call is held there.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { inputRequired, inputResponse, type ServerContext } from "@modelcontextprotocol/server";
import type { CheckResult } from "../../worker/portable/engine/index.js";

/** The key of the tool server's request in `inputRequests` (stalwart's own question uses form.ts's key). */
export const RELAY_KEY = "stalwart_tool_server_request";
const PREFIX = "stalwart-relay.";

/** How the held call ended, or the tool server's next request. */
export type Next = { kind: "ask"; ask: Ask } | { kind: "done"; result: Record<string, unknown> } | { kind: "error"; error: Error };

export interface Ask {
  method: string;
  params: Record<string, unknown>;
  answer(result: Record<string, unknown>): void;
  fail(error: Error): void;
}

/** What a held call needs from the gateway (calls.ts). */
export interface HeldCallsOptions {
  /** how long a held call waits for its client to come back (the gateway's ask timeout) */
  waitMs: number;
  log: (line: string) => void;
}

export class HeldCall {
  private readonly asks: Ask[] = [];
  private ended: Next | undefined;
  private wake: (() => void) | undefined;
  /** the request the client waits on now, and its progress token: where progress goes */
  ctx: ServerContext;
  token: string | number | undefined;
  /** cancels the tool server's call */
  readonly abort = new AbortController();
  /** no client will come back: the tool server's requests are answered with an error */
  orphaned = false;
  /** progress sent so far, in order (forward.ts) */
  progressSent: Promise<void> = Promise.resolve();
  relayed = 0;

  constructor(
    readonly tool: string,
    readonly digest: string,
    /** the check that allowed it (its step is the one reported) */
    readonly check: CheckResult,
    ctx: ServerContext,
    token: string | number | undefined,
  ) {
    this.ctx = ctx;
    this.token = token;
  }

  /**
   * The tool server's call, started by the caller. `ended` runs once as it ends (the report); the
   * end is kept until a request reads it.
   */
  run(call: Promise<Record<string, unknown>>, ended: (end: Next) => void): void {
    const end = (next: Next) => {
      this.ended = next;
      ended(next);
      this.wake?.();
    };
    call.then(
      (result) => end({ kind: "done", result }),
      (error: unknown) => end({ kind: "error", error: error instanceof Error ? error : new Error(String(error)) }),
    );
  }

  /**
   * The tool server's request, answered when the client's retry brings the answer (relay.ts). One
   * the tool server cancels before the client saw it is withdrawn.
   */
  ask(method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
    if (this.orphaned) return Promise.reject(new Error("the client did not come back with an answer"));
    return new Promise((answer, fail) => {
      const ask: Ask = { method, params, answer, fail };
      this.asks.push(ask);
      signal?.addEventListener("abort", () => {
        const i = this.asks.indexOf(ask);
        if (i >= 0) this.asks.splice(i, 1);
        fail(signal.reason instanceof Error ? signal.reason : new Error("the tool server cancelled its request"));
      }, { once: true });
      this.wake?.();
    });
  }

  /** The tool server's next request, or the call's end, whichever comes first. */
  async next(): Promise<Next> {
    for (;;) {
      const ask = this.asks.shift();
      if (ask) return { kind: "ask", ask };
      if (this.ended) return this.ended;
      await new Promise<void>((r) => (this.wake = r));
      this.wake = undefined;
    }
  }

  /** Nobody will come back for it: every request of the tool server, now and later, fails. */
  orphan(why: Error): void {
    this.orphaned = true;
    for (const ask of this.asks.splice(0)) ask.fail(why);
  }
}

/** The held calls of one gateway session, by id. */
export class HeldCalls {
  private readonly held = new Map<string, { call: HeldCall; ask: Ask; timer: ReturnType<typeof setTimeout> }>();
  private readonly key = randomBytes(32);

  constructor(private readonly o: HeldCallsOptions) {}

  /** Whether `state` is one of ours (a stalwart confirmation token never starts so). */
  static owns(state: string): boolean {
    return state.startsWith(PREFIX);
  }

  /** Hold `call` on `ask` and answer the client with it. */
  hold(call: HeldCall, ask: Ask): ReturnType<typeof inputRequired> {
    const id = randomBytes(16).toString("base64url");
    const timer = setTimeout(() => {
      if (!this.held.delete(id)) return;
      this.o.log(`relay ${ask.method}: the client did not come back within the ask timeout; the tool server is told`);
      const gone = new Error("the client did not come back with an answer");
      ask.fail(gone);
      call.orphan(gone);
    }, this.o.waitMs);
    timer.unref?.();
    this.held.set(id, { call, ask, timer });
    return inputRequired({ inputRequests: { [RELAY_KEY]: { method: ask.method, params: ask.params } as never }, requestState: `${PREFIX}${id}.${this.mac(id)}` });
  }

  /**
   * The held call a retry names, with the tool server's request answered by the retry's answer;
   * a string says why there is none (nothing is sent to the tool server then).
   */
  resume(state: string, tool: string, digest: string, ctx: ServerContext, token: string | number | undefined): HeldCall | string {
    const [id, mac] = state.slice(PREFIX.length).split(".");
    const want = id ? Buffer.from(this.mac(id), "base64url") : undefined;
    const got = Buffer.from(mac ?? "", "base64url");
    const entry = id && want && got.length === want.length && timingSafeEqual(got, want) ? this.held.get(id) : undefined;
    if (!entry) return "no call of this gateway is held for this answer (it was answered already, its wait ended, the gateway restarted, or another gateway process holds it)";
    if (entry.call.tool !== tool || entry.call.digest !== digest) return `this answer belongs to another call (of ${entry.call.tool}, with its own arguments)`;
    this.held.delete(id!);
    clearTimeout(entry.timer);
    const response = ctx.mcpReq.inputResponses?.[RELAY_KEY] as Record<string, unknown> | undefined;
    const view = inputResponse(ctx.mcpReq.inputResponses, RELAY_KEY);
    const kind = { "elicitation/create": "elicit", "sampling/createMessage": "sampling", "roots/list": "roots" }[entry.ask.method];
    if (response && view.kind === kind) entry.ask.answer(response);
    else if (entry.ask.method === "elicitation/create") entry.ask.answer({ action: "cancel" });
    else entry.ask.fail(new Error(`the client did not answer ${entry.ask.method}`));
    entry.call.ctx = ctx;
    entry.call.token = token;
    return entry.call;
  }

  /** Every held call's client is gone (the gateway closes): the tool server's requests fail. */
  close(): void {
    for (const [id, { call, ask, timer }] of this.held) {
      clearTimeout(timer);
      this.held.delete(id);
      const closing = new Error("the gateway is closing");
      ask.fail(closing);
      call.orphan(closing);
      call.abort.abort(closing);
    }
  }

  private mac(id: string): string {
    return createHmac("sha256", this.key).update(`stalwart-gateway-relay-v1.${id}`).digest("base64url");
  }
}
