/**
 * Requests a careless or hostile caller sends the check worker, each answered with a coded 4xx
 * naming where it is wrong — never a 500, and never taken for something else (a changed header,
 * an unknown catalogue).
 */
import { describe, expect, it } from "vitest";
import { KEY_A, pendingApproval, storeYaml, testApp } from "./app-env.js";
import { Client, InputError } from "../../cli/sdk/index.js";
import { FIXTURE_NOW, licensedHome } from "../helpers/licensed-home.js";
import { REPO } from "../conformance/runner.js";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { MemoryApprovalStore, type PendingRecord } from "../../worker/portable/engine/index.js";
import { approvalsApp } from "../../worker/portable/approvals/app.js";
import { argsDigest } from "../helpers/pending-record.js";
import { compileRulebook, registryText } from "../../worker/portable/engine/rulebook/index.js";
import { clip } from "../../worker/portable/approvals/words.js";
import { duplicateKey, inexactInteger } from "../../worker/portable/engine/canonical/json-text.js";

async function json(r: Response) {
  return { status: r.status, body: (await r.json()) as any };
}

/** Each header field of a saved session, with values of a type no answer gives it. */
const WRONG: Record<string, unknown[]> = {
  v: [2, "1", null],
  id: [5, null, "", {}],
  name: [5, null, []],
  language: [5, null, "fr", {}],
  agent: [5, true, [], {}],
  context: [5, "x", [], true],
  taint_model_after_untrusted: [1, "false", null],
  seal: [null, 5, {}],
  head: [null, 5, []],
};

