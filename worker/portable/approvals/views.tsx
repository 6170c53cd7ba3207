/** @jsxImportSource hono/jsx */
/**
 * The approvals page's views (Hono JSX, server-rendered; no client framework). One small inline
 * script does what HTML cannot: POSTs with the `Stalwart-Apply: yes` header (a form on another
 * site cannot send it) and refreshing the list when the server says it changed (server-sent events).
 */
import type { Child } from "hono/jsx";
import { raw } from "hono/html";
import { approvalStatus, type Approval, type UnreadableRecord } from "../engine/index.js";
import { counterWords, originWords, statusWords, when } from "./words.js";
import { fixedInForm, formText } from "./edit-form.js";
import { nameVisible, visible } from "./visible.js";

const STYLE = `
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--mut:#59636e;--line:#d0d7de;--warn:#9a6700;--warnbg:#fff8c5;--ok:#1a7f37;--no:#cf222e}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--mut:#9198a1;--line:#3d444d;--warn:#d29922;--warnbg:#2e2a1b;--ok:#3fb950;--no:#f85149}}
*{box-sizing:border-box}body{margin:0;font:16px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:46rem;margin:0 auto;padding:1rem}h1{font-size:1.3rem;margin:.2rem 0 1rem}h2{font-size:1.1rem;margin:1.2rem 0 .4rem}
a{color:inherit}ul.list{list-style:none;padding:0;margin:0}ul.list li{border:1px solid var(--line);border-radius:8px;margin:.5rem 0}
ul.list a{display:block;padding:.7rem .9rem;text-decoration:none}ul.list a:focus,ul.list a:hover{outline:2px solid var(--fg)}
.tool{font-weight:600;font-family:ui-monospace,monospace}.mut{color:var(--mut);font-size:.9rem}
.status{float:right;font-size:.85rem;border:1px solid var(--line);border-radius:99px;padding:0 .5rem}
.status.pending{border-color:var(--warn);color:var(--warn)}.status.unreadable{border-color:var(--no);color:var(--no)}ul.list li.bad{padding:.7rem .9rem}
table{border-collapse:collapse;width:100%}th,td{text-align:left;vertical-align:top;padding:.45rem .4rem;border-bottom:1px solid var(--line)}
td.v{font-family:ui-monospace,monospace;word-break:break-all;white-space:pre-wrap}.flag{background:var(--warnbg);color:var(--warn);font-weight:600}
.question{border-left:4px solid var(--warn);padding:.4rem .8rem;background:var(--warnbg)}
.buttons{display:flex;flex-wrap:wrap;gap:.6rem;margin:1rem 0}
button,input[type=submit]{font:inherit;padding:.55rem 1rem;border-radius:6px;border:1px solid var(--line);background:var(--bg);color:var(--fg);cursor:pointer;min-height:44px}
button.approve{background:var(--ok);color:#fff;border-color:var(--ok)}button.deny{background:var(--no);color:#fff;border-color:var(--no)}
button:focus-visible,input:focus-visible{outline:3px solid #0969da;outline-offset:2px}
label{display:block;font-weight:600;margin:.6rem 0 .2rem}input[type=text],input[type=password],textarea{font:inherit;width:100%;padding:.45rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
#msg{min-height:1.5rem;font-weight:600}
@media (max-width:32rem){th,td{display:block;border:0;padding:.15rem 0}tr{display:block;border-bottom:1px solid var(--line);padding:.4rem 0}}
`;

