/**
 * Entry of the licence-service worker (wrangler.licence.toml): the Hono app and its two Durable
 * Object classes. Runs locally with `wrangler dev --config wrangler.licence.toml`, deploys with
 * `wrangler deploy --config wrangler.licence.toml` (secrets: worker/portable/licensing/README.md).
 */
import { createApp } from "./app.js";

export { LicenceObject } from "./licence-object.js";
export { DirectoryObject } from "./directory-object.js";

const app = createApp();
export default app;