describe("a carried session with a field of the wrong type", () => {
  it("is 400 invalid_request naming /session/<field>, for every route that carries one", async () => {
    const { call } = testApp();
    await call("PUT", "/v1/catalogues/store", storeYaml, KEY_A, "application/yaml");
    const s = (await json(await call("POST", "/v1/sessions", { catalogue: "store", name: "billing" }, KEY_A))).body.session;
    const routes: [string, Record<string, unknown>][] = [
      ["/v1/check", { tool: "get_order", args: { order_id: "4411" } }],
      ["/v1/sessions/read", { text: "oi" }],
      ["/v1/report", { step: 0, outcome: "ran" }],
    ];
    for (const [route, rest] of routes) {
      for (const [field, values] of Object.entries(WRONG)) {
        for (const value of values) {
          const got = await json(await call("POST", route, { ...rest, session: { ...s, [field]: value } }, KEY_A));
          expect({ status: got.status, code: got.body.error?.code, pointer: got.body.error?.pointer }, `${route} ${field}=${JSON.stringify(value)}`).toEqual({ status: 400, code: "invalid_request", pointer: `/session/${field}` });
          expect(got.body.error.message).toContain(`session.${field}`);
        }
      }
    }
  });

  it("is named before the catalogue is looked up", async () => {
    const { call } = testApp();
    await call("PUT", "/v1/catalogues/store", storeYaml, KEY_A, "application/yaml");
    const s = (await json(await call("POST", "/v1/sessions", { catalogue: "store", name: "billing" }, KEY_A))).body.session;
    const got = await json(await call("POST", "/v1/check", { tool: "get_order", args: {}, session: { ...s, catalogue: "0".repeat(64), agent: 5 } }, KEY_A));
    expect({ status: got.status, code: got.body.error?.code, pointer: got.body.error?.pointer }).toEqual({ status: 400, code: "invalid_request", pointer: "/session/agent" });
  });

  it("a misspelt field is a 400 naming it, never dropped in silence (a `rulebok` would start a session with no rulebook)", async () => {
    const { call } = testApp();
    await call("PUT", "/v1/catalogues/store", storeYaml, KEY_A, "application/yaml");
    const bad = await json(await call("POST", "/v1/sessions", { catalogue: "store", name: "rb", rulebok: "storerules" }, KEY_A));
    expect({ status: bad.status, code: bad.body.error?.code, pointer: bad.body.error?.pointer }).toEqual({ status: 400, code: "invalid_request", pointer: "/rulebok" });
    expect(bad.body.error.message).toContain("did you mean `rulebook`?");
    const s = (await json(await call("POST", "/v1/sessions", { catalogue: "store", name: "rb" }, KEY_A))).body.session;
    for (const [path, body, field] of [
      ["/v1/check", { session: s, tool: "get_order", args: { order_id: "1" }, option: { origins: {} } }, "option"],
      ["/v1/sessions/read", { session: s, txt: "hello" }, "txt"],
      ["/v1/report", { session: s, step: 0, outcome: "ran", reslt: {} }, "reslt"],
    ] as const) {
      const r = await json(await call("POST", path, body, KEY_A));
      expect({ status: r.status, code: r.body.error?.code, pointer: r.body.error?.pointer }, path).toEqual({ status: 400, code: "invalid_request", pointer: `/${field}` });
    }
  });

  it("a session whose sealed header was edited (name, language, context) is 400 session_invalid on /v1/check, and no session carrying the edit comes back", async () => {
    const { call } = testApp();
    await call("PUT", "/v1/catalogues/store", storeYaml, KEY_A, "application/yaml");
    const s = (await json(await call("POST", "/v1/sessions", { catalogue: "store", name: "billing" }, KEY_A))).body.session;
    const checked = (await json(await call("POST", "/v1/check", { tool: "get_order", args: { order_id: "4411" }, session: s }, KEY_A))).body.session;
    for (const edit of [{ name: "renamed" }, { language: checked.language === "en" ? "pt-BR" : "en" }, { context: { team: "x" } }, { id: "a".repeat(257) }]) {
      const r = await json(await call("POST", "/v1/check", { tool: "get_order", args: { order_id: "4411" }, session: { ...checked, ...edit } }, KEY_A));
      expect({ status: r.status, code: r.body.error?.code, session: r.body.session }, JSON.stringify(edit)).toEqual({ status: 400, code: "session_invalid", session: undefined });
    }
  });

  it("a turn read on an older copy of the session says it started a new history (restarted.why), at step 0", async () => {
    const { call } = testApp();
    await call("PUT", "/v1/catalogues/store", storeYaml, KEY_A, "application/yaml");
    const s0 = (await json(await call("POST", "/v1/sessions", { catalogue: "store", name: "x" }, KEY_A))).body.session;
    const s1 = (await json(await call("POST", "/v1/sessions/read", { session: s0, text: "estorne 40,00 do pedido 4411" }, KEY_A))).body;
    expect(s1).not.toHaveProperty("restarted");
    await call("POST", "/v1/check", { session: s1.session, tool: "get_order", args: { order_id: "4411" } }, KEY_A);
    const stale = await json(await call("POST", "/v1/sessions/read", { session: s1.session, text: "ok" }, KEY_A));
    expect(stale.status).toBe(200);
    expect(stale.body).toMatchObject({ step: 0, restarted: { why: expect.stringMatching(/\S/) } });
  });

  it("still answers a right-typed but changed field as a changed header", async () => {
    const { call } = testApp();
    await call("PUT", "/v1/catalogues/store", storeYaml, KEY_A, "application/yaml");
    const s = (await json(await call("POST", "/v1/sessions", { catalogue: "store", name: "billing" }, KEY_A))).body.session;
    const same = await json(await call("POST", "/v1/check", { tool: "get_order", args: { order_id: "4411" }, session: s }, KEY_A));
    expect(same.body.check.decision).toBe("allow");
    const changed = await json(await call("POST", "/v1/check", { tool: "get_order", args: { order_id: "4411" }, session: { ...same.body.session, agent: "other" } }, KEY_A));
    expect({ status: changed.status, code: changed.body.error?.code }).toEqual({ status: 400, code: "session_invalid" });
  });
});

describe("Session.resume in-process with a field of the wrong type", () => {
  it("is an InputError naming the field, not a session with an agent of 5", async () => {
    const home = licensedHome("hostile-resume");
    const client = new Client({ home, now: () => FIXTURE_NOW });
    const s = client.session("b", { catalogue: join(REPO, "examples/store/agent.yaml") });
    const saved = s.toJSON() as unknown as Record<string, unknown>;
    for (const [field, values] of Object.entries(WRONG)) {
      for (const value of values) {
        let err: unknown;
        try {
          client.resume({ ...saved, [field]: value } as never);
        } catch (e) {
          err = e;
        }
        expect(err, `${field}=${JSON.stringify(value)}`).toBeInstanceOf(InputError);
        expect((err as InputError).pointer, `${field}=${JSON.stringify(value)}`).toBe(`/${field}`);
      }
    }
  });
});

