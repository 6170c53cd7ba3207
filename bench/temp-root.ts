/**
 * Imported first by `npm run bench` (bench/run.ts): every temporary directory the bench and the
 * processes it starts make (homes, bundles, wrangler's state) under one of this run's, removed at
 * exit, as the test suite does (test/setup/temp-root.ts).
 */
import setup from "../test/setup/temp-root.js";

process.on("exit", setup());
