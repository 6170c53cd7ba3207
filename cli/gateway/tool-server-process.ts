/**
 * How a command's tool server is started: the SDK's stdio transport, keeping the child's pid, and
 * the environment it inherits. Split out of upstream.ts, which connects to the server either way.
 */
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

/**
 * The SDK's stdio transport, keeping its child's pid. A connect that fails (no answer to
 * `initialize` in time) closes the transport without waiting for it, and that close ends the
 * child only after its own unref'd timers: a gateway exiting on the failure left the tool server
 * running, with nobody to stop it.
 */
export class ToolServerProcess extends StdioClientTransport {
  private started: number | null = null;

  override async start(): Promise<void> {
    await super.start();
    this.started = this.pid;
  }

  /** End the tool server's process now (once). */
  stop(): void {
    const pid = this.started;
    this.started = null;
    if (pid === null) return;
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // gone already
    }
  }
}

/**
 * What `npx` / `npm exec` put in the environment of the one command it ran (this gateway): its
 * `--package`, `--yes` and `--call`. A tool server started with `npx` behind a gateway started with
 * `npx -p stalwart-agents stalwart …` would take them as its own and run its command inside the
 * gateway's package ("not found"), and `-y` given for this package is no consent to install
 * another. Case as npm writes them; npm reads these names in any case, so any case is left out.
 */
const NPX_OWN = new Set(["npm_config_package", "npm_config_yes", "npm_config_call"]);

export function inheritedEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (typeof v === "string" && !NPX_OWN.has(k.toLowerCase())) out[k] = v;
  return out;
}
