/**
 * The licence a replay runs under: the user's, as it gates — a lapsed licence refuses what it
 * refuses live — but a replay is not live use: it counts nothing against the licence's meters
 * (`tool_checks` counts the checks of a running agent, not the re-checking of a recorded one) and
 * starts no lease renewal (a replay is offline).
 */
import type { LicencePort } from "../sdk/licence-gate.js";

export function uncounted(licence: Pick<LicencePort, "view">): LicencePort {
  return {
    view: () => licence.view(),
    count: () => {},
    answered: () => {},
  };
}
