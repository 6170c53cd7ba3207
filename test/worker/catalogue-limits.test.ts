/**
 * Outside audit 14, F1: one tenant's large catalogue must not cost seconds of the isolate every
 * tenant shares, nor answer megabytes. Bounded by the body (256 KiB), and the problems an analysis
 * collects (1,000) and an answer lists (100); YAML is read in linear time (test/catalogue/wide-map.test.ts).
 */
import { describe, expect, it } from "vitest";
import { KEY_A, testApp } from "./app-env.js";

const put = (call: ReturnType<typeof testApp>["call"], name: string, yaml: string) => call("PUT", `/v1/catalogues/${name}`, yaml, KEY_A, "application/yaml");

describe("catalogue limits (outside audit 14, F1)", () => {
  it("a catalogue over 256 KiB is refused 413 body_too_large, unread", async () => {
    const { call } = testApp();
    const yaml = "tools:\n" + Array.from({ length: 24_000 }, (_, i) => `  - name: t${i}\n`).join("");
    expect(yaml.length).toBeGreaterThan(256 * 1024);
    const r = await put(call, "big", yaml);
    expect(r.status).toBe(413);
    const body = (await r.json()) as any;
    expect(body.error).toMatchObject({ code: "body_too_large", message: "the catalogue is over 262144 bytes" });
    expect(body.error.hint).toMatch(/split it/);
  });

  it("a rulebook over 256 KiB is refused 413 body_too_large too, whatever its format; one under it registers", async () => {
    const { call } = testApp();
    const row = (i: number) => `r${i},refunds,refund_card,args.amount,over,${i},refuse,,Only paid orders can be refunded.\n`;
    const csv = (n: number) => "name,flow,tools,field,op,value,then,question,because\n" + Array.from({ length: n }, (_, i) => row(i)).join("");
    expect(csv(2_600).length).toBeLessThan(256 * 1024);
    const small = await call("PUT", "/v1/rulebooks/fits", csv(2_600), KEY_A, "text/csv");
    expect(small.status).toBe(200);
    expect(((await small.json()) as any).rules).toBe(2_600);
    const yaml = "rules:\n" + Array.from({ length: 2_000 }, (_, i) => `  - name: r${i}\n    flow: refunds\n    tools: [refund_card]\n    when:\n      - {field: args.amount, over: ${i}}\n    then: refuse\n    because: "x"\n`).join("");
    for (const [type, text] of [["text/csv", csv(4_000)], ["application/yaml", yaml]] as const) {
      expect(text.length).toBeGreaterThan(256 * 1024);
      const r = await call("PUT", "/v1/rulebooks/big", text, KEY_A, type);
      expect(r.status).toBe(413);
      const error = ((await r.json()) as any).error;
      expect(error).toMatchObject({ code: "body_too_large", message: "the rulebook is over 262144 bytes" });
      expect(error.hint).toMatch(/one rulebook per flow/);
    }
  });

  it("20,000 repeated tools: the first 100 problems and how many more, in a small answer", async () => {
    const { call } = testApp();
    const yaml = "tools:\n" + "  - name: t\n".repeat(20_000);
    const r = await put(call, "dup", yaml);
    expect(r.status).toBe(400);
    const text = await r.text();
    expect(text.length).toBeLessThan(40_000); // it was 4.8 MB: every one of 19,999 problems
    const error = JSON.parse(text).error;
    expect(error.code).toBe("catalogue_invalid");
    expect(error.problems).toHaveLength(100);
    expect(error.more_problems).toBe(900); // the analysis stops at 1,000
    expect(error.problems[0]).toMatchObject({ file: "dup.yaml", line: 3, message: expect.stringMatching(/declared twice/) });
    expect(error.message).toMatch(/^dup\.yaml:3:\d+: .*\(and 999 more\)$/);
  });

  it("a key given twice in one map is still a problem at the key", async () => {
    const { call } = testApp();
    const r = await put(call, "twice", "tools:\n  - name: a\n    reads: true\n    reads: false\n");
    const error = ((await r.json()) as any).error;
    expect(error.problems[0]).toMatchObject({ line: 4, column: 5, message: "key `reads` appears twice in this map", hint: "each word may appear once per map; remove or merge the repeated one" });
  });
});
