/**
 * Sharing the tenant's rate limit with production (docs/guides/sharing-the-rate-limit.md), under
 * the real pulumi CLI with the packed package installed in a user's project: the clients-from-data
 * example against a local tenant of 10 requests/s with a bucket of 20, beside a production back end
 * that the local tenant runs on the same bucket (its background load, counted apart from the
 * program's requests).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startTenantApi,
  type TenantApi,
  type TenantApiOptions,
  type TenantApiRequest,
} from "../provider/local-tenant/index.js";
import { budget } from "./support/budgets.js";
import {
  type ConfigValues,
  installedExample,
  tenantConfig,
  undoAfterEach,
  usePackedPlugin,
  writesTo,
} from "./support/e2e.js";
import type { InstalledProject } from "./support/installed-package.js";
import {
  converged,
  type Managed,
  managedClients,
  type PacedStack,
  pacedStack,
} from "./support/paced-stack.js";
import { installPlugin } from "./support/plugin.js";
import { PulumiProject } from "./support/pulumi.js";

/** The tenant of the issue's measurement: 10 requests/s with a bucket of 20. */
const RATE_LIMIT = { rate: 10, burst: 20 };
/** A production back end reading one client at a time, 3 requests a second. */
const PRODUCTION = { rate: 3 };
/** Bound of one CLI command of a few dozen paced resources. */
const RUN_MS = 240_000;

const undo = undoAfterEach();
const plugin = usePackedPlugin();

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

/** A local tenant with `count` generated clients beyond the seed's, stopped after the test. */
async function tenant(count: number, options: TenantApiOptions = {}): Promise<TenantApi> {
  const api = await startTenantApi({ extraClients: count, rateLimit: RATE_LIMIT, ...options });
  undo(() => api.stop());
  return api;
}

/**
 * A stack of the installed program declaring `managed` against `api`, with `config` merged into the
 * stack config and `settings` into every entry (a `tenant` input, say): test/support/paced-stack.ts.
 */
function stack(
  api: TenantApi,
  managed: readonly Managed[],
  options: { name?: string; config?: ConfigValues; settings?: Record<string, unknown> } = {},
): Promise<PacedStack> {
  return pacedStack(project, undo, api, managed, { runMs: RUN_MS, ...options });
}

/**
 * Records, for each of several runs, when the first and the last request naming one of its clients
 * reached the tenant: how long its pacing took, apart from its CLI's start.
 */
function spans(runs: readonly (readonly Managed[])[]): {
  onRequest(request: TenantApiRequest): void;
  seconds(): number[];
} {
  const runOf = new Map(runs.flatMap((managed, n) => managed.map((m) => [m.clientId, n] as const)));
  const first: number[] = [];
  const last: number[] = [];
  return {
    onRequest: (request) => {
      const n = runOf.get(request.path.split("/").at(-1) ?? "");
      if (n === undefined) return;
      first[n] ??= performance.now();
      last[n] = performance.now();
    },
    seconds: () => runs.map((_, n) => ((last[n] ?? 0) - (first[n] ?? 0)) / 1000),
  };
}

/** Records when each management API request arrived, to read a ceiling's spacing. */
function arrivals(): { onRequest(request: TenantApiRequest): void; gapsMs(): number[] } {
  const times: number[] = [];
  return {
    onRequest: (request) => {
      if (request.area === "management") times.push(performance.now());
    },
    gapsMs: () => times.slice(1).map((at, i) => at - (times[i] as number)),
  };
}