describe("an approval's `by` and `message`, cut to their limits", () => {
  it("are cut between characters, never inside an emoji: the decision is taken and reads back whole", async () => {
    const { call } = testApp();
    const id = await pendingApproval(call);
    // a surrogate pair across each limit: a cut by UTF-16 units leaves half of it
    const by = "a".repeat(99) + "😀" + "tail";
    const message = "m".repeat(499) + "😀" + "tail";
    const got = await json(await call("POST", `/v1/approvals/${id}/decide`, { decision: "approve", by, message }, KEY_A));
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(got.body.receipt).toMatchObject({ by: "a".repeat(99), message: "m".repeat(499) });
    const back = await json(await call("GET", `/v1/approvals/${id}`, undefined, KEY_A));
    expect(back.body.approval).toMatchObject({ status: "approved", receipt: { by: "a".repeat(99), message: "m".repeat(499) } });
  });
});

describe("clip, the one cut the API and the page make", () => {
  it("keeps whole characters, trims, and reads blank as nothing", () => {
    expect(clip("ab😀", 3)).toBe("ab");
    expect(clip("ab😀", 4)).toBe("ab😀");
    expect(clip("😀😀", 3)).toBe("😀");
    expect(clip("  x  ", 1)).toBe("x");
    expect(clip("   ", 5)).toBeUndefined();
    expect(clip(5, 5)).toBeUndefined();
    for (let n = 1; n < 12; n++) expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(clip("é😀a🎉b".repeat(3), n)!), String(n)).toBe(false);
  });
});

describe("an integer in a body that a JSON number cannot hold exactly", () => {
  // A host in Python or Go reads 1234567890123456788 as that integer; JSON.parse rounds it to
  // 1234567890123456768, so the check would judge another value than the one the tool runs with.
  const pay = `tools:
  - name: pay
    args:
      type: object
      properties:
        account: {type: integer, enum: [1234567890123456768]}
      required: [account]
      additionalProperties: false
`;
  async function session(call: ReturnType<typeof testApp>["call"]) {
    expect((await call("PUT", "/v1/catalogues/pay", pay, KEY_A, "application/yaml")).status).toBe(200);
    return JSON.stringify((await json(await call("POST", "/v1/sessions", { catalogue: "pay", name: "p" }, KEY_A))).body.session);
  }
  const typed = `"options":{}`; // no origins needed: `pay` is a read

  it("is 400 invalid_request naming it, not checked as the number it rounds to", async () => {
    const { call } = testApp();
    for (const [text, pointer] of [
      [`{"tool":"pay","args":{"account":1234567890123456788},${typed},"session":SESSION}`, "/args/account"],
      [`{"tool":"pay","args":{"account":-9007199254740993},${typed},"session":SESSION}`, "/args/account"],
      [`{"tool":"pay","args":{"account":1},"options":{"facts":{"a~b":[0, 90071992547409931]}},"session":SESSION}`, "/options/facts/a~0b/1"],
    ] as const) {
      const got = await json(await call("POST", "/v1/check", text.replace("SESSION", await session(call)), KEY_A));
      expect({ status: got.status, code: got.body.error?.code, pointer: got.body.error?.pointer }, text).toEqual({ status: 400, code: "invalid_request", pointer });
      expect(got.body.error.message).toMatch(/exactly/);
    }
  });

  it("is taken when it is exact, in any form; a digit run inside a string is no number", async () => {
    const { call } = testApp();
    for (const account of ["1234567890123456768", "1.234567890123456768e18", "1234567890123456768.0"]) {
      const got = await json(await call("POST", "/v1/check", `{"tool":"pay","args":{"account":${account}},${typed},"session":${await session(call)}}`, KEY_A));
      expect({ status: got.status, decision: got.body.check?.decision }, account).toEqual({ status: 200, decision: "allow" });
    }
    const s = await session(call);
    const got = await json(await call("POST", "/v1/check", `{"tool":"pay","args":{"account":1234567890123456768},"options":{"facts":{"note":"ref:1234567890123456788, [1234567890123456788]"}},"session":${s}}`, KEY_A));
    expect(got.status, JSON.stringify(got.body)).toBe(200);
  });
});

