/**
 * The licence on the runtime's machine (Node). The check core calls `openLicence()`; the
 * `stalwart licence` and `stalwart doctor` commands call the rest. Contract: licensing.md.
 */
export { openLicence, LicenceHandle, resetRenewals,   } from "./handle.js";
;
export { activate, release,   } from "./activate.js";
export { writeRequest, writeAnswer, installAnswer } from "./offline.js";
;
export { licencePaths,  } from "./files.js";
;
;
;
