import { describe, expect, it } from "vitest";
import {
  type BucketView,
  DEFAULT_PACING_BUDGET,
  decideStart,
  describeHolds,
  nextWindow,
  othersRate,
  politest,
  refillRate,
  reserveTokens,
  resynchronised,
  TAKE_EVERYTHING,
} from "../provider/api/pacing.js";

/** A limiter's picture: a bucket of 20 at 10/s, one request in flight of a window of 4. */
function view(overrides: Partial<BucketView> = {}): BucketView {
  return {
    limit: 20,
    tokens: 10,
    refillRate: 10,
    inFlight: 1,
    window: 4,
    lastStartAt: undefined,
    ...overrides,
  };
}

describe("reserveTokens", () => {
  it("is the reserve share of the bucket, rounded up", () => {
    expect(reserveTokens(20, DEFAULT_PACING_BUDGET)).toBe(5);
    expect(reserveTokens(50, DEFAULT_PACING_BUDGET)).toBe(13);
    expect(reserveTokens(10, DEFAULT_PACING_BUDGET)).toBe(3);
  });

  it("never takes the whole bucket, so that a bucket of 1 or 2 still lets requests go", () => {
    expect(reserveTokens(2, { reserveShare: 0.9, maxRequestsPerSecond: undefined })).toBe(1);
    expect(reserveTokens(1, DEFAULT_PACING_BUDGET)).toBe(0);
  });

  it("is 0 while the bucket's size is unknown or unlimited", () => {
    expect(reserveTokens(undefined, DEFAULT_PACING_BUDGET)).toBe(0);
    expect(reserveTokens(Number.POSITIVE_INFINITY, DEFAULT_PACING_BUDGET)).toBe(0);
  });
});

describe("decideStart", () => {
  it("lets a request go that leaves the reserve whole", () => {
    expect(decideStart(view({ tokens: 6 }), DEFAULT_PACING_BUDGET, 0)).toEqual({ go: true });
  });

  it("holds a request that would take the bucket into the reserve, until the refill covers it", () => {
    expect(decideStart(view({ tokens: 5.5 }), DEFAULT_PACING_BUDGET, 0)).toEqual({
      go: false,
      waitMs: 50,
      heldBy: "reserve",
    });
  });

  it("says the bucket holds a request when the tenant has no token at all", () => {
    expect(decideStart(view({ tokens: 0 }), TAKE_EVERYTHING, 0)).toEqual({
      go: false,
      waitMs: 100,
      heldBy: "bucket",
    });
  });

  it("spaces this run's requests by the ceiling", () => {
    const budget = { reserveShare: 0, maxRequestsPerSecond: 4 };
    expect(decideStart(view({ lastStartAt: 1000 }), budget, 1100)).toEqual({
      go: false,
      waitMs: 150,
      heldBy: "ceiling",
    });
    expect(decideStart(view({ lastStartAt: 1000 }), budget, 1250)).toEqual({ go: true });
  });

  it("waits for an answer, with no timer, when the window is full", () => {
    expect(decideStart(view({ inFlight: 4 }), DEFAULT_PACING_BUDGET, 0)).toEqual({
      go: false,
      waitMs: Number.POSITIVE_INFINITY,
      heldBy: "window",
    });
  });

  it("counts no reserve before the first answer has told the bucket's size", () => {
    expect(decideStart(view({ limit: undefined, tokens: 1 }), DEFAULT_PACING_BUDGET, 0)).toEqual({
      go: true,
    });
  });
});

