import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { bucketOf, NO_ROUTES, routed, routeGroup } from "../provider/api/pacing-buckets.js";
import {
  DEFAULT_PACING_BUDGET,
  type PacingBudget,
  TAKE_EVERYTHING,
} from "../provider/api/pacing-budget.js";
import {
  parseRateLimitHeaders,
  type RateLimitHeaders,
} from "../provider/api/rate-limit-headers.js";
import { TenantRateLimiter, type Ticket } from "../provider/api/rate-limiter.js";

/** The server side of the model: the platform's token bucket, on the same fake clock. */
class ServerBucket {
  private tokens: number;
  private at = Date.now();
  /** The lowest level the bucket reached just after a request took a token. */
  lowest: number;
  constructor(
    private readonly rate: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
    this.lowest = burst;
  }
  take(): { status: number; headers: RateLimitHeaders } {
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) / 1000) * this.rate);
    this.at = now;
    const ok = this.tokens >= 1;
    if (ok) this.tokens -= 1;
    this.lowest = Math.min(this.lowest, this.tokens);
    const reset = Math.ceil(now / 1000 + (this.burst - this.tokens) / this.rate);
    return {
      status: ok ? 200 : 429,
      headers: { limit: this.burst, remaining: Math.floor(this.tokens), reset },
    };
  }
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_700_000_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Whether the promise has settled, after letting pending microtasks run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

/**
 * A limiter that has let one request out and heard its answer's rate-limit headers: `limit`,
 * `remaining`, and a reset `resetIn` seconds from now.
 */
async function afterFirstAnswer(
  headers: { limit: number; remaining: number; resetIn: number },
  budget: PacingBudget = TAKE_EVERYTHING,
): Promise<TenantRateLimiter> {
  const limiter = new TenantRateLimiter({ budget });
  await limiter.acquire();
  limiter.release({
    limit: headers.limit,
    remaining: headers.remaining,
    reset: Date.now() / 1000 + headers.resetIn,
  });
  return limiter;
}