describe("an up beside a production back end", () => {
  it(
    "leaves production without a 429 while 60 ClientSettings converge",
    async () => {
      const api = await tenant(60, { backgroundLoad: PRODUCTION });
      const managed = managedClients(60);
      const result = await (await stack(api, managed)).run("up");
      expect(result.error, result.output).toBeUndefined();
      expect(converged(api, managed)).toBe(true);
      const { background } = api.stats();
      expect(background.total).toBeGreaterThan(0);
      expect(background.refused).toBe(0);
    },
    budget({ pulumi: 1 }, { pulumiOperation: RUN_MS }),
  );

  it(
    "takes everything with tenant:rateLimitReserve 0 from the stack config, and production gets 429s",
    async () => {
      const api = await tenant(60, { backgroundLoad: PRODUCTION });
      const managed = managedClients(60);
      const s = await stack(api, managed, {
        config: { "tenant:rateLimitReserve": { value: "0" } },
      });
      const result = await s.run("up");
      expect(result.error, result.output).toBeUndefined();
      expect(converged(api, managed)).toBe(true);
      expect(api.stats().background.refused).toBeGreaterThan(0);
    },
    budget({ pulumi: 1 }, { pulumiOperation: RUN_MS }),
  );

  it(
    "keeps the reserve with two other ups of other stacks against the same tenant at once",
    async () => {
      const api = await tenant(90, { backgroundLoad: PRODUCTION });
      const parts = [0, 1, 2].map((n) => managedClients(30, 30 * n));
      const stacks = await Promise.all(
        parts.map((managed, n) => stack(api, managed, { name: `run-${n}` })),
      );
      const results = await Promise.all(stacks.map((s) => s.run("up")));
      for (const result of results) expect(result.error, result.output).toBeUndefined();
      expect(parts.every((managed) => converged(api, managed))).toBe(true);
      expect(api.stats().background.refused).toBe(0);
    },
    // The three ups run at once, so the test's steps take one up's bound (and its commands).
    budget({ pulumi: 3 }, { pulumiOperation: RUN_MS }),
  );

  it(
    "converges beside production that takes the whole bucket every two seconds",
    async () => {
      // Whatever the provider counted on, a burst can empty the bucket under requests already on
      // their way; those 429s are retried (test/api-client.test.ts, "retries a 429 after the time
      // the server asked for"). Whether any request meets one depends on where the bursts fall:
      // the count of the others' requests on the way often dodges them all, so none is required.
      const api = await tenant(30, { backgroundLoad: { rate: 10, burst: 20 } });
      const managed = managedClients(30);
      const result = await (await stack(api, managed)).run("up");
      expect(result.error, result.output).toBeUndefined();
      expect(converged(api, managed)).toBe(true);
      expect(writesTo(api)).toBeGreaterThanOrEqual(30);
    },
    budget({ pulumi: 1 }, { pulumiOperation: RUN_MS }),
  );
});

/**
 * Round trips to the tenant: loopback; 100 ms, as from a pipeline to a tenant in another region;
 * 300 ms, across the world or through a slow proxy. Half each way.
 */
describe.each([0, 100, 300])("a tenant a network away: a %i ms round trip", (roundTripMs) => {
  const DISTANT = roundTripMs === 0 ? undefined : { minMs: roundTripMs / 2 };
  /** Production reading 3/s in bursts of 3, through the same delay. */
  const BURSTY = { rate: 3, burst: 3 };
  /** The default reserve of a bucket of 20, less production's burst of 3 it may find it at. */
  const FLOOR = 5 - BURSTY.burst;

  /**
   * Prints the three figures of `what` (production's 429s, the runs' own, the bucket's lowest
   * level), holds production to none and the runs to at most 3, and returns the stats.
   */
  function threeFigures(api: TenantApi, what: string): ReturnType<TenantApi["stats"]> {
    const stats = api.stats();
    process.stdout.write(
      `${what} at a ${roundTripMs} ms round trip: production's 429s ${stats.background.refused} of ${stats.background.total}, ` +
        `the ${what.startsWith("one") ? "run's" : "runs'"} own 429s ${stats.byStatus["429"] ?? 0}, the bucket's lowest level ${stats.bucketLowest?.toFixed(2)}\n`,
    );
    expect(stats.background.total).toBeGreaterThan(0);
    expect(stats.background.refused).toBe(0);
    expect(stats.byStatus["429"] ?? 0).toBeLessThanOrEqual(3);
    return stats;
  }

  it(
    "leaves bursty production without a 429 while 60 ClientSettings converge, with few 429s of its own and the bucket kept at the reserve less production's burst",
    async () => {
      const api = await tenant(60, { backgroundLoad: BURSTY, networkDelay: DISTANT });
      const managed = managedClients(60);
      const result = await (await stack(api, managed)).run("up");
      expect(result.error, result.output).toBeUndefined();
      expect(converged(api, managed)).toBe(true);
      expect(threeFigures(api, "one up").bucketLowest).toBeGreaterThanOrEqual(FLOOR);
    },
    budget({ pulumi: 1 }, { pulumiOperation: RUN_MS }),
  );

  it(
    "leaves bursty production without a 429 beside three ups of other stacks at once, with few 429s of their own and the bucket never dry",
    async () => {
      const parts = [0, 1, 2].map((n) => managedClients(30, 30 * n));
      const paced = spans(parts);
      const api = await tenant(90, {
        backgroundLoad: BURSTY,
        networkDelay: DISTANT,
        onRequest: paced.onRequest,
      });
      const stacks = await Promise.all(
        parts.map((managed, n) => stack(api, managed, { name: `far-${n}` })),
      );
      const results = await Promise.all(
        stacks.map(async (s) => {
          const began = Date.now();
          const result = await s.run("up");
          return { ...result, seconds: (Date.now() - began) / 1000 };
        }),
      );
      for (const result of results) expect(result.error, result.output).toBeUndefined();
      process.stdout.write(
        `three ups at a ${roundTripMs} ms round trip took ${results.map((r) => r.seconds.toFixed(1)).join(", ")} s, ` +
          `their requests ${paced
            .seconds()
            .map((s) => s.toFixed(1))
            .join(", ")} s\n`,
      );
      expect(parts.every((managed) => converged(api, managed))).toBe(true);
      const stats = threeFigures(api, "three ups");
      // The bucket never ran dry. In the simulation three runs keep it at the reserve less
      // production's burst (FLOOR); under three real CLIs on a 2-core machine, whose event loops
      // send a request some time after deciding it, it went from 0.8 to 3.8 tokens over runs:
      // docs/design/decisions.md, "Sharing the rate limit".
      expect(stats.bucketLowest).toBeGreaterThan(0);
    },
    // The three ups run at once, so the test's steps take one up's bound (and its commands).
    budget({ pulumi: 3 }, { pulumiOperation: RUN_MS }),
  );
});

