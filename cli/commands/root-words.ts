/**
 * What `stalwart` says of itself (the root of cli/commands/index.ts), apart from its commands, so
 * that an invocation can load only the command it names (load.ts).
 */
export const ROOT_TEXT = {
  path: "",
  summary: "checks every tool call an AI agent makes before it runs: allow, confirm or refuse, with reasons",
  details: "`stalwart --version` (-v) prints the version. Exit codes, the same for every command: 0 ok, 1 a finding,\na refusal or a missing licence, 2 a usage error.",
} as const;
