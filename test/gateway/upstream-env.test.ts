/**
 * The environment a command's tool server is started with (upstream.ts `inheritedEnv`): the
 * gateway's own, whole — what the host configured for the server behind it — except the options
 * `npx` / `npm exec` gave the one command it ran, the gateway (`-p`, `-y`, `-c`). Handed on, the
 * tool server's own `npx` took them as its own (test/package.test.ts runs that end to end).
 */
import { describe, expect, it } from "vitest";
import { inheritedEnv } from "../../cli/gateway/upstream.js";

describe("the tool server's environment", () => {
  it("leaves out npx's --package, --yes and --call, in any case npm reads them", () => {
    const env = inheritedEnv({ npm_config_package: "stalwart-agents", npm_config_yes: "true", npm_config_call: "x", NPM_CONFIG_PACKAGE: "a", Npm_Config_Yes: "true" });
    expect(env).toEqual({});
  });

  it("keeps everything else: the host's settings, npm's registry and cache, PATH", () => {
    const given = { PATH: "/usr/bin", TOOLS_TOKEN: "t", npm_config_registry: "https://npm.internal.example/", npm_config_cache: "/c", npm_command: "exec", npm_config_packages: "x" };
    expect(inheritedEnv({ ...given, npm_config_package: "p", unset: undefined })).toEqual(given);
  });
});
