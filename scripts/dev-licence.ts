/**
 * What scripts/dev.mjs (plain Node) needs of the licence code, which is TypeScript: loaded through
 * tsx's `register()`, one import.
 */
export { activate, licencePaths } from "../cli/licence/index.js";
export { readInstallation } from "../cli/licence/installation.js";
export { adminCall, adminSecretFrom } from "../cli/licence/admin.js";
export { devSigningKey, toBase64Url } from "../worker/portable/licensing/index.js";
export { workerLicenceOf } from "../worker/workerd/check/licence.js";