describe("TenantRateLimiter taking everything (a reserve of 0)", () => {
  it("lets a single request out before any answer has told it the bucket size", async () => {
    const limiter = new TenantRateLimiter({ budget: TAKE_EVERYTHING });
    await limiter.acquire();
    expect(await settled(limiter.acquire())).toBe(false);
  });

  it("lets out as many requests as the server says tokens remain", async () => {
    const limiter = await afterFirstAnswer({ limit: 20, remaining: 19, resetIn: 1 });
    const burst = Array.from({ length: 19 }, () => limiter.acquire());
    expect(await settled(Promise.all(burst))).toBe(true);
    expect(await settled(limiter.acquire())).toBe(false);
  });

  it("learns the refill rate as a lower bound from the reset time", async () => {
    // No whole token left of 21: more than 20 missing, full again in 2 s: at least 10 per second.
    const limiter = await afterFirstAnswer({ limit: 21, remaining: 0, resetIn: 2 });
    expect(limiter.state().rate).toBeCloseTo(10, 6);
  });

  it("learns the rate from when the request went out, so an answer read late does not speed it up", async () => {
    const limiter = new TenantRateLimiter({ budget: TAKE_EVERYTHING });
    const ticket = await limiter.acquire();
    // The server counted the request as it arrived: more than 20 tokens missing, full in 2 s.
    const reset = ticket.sentAt / 1000 + 2;
    await vi.advanceTimersByTimeAsync(300);
    limiter.release({ limit: 21, remaining: 0, reset }, 200, ticket);
    expect(limiter.state().rate).toBeCloseTo(10, 6);
  });

  it("learns no rate above the tenant's from a remaining rounded down", async () => {
    // The tenant refills 2 tokens a second. After this request it holds 0.9 tokens, so it answers
    // remaining 0 and a reset 4.75 s away (4.55 s rounded up): 10 missing in 4.75 s would be 2.1/s.
    const server = new ServerBucket(2, 10);
    await vi.advanceTimersByTimeAsync(300);
    for (let drained = 0; drained < 10; drained += 1) server.take();
    await vi.advanceTimersByTimeAsync(950);
    const limiter = new TenantRateLimiter({ budget: TAKE_EVERYTHING });
    const ticket = await limiter.acquire();
    const answer = server.take();
    limiter.release(answer.headers, answer.status, ticket);
    expect(answer.headers.remaining).toBe(0);
    expect(limiter.state().rate).toBeLessThanOrEqual(2);
  });

  it("never paces below 2/s, the platform's slowest plan, whatever a coarse answer implies", async () => {
    // A bucket of 2 with no whole token left, full in 1.5 s: the bound is 1 token in 1.5 s.
    const limiter = await afterFirstAnswer({ limit: 2, remaining: 0, resetIn: 1.5 });
    expect(limiter.state().rate).toBe(2);
  });

  it("counts tokens from the answer to the latest request, not from one overtaken by it", async () => {
    const limiter = await afterFirstAnswer({ limit: 20, remaining: 10, resetIn: 1 });
    const earlier = await limiter.acquire();
    await vi.advanceTimersByTimeAsync(1);
    const later = await limiter.acquire();
    const reset = Date.now() / 1000 + 1;
    // The later request's answer arrives first: 2 tokens left, the earlier request already
    // counted (it reached the tenant first), though its answer is still on the way. That answer,
    // arriving after it, says 3: older news.
    limiter.release({ limit: 20, remaining: 2, reset }, 200, later);
    limiter.release({ limit: 20, remaining: 3, reset }, 200, earlier);
    expect(limiter.state().tokens).toBeCloseTo(2, 1);
  });

  it("keeps the largest lower bound, so a rounded-up reset does not slow it down", async () => {
    const limiter = await afterFirstAnswer({ limit: 21, remaining: 0, resetIn: 2 });
    const next = limiter.acquire();
    await vi.advanceTimersByTimeAsync(200);
    await next;
    limiter.release({ limit: 21, remaining: 0, reset: Date.now() / 1000 + 2.5 });
    expect(limiter.state().rate).toBeCloseTo(10, 6);
  });

  it("serves waiters first come, first served as tokens refill", async () => {
    const limiter = await afterFirstAnswer({ limit: 10, remaining: 0, resetIn: 1 });
    const order: number[] = [];
    const waiting = [1, 2, 3].map((n) => limiter.acquire().then(() => order.push(n)));
    await vi.advanceTimersByTimeAsync(350);
    await Promise.all(waiting);
    expect(order).toEqual([1, 2, 3]);
  });

  it("rejects a waiter whose signal aborts and lets the next one go", async () => {
    const limiter = await afterFirstAnswer({ limit: 11, remaining: 0, resetIn: 1 });
    const controller = new AbortController();
    const first = limiter.acquire(controller.signal);
    const second = limiter.acquire();
    controller.abort(new Error("deadline"));
    await expect(first).rejects.toThrowError("deadline");
    await vi.advanceTimersByTimeAsync(100);
    expect(await settled(second)).toBe(true);
    expect(limiter.state().queued).toBe(0);
  });

  it("empties its bucket when the server answers 429", async () => {
    const limiter = new TenantRateLimiter({ budget: TAKE_EVERYTHING });
    await limiter.acquire();
    limiter.release({ limit: 20, remaining: 5, reset: Date.now() / 1000 + 2 }, 429);
    expect(limiter.state().tokens).toBeLessThanOrEqual(0);
  });

  it("stops limiting a tenant whose answers carry no rate-limit headers", async () => {
    const limiter = new TenantRateLimiter({ budget: TAKE_EVERYTHING });
    await limiter.acquire();
    limiter.release({}, 200);
    const many = Array.from({ length: 100 }, () => limiter.acquire());
    expect(await settled(Promise.all(many))).toBe(true);
  });

  it.each([
    { rate: 10, burst: 20, workers: 16 },
    { rate: 10, burst: 20, workers: 64 },
    { rate: 2, burst: 10, workers: 16 },
    { rate: 16, burst: 50, workers: 64 },
  ])(
    "paces 200 requests from $workers workers to a $rate/s bucket of $burst without a 429, within 10% of the floor",
    async ({ rate, burst, workers }) => {
      const server = new ServerBucket(rate, burst);
      const limiter = new TenantRateLimiter({ budget: TAKE_EVERYTHING });
      const total = 200;
      let sent = 0;
      let rejected = 0;
      const started = Date.now();
      const worker = async (): Promise<void> => {
        while (sent < total) {
          sent += 1;
          await limiter.acquire();
          await new Promise((resolve) => setTimeout(resolve, 25)); // time on the wire
          const answer = server.take();
          if (answer.status === 429) rejected += 1;
          limiter.release(answer.headers, answer.status);
        }
      };
      let finished = 0;
      const run = Promise.all(Array.from({ length: workers }, worker)).then(() => {
        finished = Date.now();
      });
      await vi.advanceTimersByTimeAsync(200_000);
      await run;
      const floor = (total - burst) / rate; // the burst is free, the rest comes at the rate
      expect(rejected).toBe(0);
      const ratio = (finished - started) / 1000 / floor;
      expect(ratio).toBeLessThan(1.1);
    },
  );
});

