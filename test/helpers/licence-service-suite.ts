/**
 * The in-process licence service (licence-miniflare.ts) for one test file: started before its
 * tests, disposed after them, and the runtime's background renewals reset before each test.
 */
import { afterAll, beforeAll, beforeEach } from "vitest";
import { resetRenewals } from "../../cli/licence/index.js";
import { startInProcessService, type InProcessService } from "./licence-miniflare.js";

export class ServiceSuite {
  /** set before the file's first test */
  svc!: InProcessService;
  /** what the service-side cases (licence-service-cases.ts) call */
  readonly target = () => ({ request: (p: string, i?: RequestInit) => this.svc.request(p, i), adminSecret: this.svc.adminSecret });
}

export function licenceServiceSuite(): ServiceSuite {
  const suite = new ServiceSuite();
  beforeAll(async () => {
    suite.svc = await startInProcessService();
  });
  afterAll(async () => {
    await suite.svc?.dispose();
  });
  beforeEach(() => resetRenewals());
  return suite;
}
