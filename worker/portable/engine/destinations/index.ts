/**
 * Destinations (checks.md step 4): finding them in a call's arguments, and the `sends_out`
 * allow-list they are held against.
 */
export { findDestinations, scanDestinations } from "./scan.js";
export { destinationAllowed, parseDestinationPattern } from "./allow.js";
export { isTld } from "./tlds.js";
