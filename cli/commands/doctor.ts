/** `stalwart doctor`: what works, what is missing (licensing.md). Works without a licence. */
import { defineCommand, runLeaf, type Io } from "../command.js";
import { doctor } from "../licence/doctor.js";
import { formatDoctor } from "../licence/format.js";
import { homeOptions, serviceBase } from "./licence-options.js";

export const command = defineCommand({
  path: "doctor",
  summary: "what works, what is missing: service, key, runtime, history key, store, licence and its dates, plan, meters",
  details: "Works without a licence. Exit 0 when checks can run here (the check core loads, the history key is one sessions can sign with, the store reads, and a licence is active or in its grace), 1 otherwise.",
  args: { synopsis: "", min: 0, max: 0 },
  options: {
    ...homeOptions,
    json: { type: "boolean", help: "print the report as JSON" },
  },
  async run({ values, io }) {
    const r = await doctor(serviceBase(values));
    io.stdout.write((values.json ? JSON.stringify(r, null, 2) : formatDoctor(r)) + "\n");
    return r.missing.length === 0 ? 0 : 1;
  },
});

const summary = command.summary;
const run = (argv: string[], io?: Io): Promise<number> => runLeaf(command, argv, io);
