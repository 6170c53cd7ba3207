/** @jsxImportSource hono/jsx */
/**
 * The approvals page (issue 12) as a Hono app, the same in both runtimes: `stalwart approvals
 * serve` runs it on 127.0.0.1 behind a one-time code, the check worker mounts it at `/approvals`
 * behind the tenant's key. It lists what waits (newest first), shows one confirmation as a person
 * needs it, and decides it: approve, deny, or edit (the edited call is checked again as a new one).
 *
 * State changes only by POST, each with the `Stalwart-Apply: yes` header (another site's form
 * cannot send a custom header, and its script cannot without a CORS preflight this app never
 * answers) and from this origin (`Origin`, else `Sec-Fetch-Site: same-origin`; one of them is
 * required). Sign-in gives a cookie —
 * HttpOnly, SameSite=Strict, its value MAC'd — naming who decides; receipts carry that name.
 */
import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { getCookie, setCookie } from "hono/cookie";
import { streamSSE } from "hono/streaming";
import { approvalStatus, decide, fromBase64Url, fromUtf8, StalwartError, toBase64Url, toHex, toWire, utf8, surveyOf, type ApprovalStore, type ApprovalSurvey, type ErrorCode, type Mac } from "../engine/index.js";
import { equalBytes, fromHex } from "../engine/index.js";
import { ListBody, LoginBody, OneBody, Page } from "./views.js";
import { clip } from "./words.js";
import { editedArgs } from "./edit-form.js";

export interface Identity {
  /** who decides, as receipts record it */
  by: string;
  /** the worker's tenant */
  tenant?: string;
  /** the worker's: a MAC of the key signed in with (never the key), so the sign-in ends with that key */
  key?: string;
}

export interface PageOptions {
  /** where the app is mounted ("" locally, "/approvals" in the worker) */
  base: string;
  /** the local page asks a one-time code and a name; the worker's asks the tenant key */
  local: boolean;
  now(): number;
  /** the sign-in form's code (or key) and name → who this is, or undefined */
  login(code: string, by: string | undefined, env: unknown): Promise<Identity | undefined> | Identity | undefined;
  /** `env`: the request's bindings (the worker's tenants, secrets and Durable Objects; nothing locally) */
  storeFor(id: Identity, env: unknown): ApprovalStore;
  /** the key receipts are signed under (the installation's, or the tenant's) */
  macFor(id: Identity, env: unknown): Mac;
  /** the key sign-in cookies are MAC'd under */
  cookieMac(env: unknown): Mac;
  /** the sign-in cookie's name (default `stalwart_approvals`): the local page names its port, as a browser keeps 127.0.0.1's cookies for every port */
  cookieName?: string;
  /** how often the event stream reads the store (default 500 ms) */
  pollMs?: number;
}

const COOKIE = "stalwart_approvals";
/** bytes of a request body the page reads at most */
export const PAGE_BODY_LIMIT = 256 * 1024;
const COOKIE_DOMAIN = "stalwart-page-v1.";
const SIGNED_IN_MS = 12 * 60 * 60 * 1000;

type Env = { Variables: { who: Identity } };

