/**
 * The floor issue 14 measured once by hand, as a bench row of the same run: one check's bare work
 * with nothing around it — canonical JSON (RFC 8785) of a check entry (431 bytes, the size of the
 * bench's own; the issue's was ~340), two SHA-256 (the
 * arguments' canonical text, the entry's), one HMAC (the entry's link) in the same WASM core, and
 * one compiled ajv validation of the arguments. No history, no steps, no token, no answer.
 *
 * `more`, when given, runs after that work on every op: run.ts passes the rest of the cryptography
 * a confirm of this very call cannot do without (the second floor row of the bench).
 */
import { Ajv } from "ajv";
import type { Core } from "../worker/portable/engine/wasm/core.js";

type Canonicalize = (v: unknown) => string;

export function prototypeCheck(core: Core, canonicalize: Canonicalize, key: Uint8Array, more?: (args: { order_id: string; amount: number }) => void): { op: () => void; entryBytes: number } {
  const slot = core.loadKey(key);
  const validate = new Ajv({ strict: false }).compile({
    type: "object",
    properties: { order_id: { type: "string" }, amount: { type: "number", exclusiveMinimum: 0 } },
    required: ["order_id", "amount"],
    additionalProperties: false,
  });
  const args = { order_id: "4411", amount: 40.0 };
  // the shape and size of the bench's own write entries (refund_card, confirmed; 431 bytes)
  const entry = {
    v: 1, step: 20, at: 1_796_188_757_336, kind: "check", tool: "refund_card", agent: null,
    args: "0615b0213e7257c0e273f2782cf230926c248d4a5b7e45873a3e444936bd4da5",
    origins: "d67a428d3089ac36a1fec82342fdd17fefaba0e1393fd327a045ab312ab49d39",
    labels: [], decision: "confirm", reasons: ["argument_origin"], confirmed: null, undo_of: null,
    values: { amount: "d59eced1ded07f84c145592f65bdf854", order_id: "e774cc34146d76624522c34e2b494831" },
  };
  let sink = 0;
  const op = () => {
    if (!validate(args)) throw new Error("prototype: arguments do not validate");
    const a = core.sha256Text(canonicalize(args));
    const text = canonicalize(entry);
    const d = core.sha256Text(text);
    const m = core.hmacText(slot, text);
    sink ^= a[0]! ^ d[0]! ^ m[0]!;
    more?.(args);
  };
  op();
  return { op: () => { op(); if (sink === 256) console.log(sink); }, entryBytes: canonicalize(entry).length };
}