describe("a budget out of range", () => {
  it(
    "fails the preview naming tenant:rateLimitReserve once, and sends nothing",
    async () => {
      const api = await tenant(3);
      const managed = managedClients(3);
      const s = await stack(api, managed, {
        config: { "tenant:rateLimitReserve": { value: "1" } },
      });
      const result = await s.run("preview");
      expect(result.ok).toBe(false);
      const problem =
        "has a problem: tenant:rateLimitReserve must be the share of the tenant's rate limit left " +
        'to its other callers, from 0 (take everything) to below 1 (got "1")';
      // Once among the run's diagnostics (the progress display shows the same line above them).
      const diagnostics = result.output.split("Diagnostics:")[1] ?? "";
      expect(diagnostics.split(problem).length - 1, result.output).toBe(1);
      expect(api.stats().api).toBe(0);
    },
    budget({ pulumi: 1 }),
  );
});

describe("a ceiling on the run's own rate", () => {
  it(
    "holds to TENANT_MAX_REQUESTS_PER_SECOND, and says at info level when it held requests back for long",
    async () => {
      const log = arrivals();
      const api = await tenant(8, { onRequest: log.onRequest });
      const managed = managedClients(8);
      const result = await (await stack(api, managed)).run("up", {
        env: { TENANT_MAX_REQUESTS_PER_SECOND: "1" },
      });
      expect(result.error, result.output).toBeUndefined();
      expect(converged(api, managed)).toBe(true);
      // One request a second, less the jitter between a request's start and its arrival.
      expect(Math.min(...log.gapsMs())).toBeGreaterThan(900);
      expect(result.output).toMatch(
        /pulumi-tenant: \d+ requests? to http:\/\/127\.0\.0\.1:\d+ waited up to \d+\.\d s under this run's ceiling of 1 requests\/s \(TENANT_MAX_REQUESTS_PER_SECOND\); the tenant had \d+ of its 20 tokens left/,
      );
    },
    budget({ pulumi: 1 }, { pulumiOperation: RUN_MS }),
  );

  it(
    "holds to the maxRequestsPerSecond of a resource's tenant input",
    async () => {
      const log = arrivals();
      const api = await tenant(6, { onRequest: log.onRequest });
      const managed = managedClients(6);
      const connection = {
        domain: api.domain,
        clientId: api.clientId,
        clientSecret: api.clientSecret,
        maxRequestsPerSecond: 2,
      };
      const s = await stack(api, managed, { settings: { tenant: connection } });
      const result = await s.run("up");
      expect(result.error, result.output).toBeUndefined();
      expect(converged(api, managed)).toBe(true);
      expect(Math.min(...log.gapsMs())).toBeGreaterThan(400);
    },
    budget({ pulumi: 1 }, { pulumiOperation: RUN_MS }),
  );
});

describe("the provider plugin's config", () => {
  it(
    "holds a YAML program's calls to tenant:maxRequestsPerSecond",
    async () => {
      const log = arrivals();
      const api = await tenant(2, { onRequest: log.onRequest });
      const [client, other] = managedClients(2);
      const made = await PulumiProject.create({ program: yamlProgramDir() });
      undo(() => made.remove());
      const config: ConfigValues = {
        ...tenantConfig(api),
        "tenant:maxRequestsPerSecond": { value: "2" },
        "paced:clientId": { value: client?.clientId ?? "" },
        "paced:otherClientId": { value: other?.clientId ?? "" },
      };
      await made.run("preview", config);
      await installPlugin(made, plugin());
      const result = await made.run("up", config, { timeoutMs: RUN_MS });
      expect(result.error, result.output).toBeUndefined();
      expect(api.store.getProvider()).toBe("sns");
      expect(log.gapsMs().length).toBeGreaterThan(1);
      expect(Math.min(...log.gapsMs())).toBeGreaterThan(400);
    },
    budget({ pulumi: 2, pulumiCommands: 1 }, { pulumiOperation: RUN_MS }),
  );
});

/** test/fixtures/paced-yaml: a YAML program of a push provider and two clients. */
function yamlProgramDir(): string {
  return join(__dirname, "fixtures", "paced-yaml");
}
