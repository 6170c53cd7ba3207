/**
 * Imported first by every bench script that makes temporary files (`npm run bench`, and each one
 * run on its own): what the script and the processes it starts make (homes, bundles, wrangler's
 * state) goes under one directory of this process's, removed at exit, as the test suite does
 * (test/setup/temp-root.ts). A child that imports it too makes its own inside its parent's.
 */
import setup from "../test/setup/temp-root.js";

process.on("exit", setup());
