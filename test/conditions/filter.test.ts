/**
 * `filter` on reads (checks.md "Conditions, limits, spend, outcomes"), compiled from YAML through
 * the catalogue: the `search_jobs` example (salary_min ≥ 70000 and every required skill on the
 * resume), `unknown: pass`, `from_row`, and failing closed when the list is not there. The input
 * result is never changed.
 */
import { describe, expect, it } from "vitest";
import { loadCatalogue } from "../../worker/portable/engine/catalogue/index.js";
import type { Filter } from "../../worker/portable/engine/catalogue/types.js";
import { applyFilter, fromResults } from "../../worker/portable/engine/conditions/index.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";

const CATALOGUE = loadCatalogue(
  `tools:
  - name: read_resume
    returns: {type: object, properties: {skills: {type: array, items: {type: string}}}}
  - name: search_jobs
    filter:
      each: jobs[]
      keep:
        - {field: salary_min, at_least: 70000}
        - {field: "required_skills[]", one_of: {from: "read_resume.skills[]"}}
  - name: search_jobs_lenient
    filter:
      each: jobs
      unknown: pass
      keep:
        - {field: salary_min, at_least: 70000}
        - {field: "required_skills[]", one_of: {from: "read_resume.skills[]"}}
  - name: ranges
    filter:
      each: "data.ranges[]"
      keep:
        - {field: max, at_least: {from_row: min}}
  - name: by_index
    filter:
      each: "pages[1].rows"
      keep:
        - {any: [{field: tag, is: a}, {field: tag, is: b}]}
`,
  { schemaCompiler: ajvCompiler },
);
const filterOf = (tool: string): Filter => CATALOGUE.tools.get(tool)!.filter!;
const RESUME = fromResults((tool) => (tool === "read_resume" ? { skills: ["go", "rust", "sql"] } : undefined));
const NOTHING = fromResults(() => undefined);

const deepFreeze = <T,>(v: T): T => {
  if (v !== null && typeof v === "object") {
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
    Object.freeze(v);
  }
  return v;
};

const JOBS = [
  { id: 1, salary_min: 80000, required_skills: ["go", "sql"] }, //     kept
  { id: 2, salary_min: 60000, required_skills: ["go"] }, //            salary too low
  { id: 3, salary_min: 90000, required_skills: ["go", "cobol"] }, //   a skill not on the resume
  { id: 4, salary_min: 75000, required_skills: [] }, //                kept: no skills required
  { id: 5, required_skills: ["go"] }, //                               salary unreadable
  { id: 6, required_skills: ["cobol"] }, //                            salary unreadable, a skill fails
  { id: 7, salary_min: "80000", required_skills: ["rust"] }, //        salary not a number
];
const result = () => deepFreeze({ query: "engineer", total: JOBS.length, jobs: JOBS.map((j) => ({ ...j, required_skills: [...j.required_skills] })) });
const ids = (kept: unknown) => ((kept as { jobs: { id: number }[] }).jobs ?? []).map((j) => j.id);

