/**
 * JSON Schema adapters. Runtime-neutral exports only: the ajv adapter (Node; generates code) is
 * imported from `./ajv.js` by Node code, never from the engine.
 */
export { cfworkerCompiler } from "./cfworker.js";
export { checkSchema, resolveLocalRef, type SchemaProblem } from "./check-schema.js";
export { InvalidSchema } from "./prepare.js";
export { pickLeaf, jsonLeaf, type Leaf } from "./verdict.js";
export { joinPointer, splitPointer, escapeSegment, comparePointers, getAt } from "./pointer.js";
export { linearRegExp, patternProblem, schemaPatterns, type LinearRegExp, type PatternProblem } from "./linear-regex.js";
