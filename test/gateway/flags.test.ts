/**
 * `stalwart gateway`'s flags as a person types them: a value the gateway cannot honour is a usage
 * error naming the flag, never a gateway that starts and then behaves otherwise.
 */
import { describe, expect, it } from "vitest";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runGroup } from "../../cli/command.js";
import { root } from "../../cli/commands/index.js";
import { spawn } from "node:child_process";
import { allowedDir, downstreamClient, home, MAIN, overHttp, overStdio, ROOT, text } from "./helpers.js";

const FAULTS = join(import.meta.dirname, "fixtures/faults-server.mjs");
const CATALOGUE = `
settings: {language: en}
tools:
  - {name: note, args: {type: object, properties: {text: {type: string}}, additionalProperties: false}}
`;

async function stalwart(argv: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = "";
  const code = await runGroup(root, argv, { stdout: { write: () => undefined }, stderr: { write: (s: string) => (stderr += s) } });
  return { code, stderr };
}

describe("gateway timeouts", { timeout: 60_000 }, () => {
  it("--call-timeout and --ask-timeout longer than a timer holds (about 24.8 days) are refused, not turned into an instant timeout", async () => {
    const dir = allowedDir();
    writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
    // 25.5 days: Node would fire the SDK's timer at once, and every forwarded call would be given up
    for (const flag of ["--call-timeout", "--ask-timeout"]) {
      const r = await stalwart(["gateway", "--home", home(), "--catalogue", join(dir, "agent.yaml"), flag, "2200000", "--", "no-such-tool-server"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`\`${flag} 2200000\` is longer than the gateway can wait: at most 2147483 seconds`);
    }
  });

  it("the longest one accepted is honoured: a call through a gateway with --call-timeout 2147483 runs", async () => {
    const dir = allowedDir();
    writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
    const d = await overStdio(downstreamClient({}), ["--home", home(), "--call-timeout", "2147483", "--catalogue", join(dir, "agent.yaml"), "--", process.execPath, FAULTS]);
    const r = await d.client.callTool({ name: "note", arguments: { text: "on time" } });
    expect(r.isError, text(r)).toBeFalsy();
    expect(text(r)).toBe('noted {"text":"on time"}');
    await d.client.close();
  });

  it("--approval-wait 0, the documented default written out, is taken (it was `not a number of seconds`)", async () => {
    const dir = allowedDir();
    writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
    const d = await overStdio(downstreamClient({}), ["--home", home(), "--approval-wait", "0", "--catalogue", join(dir, "agent.yaml"), "--", process.execPath, FAULTS]);
    const r = await d.client.callTool({ name: "note", arguments: { text: "now" } });
    expect(text(r)).toBe('noted {"text":"now"}');
    await d.client.close();
    const bad = await stalwart(["gateway", "--home", home(), "--catalogue", join(dir, "agent.yaml"), "--approval-wait", "soon", "--", "no-such-tool-server"]);
    expect(bad.stderr).toContain("`--approval-wait soon` is not a number of seconds");
  });

  it("a catalogue that cannot be read: its hint is said once, not twice", async () => {
    const r = await stalwart(["gateway", "--home", home(), "--catalogue", join(allowedDir(), "missing.yaml"), "--", "no-such-tool-server"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot read");
    expect(r.stderr.split("\n").filter((l) => l.trim().startsWith("hint:"))).toHaveLength(1);
  });

  it("after `--` every word is the tool server's: `-- init ARGS` runs a server named init, not `gateway init`", async () => {
    const dir = allowedDir();
    writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
    // a tool server whose command is literally `init`, found on PATH as a host would find it
    writeFileSync(join(dir, "init"), `#!/bin/sh\ncd ${JSON.stringify(ROOT)} && exec ${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(FAULTS)} "$@"\n`);
    chmodSync(join(dir, "init"), 0o755);
    const d = await overStdio(downstreamClient({}), ["--home", home(), "--catalogue", join(dir, "agent.yaml"), "--", "init", "--verbose"], { PATH: `${dir}:${process.env.PATH}` });
    const r = await d.client.callTool({ name: "note", arguments: { text: "from init" } });
    expect(text(r)).toBe('noted {"text":"from init"}');
    await d.client.close();
  });
});

describe("the tool server's command without `--`", { timeout: 60_000 }, () => {
  /** A tool server that writes the arguments it was given to `seen`, one a line, then runs the faults fixture. */
  function recordingServer(dir: string, seen: string): string {
    const server = join(dir, "server.sh");
    writeFileSync(server, `#!/bin/sh\nprintf '%s\\n' "$@" > ${JSON.stringify(seen)}\ncd ${JSON.stringify(ROOT)} && exec ${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(FAULTS)}\n`);
    chmodSync(server, 0o755);
    return server;
  }

  it("starts at its first word: what follows is its own, even `-y`, `-h` and the gateway's option names (the MCP Inspector 0.15, which `npm install` picks on Node 20, drops `--`)", async () => {
    const dir = allowedDir();
    writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
    const seen = join(dir, "argv.txt");
    const own = ["-y", "--catalogue", "other.yaml", "-h", "--quiet", "--", "last"];
    const d = await overStdio(downstreamClient({}), ["--home", home(), "--catalogue", join(dir, "agent.yaml"), recordingServer(dir, seen), ...own]);
    const r = await d.client.callTool({ name: "note", arguments: { text: "no dashes" } });
    expect(text(r)).toBe('noted {"text":"no dashes"}');
    await d.client.close();
    expect(readFileSync(seen, "utf8").split("\n").slice(0, -1)).toEqual(own);
  });

  it("`gateway init` takes it the same way; a `--catalogue` given after it is named as misplaced", async () => {
    const dir = allowedDir();
    const seen = join(dir, "argv.txt");
    const out = join(dir, "starter.yaml");
    const server = recordingServer(dir, seen);
    let said = "";
    const io = { stdout: { write: (s: string) => (said += s) }, stderr: { write: () => undefined } };
    expect(await runGroup(root, ["gateway", "init", "-o", out, server, "-y", "--force"], io)).toBe(0);
    expect(said).toContain(`${out}: wrote 3 tools`);
    expect(readFileSync(out, "utf8")).toContain("- name: note");
    expect(readFileSync(seen, "utf8").split("\n").slice(0, -1)).toEqual(["-y", "--force"]);

    const r = await stalwart(["gateway", "--home", home(), server, "--catalogue", out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("`--catalogue` is required\n  hint: give it before the tool server's command: every word from the command on is the command's own");

    // nor is a `--json` of the command's: the error is said in words on stderr, not as JSON on stdout
    const missing = await stalwart(["gateway", "--home", home(), "--catalogue", join(dir, "missing.yaml"), server, "--json"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("stalwart: CatalogueError:");
  });
});

describe("gateway HTTP sessions", { timeout: 60_000 }, () => {
  it("--session-idle and --max-sessions: a number they cannot take, or either without --listen, is a usage error", async () => {
    const dir = allowedDir();
    writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
    const at = ["gateway", "--home", home(), "--catalogue", join(dir, "agent.yaml")];
    for (const [flag, value, says] of [["--session-idle", "soon", "`--session-idle soon` is not a number of seconds"], ["--max-sessions", "0", "`--max-sessions 0` is not a whole number of at least 1"], ["--max-sessions", "2.5", "`--max-sessions 2.5` is not a whole number"]] as const) {
      const r = await stalwart([...at, "--listen", "127.0.0.1:0", flag, value, "--", "no-such-tool-server"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(says);
    }
    const stdio = await stalwart([...at, "--session-idle", "60", "--", "no-such-tool-server"]);
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toContain("`--session-idle` is for `--listen`");
  });

  it("--check-timeout: a number of seconds, and only with --check-url", async () => {
    const dir = allowedDir();
    writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
    const at = ["gateway", "--home", home(), "--catalogue", join(dir, "agent.yaml")];
    const bad = await stalwart([...at, "--check-url", "http://127.0.0.1:9", "--check-timeout", "soon", "--", "no-such-tool-server"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("`--check-timeout soon` is not a number of seconds");
    const alone = await stalwart([...at, "--check-timeout", "30", "--", "no-such-tool-server"]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("`--check-timeout` is for `--check-url`");
  });

  it("--max-sessions 1 is honoured: a second client's initialize ends the first, idle, session", async () => {
    const dir = allowedDir();
    writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
    const child = spawn(process.execPath, [MAIN, "gateway", "--home", home(), "--catalogue", join(dir, "agent.yaml"), "--listen", "127.0.0.1:0", "--max-sessions", "1", "--", process.execPath, FAULTS], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
    try {
      let stderr = "";
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on("data", (b: Buffer) => {
          stderr += b.toString();
          const m = /listening on (\S+)/.exec(stderr);
          if (m) resolve(m[1]!);
        });
        child.once("exit", () => reject(new Error(stderr)));
      });
      const a = await overHttp(downstreamClient({}), url);
      expect(text(await a.client.callTool({ name: "note", arguments: { text: "a" } }))).toBe('noted {"text":"a"}');
      const b = await overHttp(downstreamClient({}), url);
      expect(text(await b.client.callTool({ name: "note", arguments: { text: "b" } }))).toBe('noted {"text":"b"}');
      await expect(a.client.callTool({ name: "note", arguments: { text: "a" } })).rejects.toThrow(/Session not found|404/);
      expect(stderr).toContain("ended: the gateway holds 1 session,");
      await a.client.close().catch(() => undefined);
      await b.client.close();
    } finally {
      child.kill();
    }
  });
});
