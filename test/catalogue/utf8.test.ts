/**
 * A catalogue or rulebook file is read as UTF-8 or refused where it is not (outside audit 13, F2):
 * Node's "utf8" reading put U+FFFD in place of each byte of a Latin-1 file without a word, and a
 * `none_of: ["Zürich"]` saved so no longer held "Zürich" back. The byte finder agrees with Node's
 * own UTF-8 check on random and near-UTF-8 bytes.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { isUtf8 } from "node:buffer";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { builtCli } from "../helpers/built-cli.js";
import { loadCatalogueNode } from "../../cli/sdk/catalogue-node.js";
import { utf8Text } from "../../cli/sdk/utf8-text.js";
import { CatalogueError } from "../../worker/portable/engine/index.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const CATALOGUE = `tools:
  - name: ship
    writes: true
    args:
      type: object
      properties: {city: {type: string, not: {enum: ["Zürich"]}}}
`;

function latin1File(): string {
  const file = join(mkdtempSync(join(tmpdir(), "stalwart-utf8-")), "agent.yaml");
  writeFileSync(file, Buffer.from(CATALOGUE, "latin1"));
  return file;
}

describe("a file that is not UTF-8", () => {
  it("a catalogue saved as Latin-1 is refused at the byte, with its line and column", () => {
    const file = latin1File();
    let err: unknown;
    try {
      loadCatalogueNode(file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CatalogueError);
    expect((err as CatalogueError).problems[0]).toMatchObject({ file, line: 6, column: 56, message: expect.stringMatching(/^the catalogue is not UTF-8 text: byte 0xfc at line 6, column 56/) });
  });

  it("`stalwart check` says so and exits 1", () => {
    const file = latin1File();
    const r = spawnSync(process.execPath, [builtCli(), "check", file], { cwd: root, encoding: "utf8", timeout: 60_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${file}:6:56: error: the catalogue is not UTF-8 text: byte 0xfc at line 6, column 56 begins no UTF-8 character`);
    expect(r.stderr).toContain("hint: save the file as UTF-8");
  });

  it("the same file as UTF-8 loads", () => {
    const file = join(mkdtempSync(join(tmpdir(), "stalwart-utf8-")), "agent.yaml");
    writeFileSync(file, CATALOGUE);
    expect(loadCatalogueNode(file).tools.has("ship")).toBe(true);
  });

  it("the offset found is where Node's own check first fails (random and near-UTF-8 bytes)", () => {
    let seed = 20261207;
    const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    const sample = ["a", "é", "€", "😀", "\n", "\u{10FFFF}"].map((c) => Buffer.from(c));
    for (let n = 0; n < 3000; n++) {
      const parts: Buffer[] = [];
      for (let k = Math.floor(rand() * 12); k >= 0; k--) parts.push(rand() < 0.8 ? sample[Math.floor(rand() * sample.length)]! : Buffer.from([Math.floor(rand() * 256)]));
      const bytes = Buffer.concat(parts);
      const r = utf8Text(bytes);
      expect(r.ok, bytes.toString("hex")).toBe(isUtf8(bytes));
      if (r.ok) expect(r.text).toBe(bytes.toString("utf8"));
      else {
        expect(isUtf8(bytes.subarray(0, r.offset)), bytes.toString("hex")).toBe(true);
        // no longer prefix ending inside the bad sequence is UTF-8 followed by more good text
        expect(isUtf8(bytes.subarray(0, r.offset + 4)), bytes.toString("hex")).toBe(false);
      }
    }
  });
});
