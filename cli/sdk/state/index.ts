/** The Node session-state and counter store of a home: STORAGE.md beside this file. */
export { nodeState, closeState, type NodeStateOptions } from "./cache.js";
export { NodeStateStore } from "./store.js";
export { FILES } from "./file.js";
export { resetState, stateStatus, type ResetOptions, type ResetResult, type StateStatus } from "./reset.js";