describe("parseRateLimitHeaders", () => {
  it("reads the three headers as numbers", () => {
    expect(
      parseRateLimitHeaders({
        "x-ratelimit-limit": "50",
        "x-ratelimit-remaining": "49",
        "x-ratelimit-reset": "1700000001",
      }),
    ).toEqual({ limit: 50, remaining: 49, reset: 1_700_000_001 });
  });

  it("leaves absent or malformed headers undefined", () => {
    expect(parseRateLimitHeaders({ "x-ratelimit-limit": "lots" })).toEqual({
      limit: undefined,
      remaining: undefined,
      reset: undefined,
    });
  });

  it("reads a repeated header whose copies say the same number as that number", () => {
    expect(parseRateLimitHeaders({ "x-ratelimit-limit": "10, 10" }).limit).toBe(10);
    expect(parseRateLimitHeaders({ "x-ratelimit-limit": ["10", "10"] }).limit).toBe(10);
  });

  it("leaves undefined a repeated header whose copies differ, an empty one and a number in another notation", () => {
    for (const raw of ["10, 20", "", " ", "0x10", "1e3", "Infinity", ["10", "11"]]) {
      expect(parseRateLimitHeaders({ "x-ratelimit-remaining": raw }).remaining).toBeUndefined();
    }
  });

  it("reads the tenant's clock from the Date header", () => {
    expect(parseRateLimitHeaders({ date: "Tue, 14 Nov 2023 22:13:20 GMT" }).date).toBe(
      1_700_000_000_000,
    );
  });
});

/**
 * A tenant of `rate`/s with a bucket of `burst`, and a production back end reading at
 * `background`/s, `backgroundBurst` requests at a time (default 1, evenly spaced).
 */
interface SharedTenant {
  readonly rate: number;
  readonly burst: number;
  readonly background: number;
  readonly backgroundBurst?: number;
}

/** What a shared run did: the three figures of docs/design/decisions.md, and each run's time. */
interface SharedOutcome {
  /** The runs' own 429s (they retry them). */
  readonly ownRejected: number;
  /** Production's 429s. */
  readonly backgroundRejected: number;
  /** The lowest level the bucket reached, in tokens. */
  readonly lowest: number;
  /** Until the last run finished, in seconds. */
  readonly seconds: number;
  /** Each run's time, in seconds. */
  readonly runSeconds: readonly number[];
}

/**
 * Runs `runs` processes at once against one simulated tenant, each with its own limiter of
 * `budget` and `workers` requests in flight, `perRun` requests each, while production reads at
 * `background`/s in bursts. A request travels `oneWayMs` to the tenant, which counts it on
 * arrival, and its answer as long back (default 25 ms the way in and none back, as on loopback
 * with a busy server); 429s are retried as the provider does, after the limiter lets them go.
 */
