/**
 * The conformance corpus through `stalwart gateway` (test/conformance/gateway-driver.ts): a real
 * MCP client calls each case's tools through a real gateway in front of a real MCP tool server,
 * and every answer must be the one the live check gives (test/conformance.test.ts). The gateway
 * works out origins itself: a case whose origins it would work out as declared, with no person's
 * turns, is run; any other is skipped with the reason.
 */
import { afterAll, describe, expect, it } from "vitest";
import { assertOutcomes, loadCases, runCase } from "./conformance/runner.js";
import { gatewayDriver, notThroughGateway } from "./conformance/gateway-driver.js";

const driver = gatewayDriver();
afterAll(() => driver.close());

describe("conformance (stalwart gateway, MCP over streamable HTTP)", () => {
  const cases = loadCases();
  it("a fifth of the corpus or more goes through the gateway", () => {
    expect(cases.filter((c) => !c.skip?.[driver.name] && notThroughGateway(c) === null).length).toBeGreaterThanOrEqual(Math.ceil(cases.length / 5));
  });
  for (const c of cases) {
    const why = c.skip?.[driver.name] ?? notThroughGateway(c);
    it.skipIf(why !== null)(`${c.file}: ${c.name}${why ? ` (not through the gateway: ${why})` : ""}`, async () => {
      assertOutcomes(await runCase(c, driver), expect);
    }, 30_000);
  }
});