describe("applyFilter", () => {
  it("search_jobs (checks.md): salary_min ≥ 70000 and every required skill on the resume", () => {
    const input = result();
    const before = JSON.stringify(input);
    const out = applyFilter(filterOf("search_jobs"), input, RESUME);
    expect(ids(out.kept)).toEqual([1, 4]);
    expect(out.dropped).toBe(5);
    expect(out.unknown).toBe(2); // 5 and 7; 6 fails its skill, so it is a failure, not an unknown
    expect(out.problem).toBeUndefined();
    expect(JSON.stringify(input)).toBe(before);
    // the rest of the result is unchanged and shared; the kept records are the same records
    expect(out.kept).toMatchObject({ query: "engineer", total: 7 });
    expect((out.kept as { jobs: unknown[] }).jobs[0]).toBe(input.jobs[0]);
    expect(out.kept).not.toBe(input);
  });

  it("unknown: pass keeps a record lacking a value, never one that fails another condition", () => {
    const out = applyFilter(filterOf("search_jobs_lenient"), result(), RESUME);
    expect(ids(out.kept)).toEqual([1, 4, 5, 7]);
    expect(out.dropped).toBe(3);
    expect(out.unknown).toBe(2);
  });

  it("each: `jobs` and `jobs[]` name the same list", () => {
    expect(filterOf("search_jobs").each).toBe("jobs[]");
    expect(filterOf("search_jobs_lenient").each).toBe("jobs");
    const strict = { ...filterOf("search_jobs_lenient"), unknown: "drop" as const };
    expect(applyFilter(strict, result(), RESUME)).toEqual(applyFilter(filterOf("search_jobs"), result(), RESUME));
  });

  it("the resume never read: every job requiring a skill is unknown, and dropped", () => {
    const out = applyFilter(filterOf("search_jobs"), result(), NOTHING);
    expect(ids(out.kept)).toEqual([4]);
    expect(out.unknown).toBe(5); // 1, 3, 5, 6, 7 (2 fails its salary; 4 requires no skill)
    expect(out.dropped).toBe(6);
  });

  it("reads each `from` once, whatever the number of records", () => {
    let calls = 0;
    const many = deepFreeze({ jobs: Array.from({ length: 500 }, (_, i) => ({ salary_min: 70000 + i, required_skills: ["go"] })) });
    const out = applyFilter(filterOf("search_jobs"), many, (tool, path) => (calls++, RESUME(tool, path)));
    expect((out.kept as { jobs: unknown[] }).jobs).toHaveLength(500);
    expect(calls).toBe(1);
  });

  it("from_row compares two fields of the same record, under a nested path", () => {
    const input = deepFreeze({ data: { ranges: [{ min: 1, max: 5 }, { min: 5, max: 4 }, { min: 2, max: 2 }, { max: 3 }, { min: 1, max: "9" }], page: 2 }, ok: true });
    const out = applyFilter(filterOf("ranges"), input, NOTHING);
    expect(out.kept).toEqual({ data: { ranges: [{ min: 1, max: 5 }, { min: 2, max: 2 }], page: 2 }, ok: true });
    expect(out).toMatchObject({ dropped: 3, unknown: 2 });
  });

  it("an index on the way to the list, and any: in keep", () => {
    const input = deepFreeze({ pages: [{ rows: [{ tag: "z" }] }, { rows: [{ tag: "a" }, { tag: "c" }, { tag: "b" }, "not a record"] }] });
    const out = applyFilter(filterOf("by_index"), input, NOTHING);
    expect(out.kept).toEqual({ pages: [{ rows: [{ tag: "z" }] }, { rows: [{ tag: "a" }, { tag: "b" }] }] });
    expect(out).toMatchObject({ dropped: 2, unknown: 1 });
  });

  it("an empty list stays empty", () => {
    expect(applyFilter(filterOf("search_jobs"), { jobs: [] }, RESUME)).toEqual({ kept: { jobs: [] }, dropped: 0, unknown: 0 });
  });

  describe("fails closed when the list cannot be read: nothing is passed on", () => {
    it("the list is missing", () => {
      const out = applyFilter(filterOf("search_jobs"), { query: "engineer", secret: "x" }, RESUME);
      expect(out.kept).toEqual({ jobs: [] });
      expect(out.problem).toMatchObject({ code: "each_missing" });
      expect(out.problem!.wording).toMatch(/no `jobs\[\]`/);
    });
    it("the list is not a list", () => {
      const out = applyFilter(filterOf("search_jobs"), { jobs: { id: 1 } }, RESUME);
      expect(out).toMatchObject({ kept: { jobs: [] }, dropped: 0, unknown: 0, problem: { code: "each_not_a_list" } });
    });
    it("the result is not an object at all", () => {
      for (const r of [null, "jobs", 7, [{ salary_min: 90000 }], undefined]) {
        expect(applyFilter(filterOf("search_jobs"), r, RESUME)).toMatchObject({ kept: { jobs: [] }, problem: { code: "each_missing" } });
      }
    });
    it("the nested path is missing, or an index past the end", () => {
      expect(applyFilter(filterOf("ranges"), { data: {} }, NOTHING)).toMatchObject({ kept: { data: { ranges: [] } }, problem: { code: "each_missing" } });
      expect(applyFilter(filterOf("by_index"), { pages: [{ rows: [] }] }, NOTHING)).toMatchObject({ kept: { pages: [null, { rows: [] }] }, problem: { code: "each_missing" } });
    });
    it("an `each` that is not a path to one list", () => {
      const keep = filterOf("search_jobs").keep;
      for (const each of ["a..b", "groups[].jobs[]", "[]", ""]) {
        expect(applyFilter({ each, keep, unknown: "pass" }, { a: [1], groups: [{ jobs: [1] }] }, RESUME)).toMatchObject({ kept: [], problem: { code: "each_unreadable" } });
      }
    });
  });

  it("own properties only: a `__proto__` key is copied as data, not as a prototype", () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "jobs": [{"salary_min": 90000, "required_skills": []}]}');
    const out = applyFilter(filterOf("search_jobs"), input, RESUME);
    const kept = out.kept as Record<string, unknown>;
    expect(Object.getPrototypeOf(kept)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(kept, "__proto__")).toBe(true);
    expect((kept as { polluted?: unknown }).polluted).toBeUndefined();
    expect((kept.jobs as unknown[]).length).toBe(1);
  });
});