async function shareTenant(
  tenant: SharedTenant,
  options: {
    runs: number;
    workers: number;
    perRun: number;
    budget: PacingBudget;
    oneWayMs?: number;
  },
): Promise<SharedOutcome> {
  const server = new ServerBucket(tenant.rate, tenant.burst);
  const wayIn = options.oneWayMs ?? 25;
  const wayBack = options.oneWayMs ?? 0;
  const backgroundBurst = tenant.backgroundBurst ?? 1;
  let backgroundRejected = 0;
  const production = setInterval(
    () => {
      for (let n = 0; n < backgroundBurst; n += 1) {
        if (server.take().status === 429) backgroundRejected += 1;
      }
    },
    (1000 * backgroundBurst) / tenant.background,
  );
  let ownRejected = 0;
  const started = Date.now();
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const run = async (): Promise<number> => {
    const limiter = new TenantRateLimiter({ budget: options.budget });
    let done = 0;
    let taken = 0;
    const worker = async (): Promise<void> => {
      while (taken < options.perRun) {
        taken += 1;
        for (let attempt = 0; attempt < 50; attempt += 1) {
          const ticket = await limiter.acquire();
          await wait(wayIn);
          const answer = server.take();
          await wait(wayBack);
          limiter.release(answer.headers, answer.status, ticket);
          if (answer.status !== 429) break;
          ownRejected += 1;
        }
        done += 1;
      }
    };
    await Promise.all(Array.from({ length: options.workers }, worker));
    expect(done).toBe(options.perRun);
    return (Date.now() - started) / 1000;
  };
  let finished = 0;
  const all = Promise.all(Array.from({ length: options.runs }, run)).then((times) => {
    finished = Date.now();
    clearInterval(production);
    return times;
  });
  await vi.advanceTimersByTimeAsync(300_000);
  const runSeconds = await all;
  return {
    ownRejected,
    backgroundRejected,
    lowest: server.lowest,
    seconds: (finished - started) / 1000,
    runSeconds,
  };
}

