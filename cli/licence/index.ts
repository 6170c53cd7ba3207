/**
 * The licence on the runtime's machine (Node). The check core calls `openLicence()`; the
 * `stalwart licence` and `stalwart doctor` commands call the rest. Contract: licensing.md.
 */
export { openLicence, LicenceHandle, resetRenewals, type OpenLicenceOptions, type LicenceStatus } from "./handle.js";
export type { RenewOutcome } from "./renew.js";
export { activate, release, apiKeyOf, type ServiceOptions } from "./activate.js";
export { writeRequest, writeAnswer, installAnswer } from "./offline.js";
export { doctor, probeRuntime, type DoctorReport, type RuntimeProbe } from "./doctor.js";
export { licencePaths, resolveHome } from "./files.js";
export { DEFAULT_SERVICE_URL } from "./service.js";
export type { LicenceView, LicenceStage } from "../../worker/portable/licensing/index.js";
export { LicenceRequired, QuotaExhausted, LicenceInvalid } from "../../worker/portable/licensing/index.js";
