/** The Node session-state and counter store of a home: STORAGE.md beside this file. */
export { nodeState, closeState,  } from "./cache.js";
export { NodeStateStore } from "./store.js";
;
export { resetState, stateStatus,   type StateStatus } from "./reset.js";