describe("TenantRateLimiter with a reserve", () => {
  const tenant: SharedTenant = { rate: 10, burst: 20, background: 3 };
  /** The floor production leaves: the bucket is free, the rest comes at rate - background. */
  const floor = (total: number, shared: SharedTenant = tenant): number =>
    (total - shared.burst) / (shared.rate - shared.background);

  it("does not throttle a tenant whose answers carry no rate-limit headers, whatever the reserve", async () => {
    // A proxy that strips the headers, or a tenant region without them: no figures, no reserve,
    // no window, as before the reserve existed.
    const limiter = new TenantRateLimiter();
    const ticket = await limiter.acquire();
    limiter.release({}, 200, ticket);
    const many = Array.from({ length: 100 }, () => limiter.acquire());
    expect(await settled(Promise.all(many))).toBe(true);
  });

  it("keeps a quarter of the bucket by default", () => {
    expect(new TenantRateLimiter().state().budget).toEqual(DEFAULT_PACING_BUDGET);
    expect(DEFAULT_PACING_BUDGET.reserveShare).toBe(0.25);
  });

  it("lets out the tokens of a full bucket down to the reserve, and no more", async () => {
    const server = new ServerBucket(2, 20);
    const limiter = new TenantRateLimiter();
    let sent = 0;
    // No time passes, so nothing refills: 20 tokens less a reserve of 5 is 15 requests.
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const next = limiter.acquire();
      if (!(await settled(next))) break;
      const answer = server.take();
      limiter.release(answer.headers, answer.status, await next);
      sent += 1;
    }
    expect(sent).toBe(15);
  });

  it("sends nothing that the latest answer says would take the bucket below the reserve", async () => {
    const limiter = await afterFirstAnswer(
      { limit: 20, remaining: 5, resetIn: 2 },
      DEFAULT_PACING_BUDGET,
    );
    expect(await settled(limiter.acquire())).toBe(false);
  });

  it("waits for the refill, not for an answer, once the reserve is all that is left", async () => {
    // 14 of 21 missing, full in 1.4 s: 10 tokens a second; 6 left, all of them the reserve.
    const limiter = await afterFirstAnswer(
      { limit: 21, remaining: 6, resetIn: 1.4 },
      DEFAULT_PACING_BUDGET,
    );
    const next = limiter.acquire();
    expect(await settled(next)).toBe(false);
    await vi.advanceTimersByTimeAsync(110);
    expect(await settled(next)).toBe(true);
  });

  it("holds to this run's ceiling in requests per second", async () => {
    const limiter = await afterFirstAnswer(
      { limit: 50, remaining: 49, resetIn: 1 },
      { reserveShare: 0, maxRequestsPerSecond: 4 },
    );
    const sent: number[] = [];
    const requests = Array.from({ length: 5 }, () =>
      limiter.acquire().then((ticket: Ticket) => sent.push(ticket.sentAt)),
    );
    await vi.advanceTimersByTimeAsync(2000);
    await Promise.all(requests);
    const gaps = sent.slice(1).map((at, i) => at - (sent[i] as number));
    expect(gaps.every((gap) => gap >= 250)).toBe(true);
  });

  it("sleeps through a ceiling too small for Node's timer instead of waking every millisecond", async () => {
    let looks = 0;
    const limiter = new TenantRateLimiter({
      budget: { reserveShare: 0.25, maxRequestsPerSecond: 1e-9 },
      now: () => {
        looks += 1;
        return Date.now();
      },
    });
    const first = await limiter.acquire();
    limiter.release({ limit: 20, remaining: 19, reset: Date.now() / 1000 }, 200, first);
    const second = limiter.acquire();
    const before = looks;
    await vi.advanceTimersByTimeAsync(1000);
    expect(looks - before).toBeLessThan(5);
    expect(await settled(second)).toBe(false);
  });

  it("takes the larger reserve and the lower ceiling when resources of one tenant ask for different budgets", () => {
    const limiter = new TenantRateLimiter({
      budget: { reserveShare: 0.1, maxRequestsPerSecond: 8 },
    });
    limiter.useBudget({ reserveShare: 0.4, maxRequestsPerSecond: undefined });
    limiter.useBudget({ reserveShare: 0.2, maxRequestsPerSecond: 5 });
    expect(limiter.state().budget).toEqual({ reserveShare: 0.4, maxRequestsPerSecond: 5 });
  });

  it("learns what the tenant's other callers take from the answers", async () => {
    const server = new ServerBucket(10, 20);
    const production = setInterval(() => server.take(), 250);
    const limiter = new TenantRateLimiter();
    const loop = async (): Promise<void> => {
      for (let n = 0; n < 60; n += 1) {
        const ticket = await limiter.acquire();
        const answer = server.take();
        limiter.release(answer.headers, answer.status, ticket);
      }
    };
    const done = loop();
    await vi.advanceTimersByTimeAsync(20_000);
    await done;
    clearInterval(production);
    expect(limiter.state().othersRate).toBeGreaterThan(3);
    expect(limiter.state().othersRate).toBeLessThan(5);
  });

  it.each([
    { workers: 16, background: 3 },
    { workers: 64, background: 3 },
    { workers: 16, background: 6 },
  ])(
    "leaves a production reading at $background/s without a 429 beside 200 requests from $workers workers, within 10% of the floor it leaves",
    async ({ workers, background }) => {
      const shared = { ...tenant, background };
      const result = await shareTenant(shared, {
        runs: 1,
        workers,
        perRun: 200,
        budget: DEFAULT_PACING_BUDGET,
      });
      expect(result.backgroundRejected).toBe(0);
      expect(result.ownRejected).toBe(0);
      expect(result.seconds / floor(200, shared)).toBeLessThan(1.1);
    },
  );

  it("keeps the reserve together with two other runs at once, with no channel but the answers, within 15% of the floor", async () => {
    const result = await shareTenant(tenant, {
      runs: 3,
      workers: 16,
      perRun: 70,
      budget: DEFAULT_PACING_BUDGET,
    });
    expect(result.backgroundRejected).toBe(0);
    expect(result.seconds / floor(210)).toBeLessThan(1.15);
  });

  /** Production in bursts of 3 at 3/s: the reserve of 5 less one such burst is what may be left. */
  const bursty: SharedTenant = { ...tenant, backgroundBurst: 3 };
  /** `runs` runs of `perRun` requests on the default budget beside bursty production. */
  const besideBursts = (runs: number, perRun: number, oneWayMs: number) =>
    shareTenant(bursty, { runs, workers: 16, perRun, budget: DEFAULT_PACING_BUDGET, oneWayMs });

  it.each([0, 50, 150])(
    "keeps the reserve for production reading in bursts beside one run of 200 at %i ms each way: no 429 for either, the bucket never below the reserve less production's burst",
    async (oneWayMs) => {
      const result = await besideBursts(1, 200, oneWayMs);
      expect(result.backgroundRejected).toBe(0);
      expect(result.ownRejected).toBe(0);
      expect(result.lowest).toBeGreaterThanOrEqual(5 - 3);
      expect(result.seconds / floor(200, bursty)).toBeLessThan(1.1);
    },
  );

  it.each([0, 50, 150])(
    "gives production in bursts no 429 beside three runs of 70 at %i ms each way, the runs none of their own, and keeps the bucket at the reserve less production's burst",
    async (oneWayMs) => {
      const result = await besideBursts(3, 70, oneWayMs);
      expect(result.backgroundRejected).toBe(0);
      expect(result.ownRejected).toBe(0);
      // Within the refill's floating-point sums: at 0 ms the bucket touched 2 tokens exactly.
      expect(result.lowest).toBeGreaterThan(5 - 3 - 1e-9);
      expect(result.seconds / floor(210, bursty)).toBeLessThan(1.15);
    },
  );

  it.each([0, 50, 150])(
    "shares the tenant fairly among three runs at %i ms each way: the slowest within 1.2 x the fastest",
    async (oneWayMs) => {
      const result = await besideBursts(3, 70, oneWayMs);
      const times = result.runSeconds;
      expect(Math.max(...times) / Math.min(...times)).toBeLessThanOrEqual(1.2);
    },
  );

  it("gives production 429s when it takes everything, as a reserve of 0 asks", async () => {
    const result = await shareTenant(tenant, {
      runs: 1,
      workers: 16,
      perRun: 200,
      budget: TAKE_EVERYTHING,
    });
    expect(result.backgroundRejected).toBeGreaterThan(0);
  });

  it("reports a long wait once, naming the tenant's rate and what the reserve adds to it, with what the tenant had left", async () => {
    const lines: string[] = [];
    const limiter = new TenantRateLimiter({
      origin: "https://acme.example",
      report: (line) => lines.push(line),
    });
    const ticket = await limiter.acquire();
    limiter.release({ limit: 20, remaining: 5, reset: Date.now() / 1000 + 30 }, 200, ticket);
    // No refill seen and a tenant's rate of 2/s at the least: the reserve holds these for seconds.
    const waiting = Array.from({ length: 12 }, () => limiter.acquire());
    const released = waiting.map((p) =>
      p.then((t) =>
        limiter.release({ limit: 20, remaining: 5, reset: Date.now() / 1000 + 30 }, 200, t),
      ),
    );
    await vi.advanceTimersByTimeAsync(60_000);
    await Promise.all(released);
    expect(lines[0]).toMatch(
      /^pulumi-tenant: 1 request to https:\/\/acme\.example waited up to \d+\.\d s for their turn: the tenant allows 2 requests\/s, and 12 requests of this run waiting at once take about 6 s at that rate; the reserve of 5 tokens left to its other callers \(tenant:rateLimitReserve 0\.25 of the bucket\) adds about 2\.5 s; the tenant had 5 of its 20 tokens left$/,
    );
    expect(lines.length).toBeLessThanOrEqual(2);
  });
});

