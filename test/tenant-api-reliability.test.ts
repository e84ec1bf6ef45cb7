/**
 * What the local tenant API does for the reliability tests of the provider: per-tenant rate
 * limiting as a token bucket, fault injection (5xx, latency, dropped connections), request
 * counting, and a restart on the same port with the same state.
 */

import { afterEach, describe, expect, it } from "vitest";
import {
  buildApp,
  createRandom,
  createServerContext,
  DEFAULT_SEED_IDS,
  isLoopback,
  parseFaultSpec,
  startTenantApi,
  type TenantApi,
  TokenBucket,
} from "../provider/local-tenant/index.js";
import {
  clientRoute,
  errorBody,
  expectErrorAnswer,
  PROVIDER,
  useTenantApi,
} from "./support/tenant-api-suite.js";
import { callApi, fetchToken } from "./support/test-client.js";

const WEB = clientRoute(DEFAULT_SEED_IDS.regularWeb);

describe("rate limiting per tenant as a token bucket", () => {
  const start = Date.UTC(2030, 0, 1, 12, 0, 0);
  let now = start;
  let api: TenantApi;
  let token: string;
  useTenantApi(
    { random: 4, clock: () => now, rateLimit: { rate: 1, burst: 3 } },
    (started, admin) => ([api, token] = [started, admin]),
    { reset: false },
  );

  afterEach(() => {
    now = start;
    api.setRateLimit({ rate: 1, burst: 3 });
  });

  it("sends x-ratelimit-limit, -remaining and -reset (UNIX seconds) on every answer", async () => {
    const first = await callApi(api, "GET", PROVIDER, { token });
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-limit")).toBe("3");
    expect(first.headers.get("x-ratelimit-remaining")).toBe("2");
    // One token used, refilled at 1 per second: full again one second from now.
    expect(first.headers.get("x-ratelimit-reset")).toBe(String(start / 1000 + 1));
  });

  it("counts down remaining and answers 429 too_many_requests past the burst", async () => {
    const remaining: Array<string | null> = [];
    for (let i = 0; i < 3; i += 1) {
      remaining.push(
        (await callApi(api, "GET", PROVIDER, { token })).headers.get("x-ratelimit-remaining"),
      );
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    const refused = await callApi(api, "GET", PROVIDER, { token });
    expectErrorAnswer(refused, 429, "too_many_requests", "Global limit has been reached");
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(refused.headers.get("x-ratelimit-reset")).toBe(String(start / 1000 + 3));
  });

  it("does not apply a request it refuses with 429", async () => {
    for (let i = 0; i < 3; i += 1) await callApi(api, "GET", PROVIDER, { token });
    const refused = await callApi(api, "PUT", PROVIDER, { token, json: { provider: "sns" } });
    expect(refused.status).toBe(429);
    expect(api.store.getProvider()).toBe("guardian");
  });

  it("refills at the configured rate", async () => {
    for (let i = 0; i < 3; i += 1) await callApi(api, "GET", PROVIDER, { token });
    expect((await callApi(api, "GET", PROVIDER, { token })).status).toBe(429);
    now += 1000;
    const after = await callApi(api, "GET", PROVIDER, { token });
    expect(after.status).toBe(200);
    expect(after.headers.get("x-ratelimit-remaining")).toBe("0");
  });

  it("limits before authenticating, and sends the headers on 401 and 501 answers too", async () => {
    const unauthorized = await callApi(api, "GET", PROVIDER);
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get("x-ratelimit-remaining")).toBe("2");
    const unserved = await callApi(api, "GET", "/api/v2/unknown", { token });
    expect(unserved.status).toBe(501);
    expect(unserved.headers.get("x-ratelimit-remaining")).toBe("1");
  });

  it("does not limit the token endpoint, which is the separate authentication API", async () => {
    for (let i = 0; i < 3; i += 1) await callApi(api, "GET", PROVIDER, { token });
    expect((await callApi(api, "GET", PROVIDER, { token })).status).toBe(429);
    const answer = await callApi(api, "POST", "/oauth/token", {
      form: {
        grant_type: "client_credentials",
        client_id: api.clientId,
        client_secret: api.clientSecret,
        audience: api.audience,
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-ratelimit-limit")).toBeNull();
  });

  it("reports a limit of 1000 and never refuses when rate limiting is off", async () => {
    api.setRateLimit(null);
    for (let i = 0; i < 5; i += 1) {
      const answer = await callApi(api, "GET", PROVIDER, { token });
      expect(answer.status).toBe(200);
      expect(answer.headers.get("x-ratelimit-limit")).toBe("1000");
      expect(answer.headers.get("x-ratelimit-remaining")).toBe("1000");
    }
  });

  it("computes Retry-After as whole seconds until one token, at least 1", () => {
    let clock = 0;
    const bucket = new TokenBucket(() => clock, { rate: 0.5, burst: 1 });
    expect(bucket.take()).toMatchObject({ allowed: true, remaining: 0, reset: 2 });
    clock = 500;
    expect(bucket.take()).toMatchObject({ allowed: false, retryAfter: 2, remaining: 0 });
    clock = 1900;
    expect(bucket.take()).toMatchObject({ allowed: false, retryAfter: 1 });
    clock = 2000;
    expect(bucket.take()).toMatchObject({ allowed: true });
  });

  it("defaults the burst to the rate rounded up", () => {
    const bucket = new TokenBucket(() => 0, { rate: 2.5 });
    expect(bucket.current()).toEqual({ rate: 2.5, burst: 3 });
  });
});

describe("fault injection", () => {
  let api: TenantApi;
  let token: string;
  useTenantApi({ random: 5 }, (started, admin) => ([api, token] = [started, admin]), {
    reset: false,
  });

  afterEach(() => {
    api.setFaults(null);
    api.store.reset();
    api.resetStats();
  });

  it("is off by default", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 20; i += 1)
      statuses.push((await callApi(api, "GET", PROVIDER, { token })).status);
    expect(new Set(statuses)).toEqual(new Set([200]));
  });

  it("answers 500 or 503 for the error share, in the platform's error shape", async () => {
    api.setFaults({ error: 1 });
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => callApi(api, "GET", PROVIDER, { token })),
    );
    const statuses = new Set(answers.map((a) => a.status));
    expect([...statuses].every((s) => s === 500 || s === 503)).toBe(true);
    const failure = answers.find((a) => a.status === 503) ?? answers[0];
    expect(failure?.body).toEqual(
      failure?.status === 503
        ? errorBody(503, "service_unavailable", "Service temporarily unavailable (injected fault)")
        : errorBody(500, "internal_error", "Internal error (injected fault)"),
    );
  });

  it("does not apply a request answered with an injected error", async () => {
    api.setFaults({ error: 1 });
    const answer = await callApi(api, "PUT", PROVIDER, { token, json: { provider: "direct" } });
    expect([500, 503]).toContain(answer.status);
    expect(api.store.getProvider()).toBe("guardian");
  });

  it("answers the token endpoint's injected errors in the OAuth shape", async () => {
    api.setFaults({ error: 1 });
    const answer = await callApi(api, "POST", "/oauth/token", { form: { grant_type: "x" } });
    expect([500, 503]).toContain(answer.status);
    expect(answer.body).toEqual(
      answer.status === 503
        ? {
            error: "temporarily_unavailable",
            error_description: "Service temporarily unavailable (injected fault)",
          }
        : { error: "server_error", error_description: "Internal error (injected fault)" },
    );
  });

  it("closes the connection without an answer for the drop share, and counts it", async () => {
    api.setFaults({ drop: 1 });
    await expect(callApi(api, "GET", PROVIDER, { token })).rejects.toThrow();
    expect(
      api.stats().counts[
        `GET /api/v2/guardian/factors/push-notification/selected-provider dropped`
      ],
    ).toBe(1);
    expect(api.stats().dropped).toBe(1);
  });

  it("adds latency drawn from the configured range", async () => {
    api.setFaults("latency=150-150");
    const started = performance.now();
    const answer = await callApi(api, "GET", PROVIDER, { token });
    expect(answer.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it("injects roughly the configured share of errors", async () => {
    api.setFaults("error=0.3");
    let failed = 0;
    for (let i = 0; i < 200; i += 1) {
      if ((await callApi(api, "GET", PROVIDER, { token })).status >= 500) failed += 1;
    }
    expect(failed).toBeGreaterThan(30);
    expect(failed).toBeLessThan(90);
  });

  it("repeats the same faults for the same random seed", async () => {
    const run = async (): Promise<number[]> => {
      const server = await startTenantApi({ random: 77, faults: "error=0.5" });
      try {
        const statuses: number[] = [];
        // The token endpoint draws from the same sequence, so it is part of the run.
        statuses.push((await callApi(server, "GET", "/.well-known/jwks.json")).status);
        const serverToken = await server.mintToken({ scopes: ["read:guardian_factors"] });
        for (let i = 0; i < 15; i += 1) {
          statuses.push((await callApi(server, "GET", PROVIDER, { token: serverToken })).status);
        }
        return statuses;
      } finally {
        await server.stop();
      }
    };
    const first = await run();
    expect(await run()).toEqual(first);
    expect(first.some((s) => s >= 500)).toBe(true);
    expect(first.some((s) => s === 200)).toBe(true);
  });

  it("never applies faults to the control routes", async () => {
    api.setFaults({ error: 1, drop: 0 });
    const answer = await callApi(api, "GET", "/__tenant-api/stats");
    expect(answer.status).toBe(200);
  });

  it("can be changed from outside with POST /__tenant-api/faults", async () => {
    const set = await callApi(api, "POST", "/__tenant-api/faults", {
      json: { spec: "error=1,latency=0-5" },
    });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ error: 1, drop: 0, latency: { min: 0, max: 5 } });
    expect([500, 503]).toContain((await callApi(api, "GET", PROVIDER, { token })).status);
    const off = await callApi(api, "POST", "/__tenant-api/faults", { json: {} });
    expect(off.body).toEqual({ error: 0, drop: 0, latency: { min: 0, max: 0 } });
    expect((await callApi(api, "GET", PROVIDER, { token })).status).toBe(200);
  });

  it("answers 400 invalid_body for a fault spec it cannot read", async () => {
    const answer = await callApi(api, "POST", "/__tenant-api/faults", {
      json: { spec: "eror=0.2" },
    });
    expectErrorAnswer(
      answer,
      400,
      "invalid_body",
      'faults: unknown key "eror" (expected error, drop or latency)',
    );
  });

  it("parses the CLI fault syntax error=0.2,drop=0.05,latency=0-300", () => {
    expect(parseFaultSpec("error=0.2,drop=0.05,latency=0-300")).toEqual({
      error: 0.2,
      drop: 0.05,
      latency: { min: 0, max: 300 },
    });
    expect(parseFaultSpec("latency=40")).toEqual({ latency: { min: 40, max: 40 } });
    expect(() => parseFaultSpec("error=2")).toThrow(
      "faults: error must be a share from 0 to 1, got 2",
    );
    expect(() => parseFaultSpec("latency=9-x")).toThrow(/latency must be/);
  });

  it("draws the same numbers from the same PRNG seed", () => {
    const a = createRandom(9);
    const b = createRandom(9);
    const draws = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(draws);
    expect(draws.every((x) => x >= 0 && x < 1)).toBe(true);
  });
});

