// The same cases against the real licence worker: `wrangler dev --config wrangler.licence.toml`.
import { afterAll, beforeAll, describe } from "vitest";
import { malformedCases, protocolCases, seatCases, type ServiceTarget } from "../helpers/licence-service-cases.js";
import { startWranglerLicence, type WranglerService } from "../helpers/licence-wrangler.js";

let svc: WranglerService;
beforeAll(async () => {
  svc = await startWranglerLicence();
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

const target = (): ServiceTarget => ({ request: (p, i) => svc.request(p, i), adminSecret: svc.adminSecret });

describe("licence service, real `wrangler dev` worker over HTTP", () => {
  seatCases(target);
  malformedCases(target);
  protocolCases(target);
});
