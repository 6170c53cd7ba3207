/**
 * How fast the machine is right now, read beside the rows: the WASM core's SHA-256 of 375 bytes
 * (six compressions and a call), which no change to the engine's JavaScript moves. On this project's
 * 2-core VM a process sometimes runs for seconds at a time ~1.6× slower than usual, the same code
 * on the same input (docs/perf/README.md, "The machine's slow spells"); a row measured in such a
 * spell reads slower for that reason alone, and these readings say when it happened.
 */
import type { Core } from "../worker/portable/engine/wasm/core.js";

const BYTES = new Uint8Array(375).fill(0x61);

/** ns per SHA-256 of 375 bytes: the median of 7 batches of 2,000. */
export function probeMachine(core: Core): number {
  for (let i = 0; i < 2000; i++) core.sha256(BYTES);
  const batches: number[] = [];
  for (let b = 0; b < 7; b++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 2000; i++) core.sha256(BYTES);
    batches.push(Number(process.hrtime.bigint() - t0) / 2000);
  }
  batches.sort((x, y) => x - y);
  return batches[3]!;
}

/** The readings taken so far, by when they were taken. */
export class MachineProbe {
  private readonly readings: [string, number][] = [];
  constructor(private readonly core: Core) {}

  read(when: string): void {
    this.readings.push([when, probeMachine(this.core)]);
  }

  line(): string {
    const ns = (x: number) => Math.round(x).toLocaleString("en");
    return `machine probe (the WASM core's SHA-256 of 375 B, ns; uncontended this machine reads ~1,100, in a slow spell ~1,800): ${this.readings.map(([w, x]) => `${w} ${ns(x)}`).join(" · ")}`;
  }
}

// `node --import tsx bench/machine-probe.ts [N]`: N readings in a row (each ~30 ms), to see a spell come and go.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { nodeCore } = (await import(new URL("../dist/cli/sdk/wasm-node.js", import.meta.url).href)) as typeof import("../cli/sdk/wasm-node.js");
  const core = nodeCore();
  const readings: number[] = [];
  for (let i = 0; i < Number(process.argv[2] ?? 20); i++) readings.push(Math.round(probeMachine(core)));
  console.log(readings.join(" "));
}