describe("TenantRateLimiter with a reserve on a small bucket", () => {
  it("keeps the tenant's whole rate with a bucket of 2 and a reserve of 1", async () => {
    // The slowest plan: 2 requests/s, a bucket of 2. After the first, each request waits for
    // the bucket to be full again; the floor is the requests past the first over the rate.
    const server = new ServerBucket(2, 2);
    const limiter = new TenantRateLimiter();
    const started = Date.now();
    let finished = 0;
    const run = (async () => {
      for (let n = 0; n < 50; n += 1) {
        const ticket = await limiter.acquire();
        await new Promise((resolve) => setTimeout(resolve, 25));
        const answer = server.take();
        limiter.release(answer.headers, answer.status, ticket);
      }
      finished = Date.now();
    })();
    await vi.advanceTimersByTimeAsync(100_000);
    await run;
    expect((finished - started) / 1000 / (49 / 2)).toBeLessThan(1.05);
  });
});

describe("routeGroup", () => {
  it("names a request by its method and its route, each item's segment written {id}", () => {
    expect(routeGroup("patch", "/clients/abc")).toBe("PATCH /clients/{id}");
    expect(routeGroup("get", "/clients?page=2&per_page=100")).toBe("GET /clients");
    expect(routeGroup("delete", "/clients/abc/credentials/k1")).toBe(
      "DELETE /clients/{id}/credentials/{id}",
    );
  });
});

