/** The shared store cases against the in-memory store. */
import { MemoryStateStore } from "../../worker/portable/engine/index.js";
import { storeCases } from "./store-cases.js";

storeCases("memory", () => new MemoryStateStore({ now: () => Date.UTC(2026, 10, 15) }));
