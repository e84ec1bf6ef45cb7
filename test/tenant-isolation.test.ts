import { afterEach, describe, expect, it, vi } from "vitest";
import type { OperationContext } from "../provider/api/operation.js";
import { DEFAULT_PACING_BUDGET, type PacingBudget } from "../provider/api/pacing-budget.js";
import { getTenantClient } from "../provider/api/tenants.js";
import type { Credentials, TenantSettings } from "../provider/config.js";
import { TenantTimeoutError } from "../provider/errors.js";
import { startTenantApi, type TenantApi } from "../provider/local-tenant/index.js";
import { type ScriptedServer, startScriptedServer } from "./support/scripted-server.js";

/**
 * Two tenants in one provider process (as two tenant inputs in one program) never share a rate
 * limiter, a token or a retry: the process-wide registry (`getTenantClient`) keys limiters by
 * origin and clients by origin and credentials. Resources of one tenant share its limiter, and
 * one that asks for a less polite budget than the one that holds is told so once.
 */

const SELECTION = "/guardian/factors/push-notification/selected-provider";

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function tenantApi(): Promise<TenantApi> {
  const api = await startTenantApi();
  stops.push(() => api.stop());
  return api;
}

async function scripted(route: Parameters<typeof startScriptedServer>[0]): Promise<ScriptedServer> {
  const server = await startScriptedServer(route);
  stops.push(() => server.stop());
  return server;
}

function settings(origin: string, credentials: Credentials): TenantSettings {
  return {
    origin,
    baseUrl: `${origin}/api/v2`,
    credentials,
    requestTimeoutMs: 5_000,
    operationTimeoutMs: 30_000,
    budget: DEFAULT_PACING_BUDGET,
  };
}

function clientCredentials(api: TenantApi, as: "admin" | "readOnly" = "admin"): TenantSettings {
  const { clientId, clientSecret } = as === "admin" ? api : api.readOnly;
  return settings(api.domain, {
    kind: "clientCredentials",
    clientId,
    clientSecret,
    audience: api.audience,
    tokenUrl: api.tokenUrl,
  });
}

function context(signal: AbortSignal, deadlineMs = 30_000): OperationContext {
  return { resource: 'PushProviderSelection "mfa-push"', signal, deadlineMs };
}

describe("the tenant client registry", () => {
  // First in the file: the registry lives as long as the process, and a limiter shared by mistake
  // would already have learned a fast rate from the other tests' tenants and hide the fault.
  it("lets one tenant's calls through while another's wait out a 429", async () => {
    let rateLimited: () => void = () => {};
    const limitedSeen = new Promise<void>((resolve) => {
      rateLimited = resolve;
    });
    const now = Math.floor(Date.now() / 1000);
    const busy = await scripted(() => {
      rateLimited();
      return {
        status: 429,
        body: { statusCode: 429, error: "Too Many Requests", errorCode: "too_many_requests" },
        headers: {
          "retry-after": "600",
          "x-ratelimit-limit": "1",
          "x-ratelimit-remaining": "0",
          "x-ratelimit-reset": String(now + 600),
        },
      };
    });
    const idle = await scripted(() => ({
      status: 200,
      body: { provider: "sns" },
      headers: {
        "x-ratelimit-limit": "50",
        "x-ratelimit-remaining": "49",
        "x-ratelimit-reset": String(now + 1),
      },
    }));

    const waiting = new AbortController();
    let busySettled = false;
    const busyCall = getTenantClient(settings(busy.url, { kind: "apiToken", token: "t-busy" }))
      .call(context(waiting.signal), { method: "GET", path: SELECTION })
      .finally(() => {
        busySettled = true;
      });
    await limitedSeen;

    // Were the limiter shared, the busy tenant's empty bucket (refilled in 600 s) would hold these
    // calls until their own 10 s deadline, and they would fail.
    const idleClient = getTenantClient(settings(idle.url, { kind: "apiToken", token: "t-idle" }));
    const idleSignal = AbortSignal.timeout(10_000);
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        idleClient.call(context(idleSignal, 10_000), { method: "GET", path: SELECTION }),
      ),
    );

    expect(answers.map((answer) => answer.data)).toEqual([
      { provider: "sns" },
      { provider: "sns" },
      { provider: "sns" },
    ]);
    expect(busySettled).toBe(false);
    expect(busy.seen).toHaveLength(1);

    waiting.abort();
    await expect(busyCall).rejects.toBeInstanceOf(TenantTimeoutError);
  });

  it("gives each tenant its own client, and each set of credentials of a tenant its own", async () => {
    const [a, b] = await Promise.all([tenantApi(), tenantApi()]);
    expect(getTenantClient(clientCredentials(a))).toBe(getTenantClient(clientCredentials(a)));
    expect(getTenantClient(clientCredentials(a))).not.toBe(getTenantClient(clientCredentials(b)));
    expect(getTenantClient(clientCredentials(a))).not.toBe(
      getTenantClient(clientCredentials(a, "readOnly")),
    );
  });

  it("fetches one token per tenant and never shows one tenant's token to the other", async () => {
    const [a, b] = await Promise.all([tenantApi(), tenantApi()]);
    const signal = AbortSignal.timeout(30_000);
    const calls = [a, b, a, b].map((api) =>
      getTenantClient(clientCredentials(api)).call(context(signal), {
        method: "GET",
        path: SELECTION,
      }),
    );
    const answers = await Promise.all(calls);

    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    for (const api of [a, b]) {
      expect(api.stats().token).toBe(1);
      // A token of the other tenant would have been refused (each signs its own) with a 401.
      expect(api.stats().byStatus["401"]).toBeUndefined();
    }
  });
});