describe("routed", () => {
  const writes = "PATCH /clients/{id}";
  const reads = "GET /clients/{id}";

  it("moves a group to a bucket of its own once its answers say another limit twice while another group's still say the shared one", () => {
    let routes = routed(NO_ROUTES, reads, 20, 20, 0);
    routes = routed(routes, writes, 20, 8, 10);
    expect(bucketOf(routes, writes)).toBe("shared");
    routes = routed(routes, writes, 20, 8, 20);
    expect(bucketOf(routes, writes)).toBe("limit 8");
    expect(bucketOf(routes, reads)).toBe("shared");
  });

  it("moves a group alone in its bucket back to the bucket that holds the limit its answers say again, the shared one included", () => {
    const holding = (limit: number) => (limit === 20 ? "shared" : undefined);
    let routes = routed(NO_ROUTES, reads, 20, 20, 0);
    routes = routed(routes, writes, 20, 8, 10);
    routes = routed(routes, writes, 20, 8, 20);
    expect(bucketOf(routes, writes)).toBe("limit 8");
    routes = routed(routes, writes, 8, 20, 40, holding);
    routes = routed(routes, writes, 8, 20, 50, holding);
    expect(bucketOf(routes, writes)).toBe("shared");
  });

  it("keeps a group in the shared bucket when no other group confirms the shared limit, the bucket's own change", () => {
    let routes = routed(NO_ROUTES, writes, 20, 8, 10);
    routes = routed(routes, writes, 20, 8, 20);
    expect(bucketOf(routes, writes)).toBe("shared");
  });
});

describe("TenantRateLimiter with an endpoint's bucket of its own", () => {
  it("paces writes to clients by their own bucket and the rest by the global one, each learned apart, without a 429", async () => {
    // The global bucket: 20 at 10/s; writes to clients: 8 at 4/s, their figures on their answers.
    const global = new ServerBucket(10, 20);
    const clientWrites = new ServerBucket(4, 8);
    const limiter = new TenantRateLimiter();
    const writes = routeGroup("PATCH", "/clients/abc");
    const reads = routeGroup("GET", "/clients/abc");
    let rejected = 0;
    let done = 0;
    const worker = async (group: string, bucket: ServerBucket, count: number): Promise<void> => {
      for (let n = 0; n < count; n += 1) {
        for (let attempt = 0; attempt < 20; attempt += 1) {
          const ticket = await limiter.acquire(undefined, group);
          await new Promise((resolve) => setTimeout(resolve, 25));
          const answer = bucket.take();
          limiter.release(answer.headers, answer.status, ticket);
          if (answer.status !== 429) break;
          rejected += 1;
        }
        done += 1;
      }
    };
    const run = Promise.all([
      ...Array.from({ length: 4 }, () => worker(writes, clientWrites, 10)),
      ...Array.from({ length: 4 }, () => worker(reads, global, 10)),
    ]);
    await vi.advanceTimersByTimeAsync(60_000);
    await run;
    expect(done).toBe(80);
    expect(limiter.state(writes).limit).toBe(8);
    expect(limiter.state(reads).limit).toBe(20);
    expect(rejected).toBeLessThanOrEqual(1);
  });
});
