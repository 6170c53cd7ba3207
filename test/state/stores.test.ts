/** The shared store cases against the in-memory store and the Node store under a home (LMDB). */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { MemoryStateStore } from "../../worker/portable/engine/index.js";
import { closeState, nodeState } from "../../cli/sdk/state/index.js";
import { storeCases } from "./store-cases.js";

storeCases("memory", () => new MemoryStateStore({ now: () => Date.UTC(2026, 10, 15) }));

const home = mkdtempSync(join(tmpdir(), "stalwart-state-cases-"));
afterAll(() => closeState(home));
storeCases("node (LMDB under a home)", () => nodeState(home, { now: () => Date.UTC(2026, 10, 15) }));