describe("inexactInteger, the scan behind it", () => {
  it("names the integer by its pointer, past strings with quotes and digits in them", () => {
    expect(inexactInteger(`{"a":"x\\":9007199254740993","b":[1,{"c/d":[2,9007199254740993]}]}`)).toEqual({ pointer: "/b/1/c~1d/1", written: "9007199254740993", read: 9007199254740992 });
    expect(inexactInteger(`{"a": [ 9007199254740992, 2e400, 9007199254740993.5, -9007199254740991 ] }`)).toBeUndefined();
    expect(inexactInteger(`{"":{"":[],"x":  -18446744073709551615}}`)).toMatchObject({ pointer: "//x" });
  });
});

describe("a value that is not JSON data (1e400, a lone surrogate) in a result, a context or a plan", () => {
  async function checked(call: ReturnType<typeof testApp>["call"]) {
    await call("PUT", "/v1/catalogues/store", storeYaml, KEY_A, "application/yaml");
    const s = (await json(await call("POST", "/v1/sessions", { catalogue: "store", name: "billing" }, KEY_A))).body.session;
    const c = (await json(await call("POST", "/v1/check", { session: s, tool: "get_order", args: { order_id: "4411" } }, KEY_A))).body;
    expect(c.check.decision).toBe("allow");
    return { s: JSON.stringify(c.session), step: c.check.step as number };
  }
  const bad = [
    ["1e400", "/total"],
    [`"\\ud800"`, "/total"],
    [`{"a/b":[-1e400]}`, "/total/a~1b/0"],
  ] as const;

  it("is 400 invalid_request named from the body's top, where the caller can find it", async () => {
    const { call } = testApp();
    for (const [value, at] of bad) {
      const { s, step } = await checked(call);
      for (const [route, text, pointer] of [
        ["/v1/report", `{"session":${s},"step":${step},"outcome":"ran","result":{"total":${value}}}`, `/result${at}`],
        ["/v1/filter", `{"session":${s},"step":${step},"result":{"total":${value}}}`, `/result${at}`],
        ["/v1/sessions", `{"catalogue":"store","name":"b","context":{"total":${value}}}`, `/context${at}`],
        ["/v1/check", `{"session":${s.replace('"context":{}', `"context":{"total":${value}}`)},"tool":"get_order","args":{"order_id":"4411"}}`, `/session/context${at}`],
        ["/v1/plan", `{"session":${s},"kind":"undo","tool":"refund_card","args":{"order_id":"1","amount":${value}},"result":{}}`, `/args/amount${at.slice("/total".length)}`],
        ["/v1/plan", `{"session":${s},"kind":"undo","tool":"refund_card","args":{"order_id":"1","amount":1},"result":{"total":${value}}}`, `/result${at}`],
        ["/v1/plan", `{"session":${s},"kind":"follow","tool":"refund_card","step":${step},"args":{"order_id":"1","total":${value}},"result":{}}`, `/args${at}`],
        ["/v1/plan", `{"session":${s},"kind":"judge","tool":"refund_card","result":{"total":${value}}}`, `/result${at}`],
      ] as const) {
        const got = await json(await call("POST", route, text, KEY_A));
        expect({ status: got.status, code: got.body.error?.code, pointer: got.body.error?.pointer }, `${route} ${text.slice(-90)}`).toEqual({ status: 400, code: "invalid_request", pointer });
        expect(got.body.error.message, route).toContain(pointer);
      }
    }
  });
});

describe("an argument name that looks like a declared one but is another unicode form", () => {
  it("is refused as undeclared, and the answer says the two differ in their unicode form only", async () => {
    const { call } = testApp();
    const nfc = "pre\u00e7o";
    const nfd = "prec\u0327o";
    for (const [declared, sent] of [[nfc, nfd], [nfd, nfc]] as const) {
      const yaml = `tools:\n  - name: price\n    args:\n      type: object\n      properties:\n        "${declared}": {type: number, maximum: 100}\n        other: {type: string}\n      additionalProperties: false\n`;
      expect((await call("PUT", "/v1/catalogues/price", yaml, KEY_A, "application/yaml")).status).toBe(200);
      const s = (await json(await call("POST", "/v1/sessions", { catalogue: "price", name: "p" }, KEY_A))).body.session;
      const got = (await json(await call("POST", "/v1/check", { session: s, tool: "price", args: { [sent]: 1000 } }, KEY_A))).body.check;
      expect(got).toMatchObject({ decision: "refuse", reasons: ["argument_schema"], detail: { pointer: `/${sent}`, rule: "additionalProperties" } });
      expect(got.detail.failures[0].hint, sent).toContain("unicode form");
      expect(got.detail.message).toContain("unicode form");
    }
  });
});

