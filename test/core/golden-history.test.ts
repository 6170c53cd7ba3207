/**
 * The bytes a session signs do not change: one fixed session (fixed key, clock and id; every
 * entry kind, a confirm and its token, a resume) gives the saved form, answers and resumed form
 * these digests, computed on the build before the speed work (bench/golden.mjs prints the same
 * for any built checkout). Links and digests are part of the contract (checks.md); a token's form
 * changed once, on purpose (st1 → st2: the answers' digest), and the tokens of the old form still open.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Engine, Session } from "../../worker/portable/engine/index.js";
import { nodeCore } from "../../cli/sdk/wasm-node.js";
import { catalogueFrom } from "../../cli/sdk/catalogue-input.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";
// @ts-expect-error — plain .mjs shared with bench/golden.mjs
import { goldenSession } from "../../bench/golden-session.mjs";

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

describe("signed histories stay byte-identical", () => {
  it("a fixed session signs, answers and resumes to the same bytes", async () => {
    const core = nodeCore();
    const catalogue = catalogueFrom(join(import.meta.dirname, "../../examples/store/agent.yaml"), { schemaCompiler: ajvCompiler, sha256: (b) => core.sha256(b) });
    const out = (await goldenSession({ Engine, Session, core, catalogue, schemaCompiler: ajvCompiler })) as { saved: string; answers: string; resumed: string; entries: number };
    expect(out.entries).toBe(16);
    expect(sha(out.saved)).toBe("2a86b6d278122f414d5aabc0768db785dec8af039bef28625337d463e9c980b5");
    // answers, not history: `get_order {order_id: 5}`'s argument_schema detail now lists
    // `failures` with what the schema expects (issue 10); the confirms' tokens are `st2` (compact
    // claims; the answers are otherwise the same, token for token); the signed bytes above and
    // below are unchanged
    expect(sha(out.answers)).toBe("06b83e646ecccde4404c9625daefde829f2bfc417b3f7e059c53abf1454e01f1");
    expect(sha(out.resumed)).toBe("0cae7d3271551cc167f02e33d87bc937595d08bb1ceecee32ef3a2545d74c762");
  });
});