export function approvalsApp(o: PageOptions): Hono<Env> {
  const app = new Hono<Env>();
  const cookie = o.cookieName ?? COOKIE;

  app.onError((err, c) => answer(c, err instanceof StalwartError ? err : new StalwartError("internal_error", "the page could not answer")));

  // No page of it inside another's frame: a page on another port of 127.0.0.1 is the same site, so
  // the sign-in cookie goes with its frame, and the person could be led to click Approve unseen.
  app.use("*", async (c, next) => {
    await next();
    c.header("X-Frame-Options", "DENY");
    c.header("Content-Security-Policy", "frame-ancestors 'none'");
  });

  // A page's POSTs are a sign-in or a decision (an edit carries the call's arguments): far below
  // this; anything larger is refused before it is read, so no one can make the page hold it.
  app.use("*", bodyLimit({ maxSize: PAGE_BODY_LIMIT, onError: (c) => refuse(c, "body_too_large", `a request to this page is at most ${PAGE_BODY_LIMIT / 1024} KiB`) }));

  // Every POST: the header and this origin, before anything else is read.
  app.use("*", async (c, next) => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      if (c.req.header("stalwart-apply") !== "yes") return refuse(c, "forbidden", "a change needs the `Stalwart-Apply: yes` header (this page sends it; another site's cannot)");
      const origin = c.req.header("origin");
      const own = new URL(c.req.url).origin;
      const site = c.req.header("sec-fetch-site");
      // A request that says neither where it comes from is refused too: a browser says it on every
      // POST, and one that says nothing is no evidence of this page (outside audit 23, F2).
      if (origin !== undefined ? origin !== own : site !== "same-origin") {
        return refuse(c, "forbidden", "a change must come from this page's own origin (its `Origin` header, else `Sec-Fetch-Site: same-origin`)");
      }
    }
    await next();
  });

  app.post("/login", async (c) => {
    const body = await jsonBody(c);
    const code = typeof body.code === "string" ? body.code.trim() : "";
    const by = clip(body.by, 100);
    const who = await o.login(code, by, c.env);
    if (!who) return refuse(c, "unauthorized", o.local ? "that is not the code `stalwart approvals serve` printed (or it was used already)" : "that key is not valid here");
    setCookie(c, cookie, sealCookie(o.cookieMac(c.env), who, o.now() + SIGNED_IN_MS), { httpOnly: true, sameSite: "Strict", path: o.base || "/", secure: new URL(c.req.url).protocol === "https:" });
    return c.json({ done: `signed in as ${who.by}`, go: "/" });
  });

  // Everything else needs a signed-in person.
  app.use("*", async (c, next) => {
    const who = openCookie(o.cookieMac(c.env), getCookie(c, cookie), o.now());
    if (!who) {
      if (c.req.method === "GET" && c.req.path.endsWith("/events")) return c.body(null, 401);
      if (c.req.method === "GET") return c.html(<Page title="Approvals — sign in" base={o.base}><LoginBody local={o.local} /></Page>, 401);
      return refuse(c, "unauthorized", "sign in first");
    }
    c.set("who", who);
    await next();
  });

  app.get("/", async (c) => {
    const all = await surveyOf(o.storeFor(c.get("who"), c.env));
    const body = <ListBody all={all.approvals} unreadable={all.unreadable} now={o.now()} base={o.base} />;
    if (c.req.header("stalwart-fragment") === "live") return c.html(body);
    return c.html(
      <Page title="Approvals" base={o.base} live={fingerprint(all, o.now())}>
        <h1>Approvals <span class="mut">— signed in as {c.get("who").by}</span></h1>
        <div id="live" aria-live="polite">{body}</div>
      </Page>,
    );
  });

  app.get("/p/:id", async (c) => {
    const store = o.storeFor(c.get("who"), c.env);
    const a = store.shown ? await store.shown(c.req.param("id")) : await store.get(c.req.param("id"));
    if (!a) return c.html(<Page title="Approvals" base={o.base}><p>No confirmation {c.req.param("id")} here. <a href={`${o.base}/`}>All confirmations</a></p></Page>, 404);
    const body = <OneBody a={a} now={o.now()} base={o.base} by={c.get("who").by} />;
    if (c.req.header("stalwart-fragment") === "live") return c.html(body);
    return c.html(<Page title={`Approve ${a.record.tool}?`} base={o.base} live={fingerprint(await surveyOf(store), o.now())}><div id="live">{body}</div></Page>);
  });

  app.get("/events", (c) => {
    const store = o.storeFor(c.get("who"), c.env);
    return streamSSE(c, async (s) => {
      let last = "";
      // the list as of a version of the store, read again only when that moves (or after a minute:
      // a record damaged in place moves nothing), while what time changes (expiry) is worked out anew
      let known: { version: string; all: ApprovalSurvey; at: number } | undefined;
      const current = async (now: number): Promise<ApprovalSurvey> => {
        const version = store.version?.();
        if (version !== undefined && known?.version === version && now >= known.at && now - known.at < RELIST_MS) return known.all;
        const all = await surveyOf(store);
        known = version === undefined ? undefined : { version, all, at: now };
        return all;
      };
      // Once on connect (something may have changed between the page and its stream), then on
      // every change; a few minutes per stream, and EventSource reconnects by itself.
      for (let i = 0; i < 600 && !s.aborted; i++) {
        const now = o.now();
        const print = fingerprint(await current(now), now);
        if (i === 0 || print !== last) await s.writeSSE({ event: "changed", data: print });
        last = print;
        await s.sleep(o.pollMs ?? 500);
      }
    });
  });

  app.post("/p/:id/decide", async (c) => {
    const who = c.get("who");
    const body = await jsonBody(c);
    const decision = body.decision === "approve" ? "approve" : body.decision === "deny" ? "deny" : undefined;
    if (!decision) return refuse(c, "InputError", "`decision` must be approve or deny");
    const a = await decide(o.storeFor(who, c.env), o.macFor(who, c.env), c.req.param("id"), {
      decision, by: who.by, at: o.now(),
      message: clip(body.message, 500),
      always: decision === "approve" && (body.always === "yes" || body.always === true),
    });
    return c.json({ done: `${decision === "approve" ? "approved" : "denied"} by ${who.by}`, receipt: a.receipt });
  });

  app.post("/p/:id/edit", async (c) => {
    const who = c.get("who");
    const store = o.storeFor(who, c.env);
    const before = await store.get(c.req.param("id"));
    if (!before) return refuse(c, "ApprovalNotFound", `no confirmation \`${c.req.param("id")}\``);
    const answer = editedArgs(before.record.args, await jsonBody(c));
    if ("problem" in answer) return refuse(c, "InputError", answer.problem);
    const a = await decide(store, o.macFor(who, c.env), before.record.id, { decision: "edit", by: who.by, at: o.now(), edited: answer.edited });
    return c.json({ done: "edited: the call is checked again, and shows here if it needs you", receipt: a.receipt, go: "/" });
  });

  return app;
}

