/**
 * A tenant we did not write (docs/design/local-tenant.md, "A tenant we did not write"), under the real
 * pulumi CLI with the packed package installed in a user's project: for each of the local tenant's
 * quirks, one `up` of 60 ClientSettings beside production reading 3/s in bursts of 3 (the local
 * tenant's background load, on the same bucket of 20 at 10/s): every resource applied, production
 * without a 429, the run's own 429s at most 3; and with list pages lacking `total`, a refresh whose
 * reads are answered within the deadline. One CLI run per quirk, one refresh: they are slow.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTenantApi, type TenantApi } from "../provider/local-tenant/index.js";
import type { QuirkOptions } from "../provider/local-tenant/quirks.js";
import { budget } from "./support/budgets.js";
import { installedExample, undoAfterEach } from "./support/e2e.js";
import type { InstalledProject } from "./support/installed-package.js";
import { converged, managedClients, pacedStack } from "./support/paced-stack.js";

/** The tenant of the measurement: 10 requests/s with a bucket of 20. */
const RATE_LIMIT = { rate: 10, burst: 20 };
/** Production reading 3/s in bursts of 3. */
const BURSTY = { rate: 3, burst: 3 };
/** Bound of one CLI command of 60 paced resources. */
const RUN_MS = 240_000;

const undo = undoAfterEach();

let project: InstalledProject;
beforeAll(
  async () => {
    project = await installedExample("clients-from-data");
  },
  budget({ installs: 1 }),
);
afterAll(async () => {
  await project?.remove();
});

/**
 * The quirks, each as a real platform or what is in front of it may answer (issue 55's list); the
 * per-minute limit is one production and the run can share (300 a minute against their 3/s and
 * the run's share of the rest), so that it shows its figures without refusing production by itself.
 */
const QUIRKS: readonly (readonly [string, QuirkOptions])[] = [
  ["its clock 2 s behind ours", { clockOffset: -2 }],
  ["its clock 3 s ahead of ours", { clockOffset: 3 }],
  ["its reset rounded down", { resetRoundedDown: true }],
  [
    "client writes on a bucket of their own, 4/s with a burst of 8",
    { writeBucket: { rate: 4, burst: 8 } },
  ],
  ["a per-minute limit of 300 beside the per-second one", { perMinute: 300 }],
  ["every 5th answer without rate-limit headers", { headersMissingEvery: 5 }],
  ["every 25th request a gateway's 502 or 503", { gatewayEvery: 25 }],
  ["every rate-limit header repeated", { repeatedHeaders: true }],
  ["a Retry-After of 30 s on its 429s", { retryAfter: 30 }],
  ["list pages without total", { pagesWithoutTotal: true }],
];

/** A local tenant of 60 generated clients beside bursty production, with `quirks`. */
async function foreignTenant(quirks: QuirkOptions): Promise<TenantApi> {
  const api = await startTenantApi({
    extraClients: 60,
    rateLimit: RATE_LIMIT,
    backgroundLoad: BURSTY,
    quirks,
  });
  undo(() => api.stop());
  return api;
}

/** Prints production's 429s, the run's own, and the bucket's lowest level; holds the targets. */
function holdsTargets(api: TenantApi, what: string): void {
  const stats = api.stats();
  process.stdout.write(
    `${what}: production's 429s ${stats.background.refused} of ${stats.background.total}, ` +
      `the run's own 429s ${stats.byStatus["429"] ?? 0}, ` +
      `the bucket's lowest level ${stats.bucketLowest?.toFixed(2)}\n`,
  );
  expect(stats.background.total).toBeGreaterThan(0);
  expect(stats.background.refused).toBe(0);
  expect(stats.byStatus["429"] ?? 0).toBeLessThanOrEqual(3);
}

describe.each(QUIRKS)("a tenant with %s", (what, quirks) => {
  it(
    "applies 60 ClientSettings beside bursty production, production without a 429 and the run with at most 3",
    async () => {
      const api = await foreignTenant(quirks);
      const managed = managedClients(60);
      const stack = await pacedStack(project, undo, api, managed, { runMs: RUN_MS });
      const result = await stack.run("up");
      expect(result.error, result.output).toBeUndefined();
      expect(converged(api, managed)).toBe(true);
      holdsTargets(api, `one up, ${what}`);
      if (quirks.pagesWithoutTotal !== true) return;
      // The refresh's reads find pages they cannot use and read singly: answered, in time.
      api.resetStats();
      const began = Date.now();
      const refreshed = await stack.run("refresh", { skipPreview: true });
      expect(refreshed.error, refreshed.output).toBeUndefined();
      process.stdout.write(`a refresh, ${what}: ${((Date.now() - began) / 1000).toFixed(1)} s\n`);
    },
    budget({ pulumi: 2 }, { pulumiOperation: RUN_MS }),
  );
});