describe("the budget the resources of one tenant share", () => {
  /** The lines the registry writes to stderr while `body` runs. */
  function said(body: () => void): string[] {
    const lines: string[] = [];
    const write = vi.spyOn(process.stderr, "write").mockImplementation((text) => {
      lines.push(String(text));
      return true;
    });
    try {
      body();
    } finally {
      write.mockRestore();
    }
    return lines;
  }

  /** Settings of the tenant at `origin` that ask for `budget`. */
  function asking(origin: string, budget: PacingBudget): TenantSettings {
    return { ...settings(origin, { kind: "apiToken", token: "t" }), budget };
  }

  const TAKE_ALL: PacingBudget = { reserveShare: 0, maxRequestsPerSecond: undefined };

  it("tells once, naming the resource, that the more polite budget holds when one asks for a reserve of 0 beside one on the default", () => {
    const origin = "https://reserve-first.example";
    const lines = said(() => {
      getTenantClient(asking(origin, TAKE_ALL), 'ClientSettings "fast"');
      getTenantClient(asking(origin, DEFAULT_PACING_BUDGET), 'ClientSettings "web"');
      getTenantClient(asking(origin, TAKE_ALL), 'ClientSettings "faster"');
      getTenantClient(asking(origin, DEFAULT_PACING_BUDGET), 'ClientSettings "portal"');
    });
    expect(lines).toEqual([
      'pulumi-tenant: ClientSettings "fast" asks https://reserve-first.example for rateLimitReserve 0, but others of this run keep 0.25; the more polite budget holds for all of them\n',
    ]);
  });

  it("names the resource that asks for less after the more polite budget reached the tenant", () => {
    const origin = "https://reserve-later.example";
    const lines = said(() => {
      getTenantClient(asking(origin, DEFAULT_PACING_BUDGET), 'ClientSettings "web"');
      getTenantClient(asking(origin, TAKE_ALL), 'PushProviderSelection "mfa-push"');
    });
    expect(lines).toEqual([
      'pulumi-tenant: PushProviderSelection "mfa-push" asks https://reserve-later.example for rateLimitReserve 0, but others of this run keep 0.25; the more polite budget holds for all of them\n',
    ]);
  });

  it("names the reserve and the ceiling that gave way in one sentence", () => {
    const origin = "https://ceiling.example";
    const lines = said(() => {
      getTenantClient(
        asking(origin, { reserveShare: 0.25, maxRequestsPerSecond: 5 }),
        'ClientSettings "web"',
      );
      getTenantClient(asking(origin, TAKE_ALL), 'ClientSettings "fast"');
    });
    expect(lines).toEqual([
      'pulumi-tenant: ClientSettings "fast" asks https://ceiling.example for rateLimitReserve 0 and no maxRequestsPerSecond, but others of this run keep 0.25 and 5; the more polite budget holds for all of them\n',
    ]);
  });

  it("tells only the tenant whose budget gave way, not one whose resources ask for the same", () => {
    const agreeing = "https://same-budget.example";
    const lines = said(() => {
      getTenantClient(asking(agreeing, TAKE_ALL), 'ClientSettings "a"');
      getTenantClient(asking(agreeing, TAKE_ALL), 'ClientSettings "b"');
      getTenantClient(asking("https://gave-way.example", DEFAULT_PACING_BUDGET), "web");
      getTenantClient(asking("https://gave-way.example", TAKE_ALL), 'ClientSettings "c"');
    });
    expect(lines).toEqual([
      'pulumi-tenant: ClientSettings "c" asks https://gave-way.example for rateLimitReserve 0, but others of this run keep 0.25; the more polite budget holds for all of them\n',
    ]);
  });
});