describe("nextWindow", () => {
  const answer = (remaining: number, status = 200) => ({ status, remaining });

  it("grows by one with every answer that left the reserve", () => {
    expect(nextWindow(3, answer(5), 20, DEFAULT_PACING_BUDGET)).toBe(4);
  });

  it("halves when an answer fell below the reserve", () => {
    expect(nextWindow(8, answer(4), 20, DEFAULT_PACING_BUDGET)).toBe(4);
  });

  it("halves on a 429, down to one request at the least", () => {
    expect(nextWindow(1, answer(0, 429), 20, DEFAULT_PACING_BUDGET)).toBe(1);
  });

  it("never exceeds the bucket's size", () => {
    expect(nextWindow(20, answer(19), 20, DEFAULT_PACING_BUDGET)).toBe(20);
  });

  it("is unlimited for a run that takes everything", () => {
    expect(nextWindow(3, answer(0, 429), 20, TAKE_EVERYTHING)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("othersRate", () => {
  it("is what the bucket lost beyond this process's requests, per second", () => {
    // 2 s at 10/s refill 20; this process sent 10; the bucket went from 5 to 9: others took 6.
    const rate = othersRate(
      { sentAt: 0, remaining: 5, started: 1 },
      { sentAt: 2000, remaining: 9, started: 11 },
      10,
    );
    expect(rate).toBe(3);
  });

  it("is undefined over a span too short to read through the rounding", () => {
    expect(
      othersRate(
        { sentAt: 0, remaining: 5, started: 1 },
        { sentAt: 900, remaining: 5, started: 9 },
        10,
      ),
    ).toBeUndefined();
  });

  it("stays between 0 and the tenant's rate", () => {
    expect(
      othersRate(
        { sentAt: 0, remaining: 0, started: 1 },
        { sentAt: 2000, remaining: 19, started: 2 },
        10,
      ),
    ).toBe(0);
    expect(
      othersRate(
        { sentAt: 0, remaining: 19, started: 1 },
        { sentAt: 2000, remaining: 0, started: 1 },
        2,
      ),
    ).toBe(2);
  });
});

describe("resynchronised", () => {
  it("keeps the model's count while it lies within the whole token the header rounds down", () => {
    expect(resynchronised(1.6, 1, DEFAULT_PACING_BUDGET)).toBe(1.6);
  });

  it("takes the header when the model counted more than the tenant holds", () => {
    expect(resynchronised(2.2, 1, DEFAULT_PACING_BUDGET)).toBe(1);
  });

  it("takes the header when the model counted less", () => {
    expect(resynchronised(0.4, 1, DEFAULT_PACING_BUDGET)).toBe(1);
  });

  it("takes the header alone for a run that takes everything, as before", () => {
    expect(resynchronised(1.6, 1, TAKE_EVERYTHING)).toBe(1);
  });
});

describe("refillRate", () => {
  it("counts only what the other callers leave when there is a reserve", () => {
    expect(refillRate(10, 3, DEFAULT_PACING_BUDGET)).toBe(7);
  });

  it("keeps a tenth of the tenant's rate, so a run whose estimate is low still probes", () => {
    expect(refillRate(10, 10, DEFAULT_PACING_BUDGET)).toBe(1);
  });

  it("is the tenant's whole rate for a run that takes everything", () => {
    expect(refillRate(10, 3, TAKE_EVERYTHING)).toBe(10);
  });
});

describe("politest", () => {
  it("keeps the larger reserve and the lower ceiling", () => {
    expect(
      politest(
        { reserveShare: 0.1, maxRequestsPerSecond: undefined },
        { reserveShare: 0.3, maxRequestsPerSecond: 6 },
      ),
    ).toEqual({ reserveShare: 0.3, maxRequestsPerSecond: 6 });
  });
});

describe("describeHolds", () => {
  const holds = {
    origin: "https://acme.example",
    requests: 12,
    longestMs: 7240,
    remaining: 4,
    limit: 20,
  };

  it("says how long the reserve held requests and what the tenant had left", () => {
    expect(describeHolds({ ...holds, heldBy: "reserve", budget: DEFAULT_PACING_BUDGET })).toBe(
      "pulumi-tenant: 12 requests to https://acme.example waited up to 7.2 s to leave the " +
        "tenant's other callers a reserve of 5 tokens (rateLimitReserve 0.25 of the bucket); " +
        "the tenant had 4 of its 20 tokens left",
    );
  });

  it("names the ceiling when the ceiling held them", () => {
    expect(
      describeHolds({
        ...holds,
        heldBy: "ceiling",
        budget: { reserveShare: 0.25, maxRequestsPerSecond: 2 },
      }),
    ).toBe(
      "pulumi-tenant: 12 requests to https://acme.example waited up to 7.2 s under this run's " +
        "ceiling of 2 requests/s (maxRequestsPerSecond); the tenant had 4 of its 20 tokens left",
    );
  });
});
