/**
 * Every `stalwart` command, in the order `stalwart --help` lists them. A new command is a module
 * in this folder exporting its `command` (cli/command.ts), added here and to load.ts.
 */
import type { Group } from "../command.js";
import { command as check } from "./check.js";
import { command as replay } from "./replay.js";
import { command as rules } from "./rules.js";
import { command as licence } from "./licence.js";
import { command as doctor } from "./doctor.js";
import { command as gateway } from "./gateway.js";
import { command as counters } from "./counters.js";
import { command as approvals } from "./approvals.js";
import { command as key } from "./key.js";
import { ROOT_TEXT } from "./root-words.js";

export const root: Group = {
  ...ROOT_TEXT,
  commands: [check, replay, rules, licence, doctor, counters, key, gateway, approvals],
};