/** POST with the header, reload the page's data on server events. */
const SCRIPT = `
const base = document.body.dataset.base;
async function apply(path, body) {
  const msg = document.getElementById("msg");
  const r = await fetch(base + path, { method: "POST", headers: { "Stalwart-Apply": "yes", "Content-Type": "application/json" }, body: JSON.stringify(body || {}), credentials: "same-origin" });
  const t = await r.json().catch(() => ({}));
  if (msg) msg.textContent = r.ok ? (t.done || "done") : (t.error && t.error.message) || ("refused: " + r.status);
  if (r.ok && t.go) location.href = base + t.go; else if (r.ok) setTimeout(() => location.reload(), 300);
}
document.addEventListener("submit", (e) => {
  const f = e.target; if (!f.dataset.apply) return; e.preventDefault();
  const body = {}; for (const [k, v] of new FormData(f)) body[k] = v;
  // an argument goes back only when the person changed it: the browser may have rewritten one
  // they never touched, and the server keeps a field left out exactly as the call has it
  for (const el of f.querySelectorAll("input[name^='arg:']")) if (el.value === el.defaultValue) delete body[el.name];
  if (e.submitter && e.submitter.name) body[e.submitter.name] = e.submitter.value;
  apply(f.dataset.apply, body);
});
if (document.body.dataset.live !== undefined && window.EventSource) {
  let shown = document.body.dataset.live;
  const es = new EventSource(base + "/events");
  es.addEventListener("changed", async (e) => {
    if (e.data === shown) return;
    shown = e.data;
    const r = await fetch(location.href, { headers: { "Stalwart-Fragment": "live" } });
    const live = document.getElementById("live"); if (r.ok && live) live.innerHTML = await r.text();
  });
}
`;

export function Page(props: { title: string; base: string; live?: string; children: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title}</title>
        <style>{raw(STYLE)}</style>
      </head>
      <body data-base={props.base} {...(props.live !== undefined ? { "data-live": props.live } : {})}>
        <main>{props.children}</main>
        <script>{raw(SCRIPT)}</script>
      </body>
    </html>
  );
}

export function ListBody(props: { all: readonly Approval[]; unreadable?: readonly UnreadableRecord[]; now: number; base: string }) {
  const unreadable = props.unreadable ?? [];
  const waiting = props.all.filter((a) => approvalStatus(a, props.now) === "pending");
  const rest = props.all.filter((a) => approvalStatus(a, props.now) !== "pending").slice(0, 20);
  const item = (a: Approval) => {
    const s = approvalStatus(a, props.now);
    return (
      <li>
        <a href={`${props.base}/p/${a.record.id}`}>
          <span class={`status ${s}`}>{s}</span>
          <span class="tool">{a.record.tool}</span> <span class="mut">{when(a.record.created)}</span>
          <br />
          <span>{visible(a.record.wording) || a.record.reasons.join(", ")}</span>
        </a>
      </li>
    );
  };
  return (
    <>
      <h2 id="waiting">Waiting for you ({waiting.length})</h2>
      {waiting.length === 0 ? <p class="mut">{unreadable.length === 0 ? "Nothing waits for a person." : "Nothing that can be read waits for a person."}</p> : <ul class="list" aria-labelledby="waiting">{waiting.map(item)}</ul>}
      {unreadable.length > 0 && (
        <>
          {/* each may be a call that waits for someone: named, never left out */}
          <h2 id="unreadable">Cannot be read ({unreadable.length})</h2>
          <ul class="list" aria-labelledby="unreadable">
            {unreadable.map((u) => (
              <li class="bad">
                <span class="status unreadable">unreadable</span> <span class="tool">{u.id}</span>
                <br />
                <span>{visible(u.why)}</span>
                {u.hint && <><br /><span class="mut">{visible(u.hint)}</span></>}
              </li>
            ))}
          </ul>
        </>
      )}
      {rest.length > 0 && (
        <>
          <h2 id="decided">Decided</h2>
          <ul class="list" aria-labelledby="decided">{rest.map(item)}</ul>
        </>
      )}
    </>
  );
}