describe("a person's edit on the approvals page of a number past 2^53", () => {
  async function edit(amount: string) {
    const store = new MemoryApprovalStore();
    const args = { order_id: "4411", amount: 40 };
    const record: PendingRecord = {
      v: 1, id: "p_00000000000000d1", session: "s".repeat(32), step: 1, tool: "refund_card", agent: null, args, digest: argsDigest(args),
      origins: {}, reasons: ["argument_origin"], wording: "Allow refund_card?", counters: [], token: "t", created: 0, expires: 10_000,
    };
    store.add(record);
    const mac = () => new Uint8Array(32);
    const app = approvalsApp({ base: "", local: true, now: () => 1, login: () => ({ by: "ana" }), storeFor: () => store, macFor: () => mac, cookieMac: () => mac });
    const headers = { "stalwart-apply": "yes", origin: "http://localhost", "content-type": "application/json" };
    const login = await app.request("http://localhost/login", { method: "POST", headers, body: JSON.stringify({ code: "1", by: "ana" }) });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
    const r = await app.request(`http://localhost/p/${record.id}/edit`, { method: "POST", headers: { ...headers, cookie }, body: JSON.stringify({ "arg:amount": amount }) });
    return { status: r.status, body: (await r.json()) as any, edited: (await store.get(record.id))?.receipt?.edited };
  }

  it("is refused, not signed as the number it rounds to", async () => {
    const got = await edit("9007199254740993");
    expect({ status: got.status, code: got.body.error?.code }).toEqual({ status: 400, code: "invalid_request" });
    expect(got.body.error.message).toContain("9007199254740993");
    expect(got.edited).toBeUndefined();
    expect((await edit("9007199254740992")).edited).toEqual({ order_id: "4411", amount: 9007199254740992 });
  });
});

describe("a compiled rulebook registry (JSON) that gives a key twice in one object", () => {
  // JSON.parse keeps the last `then`; a person reviewing the file reads the first. The digest is
  // over what parsed, so it cannot tell. The same rulebook as YAML is refused (unique keys).
  const text = registryText(compileRulebook(readFileSync(join(REPO, "examples/store/rulebook.yaml"), "utf8"), { file: "rulebook.yaml" }), { source: "rulebook.yaml" });

  it("is refused naming the key, as the YAML reader refuses it", async () => {
    const { call } = testApp();
    expect((await call("PUT", "/v1/rulebooks/plain", text, KEY_A, "application/yaml")).status).toBe(200);
    const twice = text.replace('"then": "refuse"', '"then": "ask", "then": "refuse"');
    expect(twice).not.toBe(text);
    const got = await json(await call("PUT", "/v1/rulebooks/twice", twice, KEY_A, "application/yaml"));
    expect({ status: got.status, code: got.body.error?.code, pointer: got.body.error?.pointer }).toEqual({ status: 400, code: "catalogue_invalid", pointer: "/rules/0/then" });
    expect(got.body.error.problems[0].message).toContain("`then` twice");
  });

  it("duplicateKey names the second of two keys in one object, not one key in two objects", () => {
    expect(duplicateKey(`{"a":{"x":1},"b":{"x":2},"c":[{"x":1},{"x":2}]}`)).toBeUndefined();
    expect(duplicateKey(`{"a":[{"k\\"":1,"y":"\\"k\\"","k\\"":2}]}`)).toEqual({ pointer: '/a/0/k"', key: 'k"' });
    expect(duplicateKey(`{"a":1,"b":{},"a":2}`)).toEqual({ pointer: "/a", key: "a" });
  });
});

