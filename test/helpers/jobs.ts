/**
 * The `filter` tests' shared ground (test/gateway/filter.test.ts, test/adapters/filter.test.ts,
 * test/gateway/fixtures/jobs-server.ts): a catalogue whose `search_jobs` passes on only jobs paying
 * at least 70,000 that need a skill from the resume (or none), and four jobs of which it keeps a
 * and d.
 */
export const JOBS_CATALOGUE = `
settings: {language: en}
tools:
  - name: read_resume
    args: {type: object, additionalProperties: false}
    returns: {type: object, properties: {skills: {type: array, items: {type: string}}}}
  - name: search_jobs
    args: {type: object, properties: {as: {type: string}}, additionalProperties: false}
    returns:
      type: object
      properties:
        jobs: {type: array, items: {type: object, properties: {id: {type: string}, salary_min: {type: number}, required_skills: {type: array, items: {type: string}}}}}
    filter:
      each: jobs[]
      keep:
        - {field: salary_min, at_least: 70000}
        - any: [{field: "required_skills[]", one_of: {from: "read_resume.skills[]"}}, {count: "required_skills[]", at_most: 0}]
`;

export const JOBS = {
  jobs: [
    { id: "a", salary_min: 90000, required_skills: ["ts"] },
    { id: "b", salary_min: 50000, required_skills: ["ts"] },
    { id: "c", salary_min: 95000, required_skills: ["go"] },
    { id: "d", salary_min: 80000, required_skills: [] as string[] },
  ],
};

/** The skills the resume answers. */
export const SKILLS = ["ts", "sql"];
