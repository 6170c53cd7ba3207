/**
 * Writes test/licence-vectors/vectors.json: published known answers so another implementation can
 * verify ours. Ed25519 is deterministic, so running this again writes the same file (the vectors
 * test checks that). Run: node --import tsx test/licence-vectors/generate.ts
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { buildVectors } from "./build.js";

const file = fileURLToPath(new URL("./vectors.json", import.meta.url));
writeFileSync(file, JSON.stringify(await buildVectors(), null, 2) + "\n");
console.log(`wrote ${file}`);
