/**
 * The catalogue a guard infers origins with, its language and context: the one the host passed,
 * or the one `Client` started the session with. Made here, not in `CallGuard`'s constructor: a
 * closure made there kept the guard's session alive through young-generation collections after
 * the host dropped both (test/sdk/history-view-gc.test.ts).
 */
import type { CompiledCatalogue, Language } from "../../worker/portable/engine/index.js";
import { catalogueFrom } from "../sdk/catalogue-input.js";
import { ajvCompiler } from "../sdk/ajv-compiler.js";
import { nodeCore } from "../sdk/wasm-node.js";
import type { SessionInfo } from "../sdk/session-info.js";
import type { GuardOptions } from "./types.js";

export interface CatalogueParts {
  catalogue: () => CompiledCatalogue;
  language: () => Language;
  context: Readonly<Record<string, unknown>>;
}

/** The catalogue the host passed, compiled on first use. */
export function givenCatalogue(options: GuardOptions): CatalogueParts {
  let compiled: CompiledCatalogue | undefined;
  const catalogue = () => (compiled ??= catalogueFrom(options.catalogue!, { schemaCompiler: ajvCompiler, sha256: (b) => nodeCore().sha256(b) }));
  return { catalogue, language: () => options.language ?? catalogue().settings.language ?? "en", context: options.context ?? {} };
}

/** The catalogue `Client` started the session with. */
export function infoCatalogue(info: SessionInfo): CatalogueParts {
  return { catalogue: () => info.catalogue(), language: () => info.language, context: info.context };
}
