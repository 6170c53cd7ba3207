/**
 * The approval form a person answers through elicitation, and what their answer means.
 *
 * One checkbox (`approve`), and one field per argument the form can hold (a string of up to
 * 1000 characters, a number, a boolean: elicitation forms are flat), prefilled with the value
 * the call would send. A person who changes a field changes the call: the edited value is origin
 * `reply` (issue 11, item 4), and the edited call is checked again from step 1 — never run on the
 * approval of the old one. When that check asks again, the edited arguments travel in
 * `requestState` beside the new token; the token is bound to their digest, so a client that
 * alters them gets a token that covers nothing.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { nameText } from "./words.js";

/** The checkbox's key in the form (and `inputRequests`). */
export const FORM_KEY = "approve";
/** An argument's field: `arg:<name>`, so no argument name can collide with the checkbox. */
const FIELD = "arg:";
const LONGEST = 1000;

/** The three primitive field shapes of an elicitation form, as the SDK types them. */
type Field =
  | { type: "boolean"; title: string; description: string; default: boolean }
  | { type: "string"; title: string; description: string; default: string }
  | { type: "number"; title: string; description: string; default: number };

export function approvalForm(tool: string, args: Record<string, unknown>): { type: "object"; properties: Record<string, Field>; required: string[] } {
  const properties: Record<string, Field> = {
    [FORM_KEY]: { type: "boolean", title: `Allow ${tool}?`, description: "Approve this exact call once (with any value you change below: a changed call is checked again).", default: false },
  };
  for (const k of Object.keys(args)) {
    const v = args[k];
    const title = nameText(k);
    const description = `the value ${tool} gets for \`${title}\`; change it to send yours instead`;
    if (typeof v === "boolean") properties[FIELD + k] = { type: "boolean", title, description, default: v };
    else if (typeof v === "number" && Number.isFinite(v)) properties[FIELD + k] = { type: "number", title, description, default: v };
    else if (typeof v === "string" && v.length <= LONGEST) properties[FIELD + k] = { type: "string", title, description, default: v };
  }
  return { type: "object", properties, required: [FORM_KEY] };
}

function editable(v: unknown): Field["type"] | undefined {
  if (typeof v === "boolean") return "boolean";
  if (typeof v === "number" && Number.isFinite(v)) return "number";
  if (typeof v === "string" && v.length <= LONGEST) return "string";
  return undefined;
}

/**
 * The first field the form offered whose answer is not of the field's type (a number sent for a
 * string, `"7"` for a number), as `arg:<name>` with the type it should have; undefined when none.
 * Such an answer says neither "this call" nor "this changed call": it approves nothing.
 */
export function misfit(args: Record<string, unknown>, content: Record<string, unknown> | undefined): { field: string; type: Field["type"] } | undefined {
  if (!content) return undefined;
  for (const k of Object.keys(args)) {
    const key = FIELD + k;
    const type = editable(args[k]);
    if (!type || !Object.hasOwn(content, key)) continue;
    const after = content[key];
    if (type === "number" ? !(typeof after === "number" && Number.isFinite(after)) : type === "string" ? !(typeof after === "string" && after.length <= LONGEST) : typeof after !== "boolean") return { field: key, type };
  }
  return undefined;
}

/**
 * The arguments the person changed, or undefined when they changed none. Only fields the form
 * offered count (a client's extra keys are ignored), each of its own type (`misfit` first).
 */
export function editsOf(args: Record<string, unknown>, content: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!content) return undefined;
  let out: Record<string, unknown> | undefined;
  for (const k of Object.keys(args)) {
    const key = FIELD + k;
    if (!Object.hasOwn(content, key)) continue;
    const before = args[k];
    const type = editable(before);
    const after = content[key];
    if (!type || typeof after !== (type === "number" ? "number" : type) || after === before) continue;
    // defined, not assigned: an argument named `__proto__` stays an argument, not the object's prototype
    Object.defineProperty((out ??= {}), k, { value: after, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * `requestState`: the token, and the edited arguments when the person changed the call
 * (`token~base64url JSON~MAC`). The MAC (HMAC-SHA256 under `key`, the gateway's own for its life)
 * is what lets the gateway take the carried arguments as the person's: without it a client could
 * carry any value it likes, and every one that differs from what it sends would be `reply`.
 */
export function packState(key: Uint8Array, token: string, edited?: Record<string, unknown>): string {
  if (!edited) return token;
  const body = `${token}~${Buffer.from(JSON.stringify(edited), "utf8").toString("base64url")}`;
  return `${body}~${stateMac(key, body)}`;
}

/**
 * The token, and the carried arguments when the state has them; undefined when the state has a
 * tail that is not ours (its MAC does not verify, or what it carries is not an object). Taking
 * the token alone from such a state made `TOKEN~anything` a new answer for an asked call the
 * person had already declined (outside audit 9, F1): a state is used whole or not at all. A
 * state cut back to its token reads as the bare token here; request-states.ts tells it apart.
 */
export function unpackState(key: Uint8Array, state: string): { token: string; args?: Record<string, unknown> } | undefined {
  const i = state.indexOf("~");
  if (i < 0) return { token: state };
  const token = state.slice(0, i);
  const j = state.lastIndexOf("~");
  const mac = Buffer.from(state.slice(j + 1), "base64url");
  const want = Buffer.from(stateMac(key, state.slice(0, j)), "base64url");
  if (j === i || mac.length !== want.length || !timingSafeEqual(mac, want)) return undefined;
  try {
    const args: unknown = JSON.parse(Buffer.from(state.slice(i + 1, j), "base64url").toString("utf8"));
    if (typeof args === "object" && args !== null && !Array.isArray(args)) return { token, args: args as Record<string, unknown> };
  } catch {
    /* unreadable: not ours */
  }
  return undefined;
}

function stateMac(key: Uint8Array, body: string): string {
  return createHmac("sha256", key).update(`stalwart-gateway-state-v1.${body}`).digest("base64url");
}