export function OneBody(props: { a: Approval; now: number; base: string; by: string | undefined }) {
  const { a, now } = props;
  const r = a.record;
  const s = approvalStatus(a, now);
  const keys = Object.keys(r.args);
  return (
    <>
      <p>
        <a href={`${props.base}/`}>← all confirmations</a>
      </p>
      <h1>
        <span class="tool">{r.tool}</span> <span class={`status ${s}`}>{statusWords(s, a)}</span>
      </h1>
      <p class="question">{visible(r.wording)}</p>
      <p class="mut">
        session {r.session.slice(0, 12)}…, step {r.step}{r.agent ? `, agent ${visible(r.agent)}` : ""}; asked {when(r.created)}; expires {when(r.expires)}
      </p>
      <h2 id="args">Arguments</h2>
      <table aria-labelledby="args">
        <thead>
          <tr><th scope="col">name</th><th scope="col">value</th><th scope="col">where it came from</th></tr>
        </thead>
        <tbody>
          {keys.map((k) => {
            const w = originWords(Object.hasOwn(r.origins, k) ? r.origins[k]! : { origin: "missing", labels: [] });
            return (
              <tr>
                <th scope="row">{nameVisible(k)}</th>
                <td class="v">{visible(formText(r.args[k]))}</td>
                <td class={w.flagged ? "flag" : ""}>{w.flagged ? "⚠ " : ""}{w.text}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <h2>Why it asks</h2>
      <ul>{r.reasons.map((x) => <li><code>{x}</code></li>)}</ul>
      {r.counters.length > 0 && (
        <>
          <h2>Counters</h2>
          <ul>{r.counters.map((c) => <li>{counterWords(c)}</li>)}</ul>
        </>
      )}
      {a.receipt && (
        <p>
          Receipt: <strong>{a.receipt.decision}</strong> by {visible(a.receipt.by)} at {when(a.receipt.at)}{a.receipt.message ? ` — ${visible(a.receipt.message)}` : ""} <span class="mut">(call {a.receipt.call.slice(0, 12)}…)</span>
        </p>
      )}
      <p id="msg" role="status" aria-live="polite"></p>
      {s === "pending" && (
        <>
          <form data-apply={`/p/${r.id}/decide`} aria-label="decide">
            {props.by === undefined && (
              <>
                <label for="by">Your name (recorded in the receipt)</label>
                <input type="text" id="by" name="by" required autocomplete="name" />
              </>
            )}
            <label for="message">Message (optional)</label>
            <input type="text" id="message" name="message" />
            <label><input type="checkbox" name="always" value="yes" /> Always for this session (this exact call only)</label>
            <div class="buttons">
              <button type="submit" class="approve" name="decision" value="approve">Approve</button>
              <button type="submit" class="deny" name="decision" value="deny">Deny</button>
            </div>
          </form>
          <details>
            <summary>Edit the arguments, then check again</summary>
            <form data-apply={`/p/${r.id}/edit`} aria-label="edit">
              {props.by === undefined && (
                <>
                  <label for="eby">Your name</label>
                  <input type="text" id="eby" name="by" required />
                </>
              )}
              {keys.map((k, i) => {
                const fixed = fixedInForm(r.args[k]);
                return fixed !== undefined ? (
                  <p class="mut">{nameVisible(k)}: {fixed}; it is kept as it is</p>
                ) : (
                  <>
                    <label for={`arg-${i}`}>{nameVisible(k)}{typeof r.args[k] === "string" ? "" : " (JSON)"}</label>
                    <input type="text" id={`arg-${i}`} name={`arg:${k}`} value={formText(r.args[k])} />
                  </>
                );
              })}
              <div class="buttons">
                <button type="submit">Check the edited call again</button>
              </div>
            </form>
          </details>
        </>
      )}
    </>
  );
}

export function LoginBody(props: { local: boolean }) {
  return (
    <>
      <h1>Approvals</h1>
      <p id="msg" role="status" aria-live="polite"></p>
      <form data-apply="/login" aria-label="sign in">
        <label for="code">{props.local ? "The one-time code `stalwart approvals serve` printed" : "This tenant's API key"}</label>
        <input type={props.local ? "text" : "password"} id="code" name="code" required autocomplete="off" inputmode={props.local ? "numeric" : undefined} />
        <label for="by">{props.local ? "Your name (recorded in each receipt)" : "Your name (recorded in each receipt; the tenant's name if left empty)"}</label>
        <input type="text" id="by" name="by" required={props.local} autocomplete="name" />
        <div class="buttons">
          <button type="submit">Open</button>
        </div>
      </form>
    </>
  );
}