// Outside audit 6, F1: `{"amount":900,"amount":50}` was read as 50 (JSON.parse keeps the last):
// the ceiling, the person's question and the token all covered 50, while the same text carries
// 900 for a host that reads the first.
describe("a request body that gives a key twice in one object", () => {
  it("is 400 invalid_request naming the key and its pointer, on the check route and on a session's start", async () => {
    const { call } = testApp();
    await call("PUT", "/v1/catalogues/store", storeYaml, KEY_A, "application/yaml");
    const started = await json(await call("POST", "/v1/sessions", '{"catalogue":"store","name":"billing","name":"other"}', KEY_A));
    expect({ status: started.status, code: started.body.error?.code, pointer: started.body.error?.pointer }).toEqual({ status: 400, code: "invalid_request", pointer: "/name" });
    const s = await json(await call("POST", "/v1/sessions", { catalogue: "store", name: "billing" }, KEY_A));
    expect(s.status).toBe(201);
    const body = JSON.stringify({ session: s.body.session, tool: "refund_card", args: { order_id: "4411", amount: 900 } }).replace('"amount":900', '"amount":900,"amount":50');
    const got = await json(await call("POST", "/v1/check", body, KEY_A));
    expect({ status: got.status, code: got.body.error?.code, pointer: got.body.error?.pointer }).toEqual({ status: 400, code: "invalid_request", pointer: "/args/amount" });
    expect(got.body.error.message).toContain("`amount` twice");
    // the same key written with an escape is the same key
    const escaped = await json(await call("POST", "/v1/check", body.replace('"amount":50', '"\\u0061mount":50'), KEY_A));
    expect(escaped.body.error?.pointer).toBe("/args/amount");
  });

  it("duplicateKey agrees with JSON.parse on random texts: none in what JSON.stringify writes, the second of any key given twice", () => {
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const keys = ["a", "b", 'q"', "s\\", "t/~", "ü", "\u0000", "x\u2028", ""];
    const value = (depth: number): unknown => {
      const r = rnd(depth > 3 ? 3 : 6);
      if (r === 0) return rnd(1000) - 500;
      if (r === 1) return keys[rnd(keys.length)]! + '\\"';
      if (r === 2) return null;
      if (r === 3) return Array.from({ length: rnd(4) }, () => value(depth + 1));
      const o: Record<string, unknown> = {};
      for (let i = rnd(4); i > 0; i--) o[keys[rnd(keys.length)]!] = value(depth + 1);
      return o;
    };
    for (let i = 0; i < 300; i++) {
      const v = { root: value(0) };
      const text = JSON.stringify(v);
      expect(duplicateKey(text), text).toBeUndefined();
      // the same text with one object's first key given again, escaped or not
      const m = /\{"((?:[^"\\]|\\.)*)":/g;
      const found = [...text.matchAll(m)];
      const at = found[rnd(found.length)]!;
      const again = rnd(2) === 0 ? at[1]! : at[1]!.replace(/^[a-z]/, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
      const doubled = `${text.slice(0, at.index! + 1)}"${again}":0,${text.slice(at.index! + 1)}`;
      expect(() => JSON.parse(doubled), doubled).not.toThrow();
      expect(duplicateKey(doubled)?.key, doubled).toBe(JSON.parse(`"${at[1]}"`));
    }
  });
});

describe("POST /v1/sessions with a catalogue or rulebook name no PUT could have registered", () => {
  // rulebooks share the tenant's store under `rulebook:<name>`: a catalogue named so read a
  // registered rulebook and compiled it as a catalogue
  it("is 400 invalid_request at /catalogue or /rulebook, and never reads the rulebook as a catalogue", async () => {
    const { call } = testApp();
    await call("PUT", "/v1/catalogues/store", storeYaml, KEY_A, "application/yaml");
    expect((await call("PUT", "/v1/rulebooks/store", readFileSync(join(REPO, "examples/store/rulebook.yaml"), "utf8"), KEY_A, "application/yaml")).status).toBe(200);
    for (const [field, name] of [["catalogue", "rulebook:store"], ["catalogue", "__proto__"], ["catalogue", ""], ["rulebook", "__proto__"], ["rulebook", "a/b"]] as const) {
      const got = await json(await call("POST", "/v1/sessions", { catalogue: "store", name: "billing", [field]: name }, KEY_A));
      expect({ status: got.status, code: got.body.error?.code, pointer: got.body.error?.pointer }, `${field}=${name}`).toEqual({ status: 400, code: "invalid_request", pointer: `/${field}` });
      expect(got.body.error.message).toContain(`a ${field} name is 1–64`);
    }
    expect((await call("POST", "/v1/sessions", { catalogue: "store", name: "billing", rulebook: "store" }, KEY_A)).status).toBe(201);
  });
});
