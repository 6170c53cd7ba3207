// The licence service in-process: Hono `app.request()`, Durable Objects in Miniflare (workerd).
import { afterAll, beforeAll, describe } from "vitest";
import { malformedCases, protocolCases, seatCases, type ServiceTarget } from "../helpers/licence-service-cases.js";
import { startInProcessService, type InProcessService } from "../helpers/licence-miniflare.js";

let svc: InProcessService;
beforeAll(async () => {
  svc = await startInProcessService();
});
afterAll(async () => {
  await svc?.dispose();
});

const target = (): ServiceTarget => ({ request: (p, i) => svc.request(p, i), adminSecret: svc.adminSecret });

describe("licence service, in-process (app.request + Miniflare Durable Objects)", () => {
  seatCases(target);
  malformedCases(target);
  protocolCases(target);
});