describe("request counting", () => {
  let api: TenantApi;
  let token: string;
  useTenantApi(
    { random: 6 },
    (started, admin) => {
      api = started;
      token = admin;
      started.resetStats();
    },
    { reset: false },
  );

  afterEach(() => {
    api.resetStats();
    api.store.reset();
  });

  it("counts every request by method, route template and status", async () => {
    await callApi(api, "GET", WEB, { token });
    await callApi(api, "PATCH", WEB, { token, json: { sso: true } });
    await callApi(api, "PATCH", WEB, { token, json: { name: "<bad>" } });
    await callApi(api, "DELETE", `/api/v2/event-streams/${DEFAULT_SEED_IDS.webhookStream}`, {
      token,
    });
    const stats = api.stats();
    expect(stats.counts).toEqual({
      "GET /api/v2/clients/:id 200": 1,
      "PATCH /api/v2/clients/:id 200": 1,
      "PATCH /api/v2/clients/:id 400": 1,
      "DELETE /api/v2/event-streams/:id 204": 1,
    });
    expect(stats.byRoute["PATCH /api/v2/clients/:id"]).toBe(2);
    expect(stats.byStatus).toEqual({ "200": 2, "204": 1, "400": 1 });
    expect(stats).toMatchObject({ total: 4, api: 4, token: 0, dropped: 0 });
  });

  it("counts the token endpoint apart from the management API", async () => {
    await fetchToken(api);
    expect(api.stats()).toMatchObject({
      total: 1,
      api: 0,
      token: 1,
      counts: { "POST /oauth/token 200": 1 },
    });
  });

  it("shows zero API calls when nothing was sent, so a test can assert that preview made none", () => {
    expect(api.stats()).toEqual({
      total: 0,
      api: 0,
      token: 0,
      dropped: 0,
      counts: {},
      byRoute: {},
      byStatus: {},
      background: { total: 0, allowed: 0, refused: 0 },
      bucketLowest: null,
    });
  });

  it("serves the same counters from outside at GET /__tenant-api/stats without auth", async () => {
    await callApi(api, "GET", PROVIDER, { token });
    const outside = await callApi(api, "GET", "/__tenant-api/stats");
    expect(outside.status).toBe(200);
    expect(outside.body).toEqual(api.stats());
    expect(api.stats().total).toBe(1);
  });

  it("resets the counters from outside with DELETE /__tenant-api/stats", async () => {
    await callApi(api, "GET", PROVIDER, { token });
    expect((await callApi(api, "DELETE", "/__tenant-api/stats")).status).toBe(204);
    expect(api.stats().total).toBe(0);
  });

  it("refuses the control routes to a client that is not on loopback with 403", async () => {
    const { context } = await createServerContext({ random: 7 });
    const app = buildApp(context);
    try {
      const answer = await app.inject({
        method: "GET",
        url: "/__tenant-api/stats",
        remoteAddress: "192.0.2.10",
      });
      expect(answer.statusCode).toBe(403);
      expect(answer.json()).toEqual({
        statusCode: 403,
        error: "Forbidden",
        message: "The control routes answer loopback clients only",
        errorCode: "forbidden",
      });
      const local = await app.inject({
        method: "GET",
        url: "/__tenant-api/stats",
        remoteAddress: "127.0.0.1",
      });
      expect(local.statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it("recognises IPv4, IPv6 and mapped loopback addresses only", () => {
    expect(isLoopback("127.0.0.1")).toBe(true);
    expect(isLoopback("::1")).toBe(true);
    expect(isLoopback("::ffff:127.0.0.1")).toBe(true);
    expect(isLoopback("10.0.0.1")).toBe(false);
    expect(isLoopback("::ffff:10.0.0.1")).toBe(false);
    expect(isLoopback(undefined)).toBe(false);
  });

  it("exposes the tenant state and resets it from outside", async () => {
    await callApi(api, "PUT", PROVIDER, { token, json: { provider: "sns" } });
    const state = await callApi<{ pushProvider: string }>(api, "GET", "/__tenant-api/state");
    expect(state.body.pushProvider).toBe("sns");
    expect((await callApi(api, "POST", "/__tenant-api/reset")).status).toBe(204);
    expect(api.store.getProvider()).toBe("guardian");
  });

  it("changes the rate limit from outside with POST /__tenant-api/rate-limit", async () => {
    const set = await callApi(api, "POST", "/__tenant-api/rate-limit", {
      json: { rate: 5, burst: 8 },
    });
    expect(set.body).toEqual({ rateLimit: { rate: 5, burst: 8 } });
    const answer = await callApi(api, "GET", PROVIDER, { token });
    expect(answer.headers.get("x-ratelimit-limit")).toBe("8");
    const off = await callApi(api, "POST", "/__tenant-api/rate-limit", { json: {} });
    expect(off.body).toEqual({ rateLimit: null });
  });
});

describe("restart on the same port", () => {
  /**
   * A keep-alive connection pooled before the restart is closed by it, and the client may learn so
   * only when it reuses it: as with a real server, one retry on a connection error is the cure.
   */
  async function afterReconnect<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch {
      return call();
    }
  }

  it("keeps the port, the state and the signing key across a restart", async () => {
    const api = await startTenantApi({ random: 8 });
    try {
      const token = await fetchToken(api);
      await callApi(api, "PUT", PROVIDER, { token, json: { provider: "direct" } });
      await api.restart();
      const answer = await afterReconnect(() => callApi(api, "GET", PROVIDER, { token }));
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ provider: "direct" });
      expect(new URL(api.domain).port).toBe(String(api.port));
    } finally {
      await api.stop();
    }
  });

  it("refuses connections once stopped, and cannot be restarted after stop", async () => {
    const api = await startTenantApi({ random: 9 });
    await api.stop();
    await expect(callApi(api, "GET", "/.well-known/jwks.json")).rejects.toThrow();
    await expect(api.restart()).rejects.toThrow("the tenant API has been stopped");
  });
});
