/**
 * Destinations (checks.md step 4): finding them in a call's arguments, and the `sends_out`
 * allow-list they are held against. Every host is read by one parser, host.ts (WHATWG URL).
 */
export { findDestinations, scanDestinations } from "./arguments.js";
export { destinationAllowed } from "./allow.js";
export { parseDestinationPattern, parsePattern,  } from "./patterns.js";
export { parseHost } from "./host.js";
export { MAX_FOUND, MAX_LENGTH, MORE_DESTINATIONS } from "./found.js";
;