/** Every JSON error of the page as the workers answer errors: the engine's status and wire spelling (`approval_decided`). */
function answer(c: Context, err: StalwartError): Response {
  const wire = toWire(err);
  return c.json(wire.body, wire.status as 400);
}

function refuse(c: Context, code: ErrorCode, message: string): Response {
  return answer(c, new StalwartError(code, message));
}

/** What the page shows, in one string: the stream says "changed" when it differs from the page's. */
/** how long a listing may stand for an unchanged store version (`current` in /events) */
const RELIST_MS = 60_000;

function fingerprint(all: ApprovalSurvey, now: number): string {
  return [...all.approvals.map((a) => `${a.record.id}:${approvalStatus(a, now)}`), ...all.unreadable.map((u) => `${u.id}:unreadable`)].join(",");
}

async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  try {
    const v = await c.req.json();
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function sealCookie(mac: Mac, who: Identity, exp: number): string {
  const body = toBase64Url(utf8(JSON.stringify({ by: who.by, ...(who.tenant !== undefined ? { tenant: who.tenant } : {}), ...(who.key !== undefined ? { key: who.key } : {}), exp })));
  return `${body}.${toHex(mac(COOKIE_DOMAIN + body))}`;
}

function openCookie(mac: Mac, value: string | undefined, now: number): Identity | undefined {
  if (!value) return undefined;
  const [body, sig] = value.split(".");
  const got = sig ? fromHex(sig) : null;
  if (!body || !got || !equalBytes(got, mac(COOKIE_DOMAIN + body))) return undefined;
  try {
    const raw = fromBase64Url(body);
    const c = raw ? (JSON.parse(fromUtf8(raw)) as { by?: unknown; tenant?: unknown; key?: unknown; exp?: unknown }) : {};
    if (typeof c.by !== "string" || typeof c.exp !== "number" || c.exp <= now) return undefined;
    return { by: c.by, ...(typeof c.tenant === "string" ? { tenant: c.tenant } : {}), ...(typeof c.key === "string" ? { key: c.key } : {}) };
  } catch {
    return undefined;
  }
}
