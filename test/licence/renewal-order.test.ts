// The first answer of a process renews the lease in the background. Its start is synchronous work
// (the counts written; in Node, the first `fetch` loads undici, ~40 ms): it begins on the next
// turn of the event loop, after the answer has reached its caller, not a microtask later in front
// of the caller's own continuation.
import { beforeEach, expect, test } from "vitest";
import { openLicence, resetRenewals } from "../../cli/licence/index.js";
import { unreachable, writeFixtureInstallation } from "../helpers/licence-fixtures.js";

beforeEach(() => resetRenewals());

test("the first answer reaches its caller before the renewal starts", async () => {
  const T0 = new Date("2031-05-01T00:00:00Z");
  const { home } = await writeFixtureInstallation({ now: T0, leaseEndsInDays: 7 });
  const licence = await openLicence({ home, now: () => T0, fetch: unreachable });
  const order: string[] = [];
  const renew = licence.renew.bind(licence);
  licence.renew = () => {
    order.push("renewal");
    return renew();
  };
  licence.count("tool_checks"); // the first answer
  expect(licence.renewal).toBeDefined();
  // the caller's continuation: a few promise turns after the answer (an `await` or three)
  for (let i = 0; i < 3; i++) await Promise.resolve();
  order.push("caller");
  expect(await licence.renewal).toMatchObject({ ok: false, code: "service_unreachable" });
  expect(order).toEqual(["caller", "renewal"]);
  await licence.close();
});
