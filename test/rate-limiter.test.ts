import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  parseRateLimitHeaders,
  type RateLimitHeaders,
  TenantRateLimiter,
} from "../provider/api/rate-limiter.js";

/** The server side of the model: the platform's token bucket, on the same fake clock. */
class ServerBucket {
  private tokens: number;
  private at = Date.now();
  constructor(
    private readonly rate: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }
  take(): { status: number; headers: RateLimitHeaders } {
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) / 1000) * this.rate);
    this.at = now;
    const ok = this.tokens >= 1;
    if (ok) this.tokens -= 1;
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
async function afterFirstAnswer(headers: {
  limit: number;
  remaining: number;
  resetIn: number;
}): Promise<TenantRateLimiter> {
  const limiter = new TenantRateLimiter();
  await limiter.acquire();
  limiter.release({
    limit: headers.limit,
    remaining: headers.remaining,
    reset: Date.now() / 1000 + headers.resetIn,
  });
  return limiter;
}

describe("TenantRateLimiter", () => {
  it("lets a single request out before any answer has told it the bucket size", async () => {
    const limiter = new TenantRateLimiter();
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
    const limiter = new TenantRateLimiter();
    const sentAt = await limiter.acquire();
    // The server counted the request as it arrived: more than 20 tokens missing, full in 2 s.
    const reset = sentAt / 1000 + 2;
    await vi.advanceTimersByTimeAsync(300);
    limiter.release({ limit: 21, remaining: 0, reset }, 200, sentAt);
    expect(limiter.state().rate).toBeCloseTo(10, 6);
  });

  it("learns no rate above the tenant's from a remaining rounded down", async () => {
    // The tenant refills 2 tokens a second. After this request it holds 0.9 tokens, so it answers
    // remaining 0 and a reset 4.75 s away (4.55 s rounded up): 10 missing in 4.75 s would be 2.1/s.
    const server = new ServerBucket(2, 10);
    await vi.advanceTimersByTimeAsync(300);
    for (let drained = 0; drained < 10; drained += 1) server.take();
    await vi.advanceTimersByTimeAsync(950);
    const limiter = new TenantRateLimiter();
    const sentAt = await limiter.acquire();
    const answer = server.take();
    limiter.release(answer.headers, answer.status, sentAt);
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
    // The later request's answer arrives first: 2 tokens left, less the earlier request, still in
    // flight then. The earlier one's answer, arriving after it, says 3: older news.
    limiter.release({ limit: 20, remaining: 2, reset }, 200, later);
    limiter.release({ limit: 20, remaining: 3, reset }, 200, earlier);
    expect(limiter.state().tokens).toBeCloseTo(1, 1);
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
    const limiter = new TenantRateLimiter();
    await limiter.acquire();
    limiter.release({ limit: 20, remaining: 5, reset: Date.now() / 1000 + 2 }, 429);
    expect(limiter.state().tokens).toBeLessThanOrEqual(0);
  });

  it("stops limiting a tenant whose answers carry no rate-limit headers", async () => {
    const limiter = new TenantRateLimiter();
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
      const limiter = new TenantRateLimiter();
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
});
