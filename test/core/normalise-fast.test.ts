/**
 * normaliseCall's fast paths answer what the general ones do: the argument names it keeps are
 * `Object.keys` of the checked arguments (integer-like names first, as the engine always read
 * them), and plain origin words skip the word check only when there is nothing it would say.
 */
import { describe, expect, it } from "vitest";
import { normaliseCall } from "../../worker/portable/engine/check/normalise.js";
import { argNamesOf } from "../../worker/portable/engine/check/types.js";
import { InputError } from "../../worker/portable/engine/errors.js";

const sha = (s: string) => String(s.length).padStart(64, "0");

describe("normaliseCall fast paths", () => {
  it("keeps the argument names in Object.keys order of the checked arguments", () => {
    const args = { b: 1, "10": 2, a: { x: 1 }, "9": null, __proto__x: "p" };
    const call = normaliseCall("t", args, {}, null, sha);
    expect(call.argNames).toEqual(Object.keys(call.args));
    expect(argNamesOf(call)).toEqual(Object.keys(args));
    // a Call built without the list (a test, an adapter) reads it afresh
    const { argNames: _kept, ...bare } = call;
    expect(argNamesOf(bare)).toEqual(Object.keys(call.args));
  });

  it("names no arguments when the arguments are not an object", () => {
    const call = normaliseCall("t", [1, 2], {}, null, sha);
    expect(call.argsError?.rule).toBe("type");
    expect(argNamesOf(call)).toEqual([]);
  });

  it("accepts plain origin words without the second pass, and still refuses a misspelt one", () => {
    const ok = normaliseCall("t", { a: 1, b: 2 }, { origins: { b: "model", a: "typed" } }, null, sha);
    expect({ ...ok.origins }).toEqual({ a: "typed", b: "model" });
    const err = (() => {
      try {
        normaliseCall("t", { a: 1 }, { origins: { "9": "typd", "10": "modle", a: "typed" } }, null, sha);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(InputError);
    // the first bad name in Object.keys order of the record, as before this path existed
    expect((err as InputError).pointer).toBe("/options/origins/9");
    expect((err as InputError).message).toContain("unknown origin `typd`");
  });

  it("still reads result references on the plain path", () => {
    const call = normaliseCall("t", { a: 1 }, { origins: { a: "result:4.order_id" } }, null, sha);
    expect(call.origins.a).toBe("result:4.order_id");
    expect(() => normaliseCall("t", { a: 1 }, { origins: { a: "result:x" } }, null, sha)).toThrow(InputError);
  });

  it("writes the origins' text whole when a getter checks another call meanwhile", () => {
    const texts: string[] = [];
    const shaSeen = (t: string) => (texts.push(t), sha(t));
    const origins = {
      a: "typed",
      get b() {
        normaliseCall("u", { x: 1 }, { origins: { y: "model", x: "typed" } }, null, shaSeen);
        return "model";
      },
      c: "model",
    };
    normaliseCall("t", { a: 1, b: 2, c: 3 }, { origins }, null, shaSeen);
    expect(texts).toContain('{"x":"typed","y":"model"}');
    expect(texts).toContain('{"a":"typed","b":"model","c":"model"}');
    const plain = normaliseCall("t", { a: 1 }, { origins: { b: "model", a: "typed" } }, null, shaSeen);
    expect(texts.at(-2)).toBe('{"a":"typed","b":"model"}');
    expect(plain.originsDigest).toBe(sha('{"a":"typed","b":"model"}'));
  });
});
