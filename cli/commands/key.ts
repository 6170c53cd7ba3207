/**
 * `stalwart key reset` — a new history key for the home, on purpose (cli/sdk/key-reset.ts). The
 * SDK never makes one in silence where state made under the old key remains (KeyChanged).
 */
import { defineCommand, type Group } from "../command.js";
import { resolveHome } from "../sdk/home.js";
import { resetKey } from "../sdk/key-reset.js";

const reset = defineCommand({
  path: "key reset",
  summary: "a new history key: every saved session, confirmation token and pending approval made under the old one is refused",
  details: "Only a key that is missing, damaged or not the one the home's state was made under is replaced unless --force is given.\nThe old key file is moved aside as history.key.reset-<time> (kept for inspection).",
  args: { synopsis: "", min: 0, max: 0 },
  options: {
    home: { type: "string", value: "DIR", help: "the home holding the key (default $STALWART_HOME, else ~/.stalwart)" },
    force: { type: "boolean", help: "replace a key that is fine too" },
    json: { type: "boolean", help: "print the result as JSON" },
  },
  async run({ values, io }) {
    const r = resetKey(resolveHome(values.home), { force: values.force === true });
    io.stdout.write(
      (values.json
        ? JSON.stringify({ reset: true, ...r }, null, 2)
        : `a new history key in ${r.file} (${r.id})\n  was   ${r.was}${r.aside.map((f) => `\n  kept  ${f}`).join("")}\n` +
          (r.was === "none yet" ? "there was no key before: nothing made earlier is affected" : "saved sessions, confirmation tokens and pending approvals made under the old key are refused from now on")) + "\n",
    );
    return 0;
  },
});

export const command: Group = {
  path: "key",
  summary: "the home's history key: reset",
  commands: [reset],
};
