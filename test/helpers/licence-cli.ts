/** Runs `stalwart …` (as installed: test/helpers/built-cli.ts) as a user would, with its own STALWART_HOME. */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { builtCli } from "./built-cli.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json<T = Record<string, any>>(): T;
}

export function stalwart(args: string[], env: Record<string, string | undefined>, cwd = root): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const fullEnv: NodeJS.ProcessEnv = { ...process.env, QLS_API_KEY: undefined, STALWART_LICENCE_URL: undefined, NO_COLOR: "1", ...env };
    for (const k of Object.keys(fullEnv)) if (fullEnv[k] === undefined) delete fullEnv[k];
    const child = spawn(process.execPath, [builtCli(), ...args], { cwd, env: fullEnv, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code: code ?? -1, stdout, stderr, json: () => JSON.parse(stdout) }));
  });
}
