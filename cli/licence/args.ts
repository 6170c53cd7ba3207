/** A small argument reader for `stalwart licence …` and `stalwart doctor`. */
import { StalwartError } from "../../worker/portable/engine/index.js";

export interface Parsed {
  positional: string[];
  flags: Record<string, string | true>;
}

export function parseArgs(argv: string[], valued: readonly string[], booleans: readonly string[]): Parsed {
  const positional: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "-o") {
      const v = argv[++i];
      if (v === undefined) throw new StalwartError("UsageError", "`-o` needs a file name", { hint: "e.g. `-o activation-answer.json`" });
      flags.out = v;
    } else if (a.startsWith("--")) {
      const [name, inline] = a.slice(2).split("=", 2) as [string, string | undefined];
      if (booleans.includes(name)) flags[name] = true;
      else if (valued.includes(name)) {
        const v = inline ?? argv[++i];
        if (v === undefined) throw new StalwartError("UsageError", `\`--${name}\` needs a value`);
        flags[name] = v;
      } else throw new StalwartError("UsageError", `unknown option \`${a}\``, { hint: `options: ${[...booleans, ...valued].map((o) => `--${o}`).join(", ")}` });
    } else positional.push(a);
  }
  return { positional, flags };
}
