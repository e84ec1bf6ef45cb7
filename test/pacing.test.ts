import { describe, expect, it } from "vitest";
import { paceStep, turnsAt } from "../provider/api/pacing.js";
import { decideCount } from "../provider/api/pacing-answer.js";
import {
  DEFAULT_PACING_BUDGET,
  nextWindow,
  othersInFlight,
  othersRate,
  type PacingBudget,
  politest,
  reserveTokens,
  TAKE_EVERYTHING,
} from "../provider/api/pacing-budget.js";
import { describeHolds, describePacingReport } from "../provider/api/pacing-report.js";
import { type BucketView, decideStart } from "../provider/api/pacing-start.js";
import { initialPacingState, type PacingState } from "../provider/api/pacing-state.js";
import { mainCause, type PacingReport } from "../provider/api/pacing-waits.js";
import type { RateLimitHeaders } from "../provider/api/rate-limit-headers.js";

/**
 * A limiter's picture: a bucket of 20 at 10/s, one request in flight of a window of 4, and the
 * reserve `budget` keeps of the bucket.
 */
function view(
  overrides: Partial<BucketView> = {},
  budget: PacingBudget = DEFAULT_PACING_BUDGET,
): BucketView {
  const limit = "limit" in overrides ? overrides.limit : 20;
  return {
    limit,
    reserve: reserveTokens(limit, budget),
    tokens: 10,
    refillRate: 10,
    room: 19,
    inFlight: 1,
    othersInFlight: 0,
    window: 4,
    lastStartAt: undefined,
    othersRate: undefined,
    rejected: false,
    ...overrides,
  };
}

/** The budget's settings as a Pulumi program's stack config names them. */
const STACK_NAMES = {
  rateLimitReserve: "tenant:rateLimitReserve",
  maxRequestsPerSecond: "tenant:maxRequestsPerSecond",
};

/** The budget's settings as a command's flags name them. */
const FLAG_NAMES = {
  rateLimitReserve: "--rate-limit-reserve",
  maxRequestsPerSecond: "--max-requests-per-second",
};

/** A report's line, in a Pulumi program's words. */
const said = (report: PacingReport) => describePacingReport(report, STACK_NAMES);

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

  it("holds a request until the reserve is whole once the other callers' requests on the way have landed", () => {
    // 9 tokens, a reserve of 5, 4 of the others' requests on the way: 10 are needed, 1 s at 1/s.
    expect(
      decideStart(view({ tokens: 9, refillRate: 1, othersInFlight: 4 }), DEFAULT_PACING_BUDGET, 0),
    ).toEqual({
      go: false,
      waitMs: 1000,
      heldBy: "reserve",
    });
    expect(
      decideStart(view({ tokens: 10, refillRate: 1, othersInFlight: 4 }), DEFAULT_PACING_BUDGET, 0),
    ).toEqual({ go: true });
  });

  it("never asks for more tokens than the bucket can hold, however many of the others' requests are on the way", () => {
    // A bucket of 4 with a reserve of 1 holds at most 4: 1 + 1 + 5 would never come.
    const small = view({
      limit: 4,
      reserve: 1,
      room: 4,
      inFlight: 0,
      tokens: 4,
      othersInFlight: 5,
    });
    expect(decideStart(small, DEFAULT_PACING_BUDGET, 0)).toEqual({ go: true });
  });

  it("says the tenant's rate holds a request when this run took every token and nobody else was seen", () => {
    expect(decideStart(view({ tokens: 0 }, TAKE_EVERYTHING), TAKE_EVERYTHING, 0)).toEqual({
      go: false,
      waitMs: 100,
      heldBy: "rate",
    });
  });

  it("says the tenant's rate, not the reserve, holds a request when this run's own request took the bucket down to the reserve a moment ago", () => {
    expect(decideStart(view({ tokens: 5.5, lastStartAt: 0 }), DEFAULT_PACING_BUDGET, 0)).toEqual({
      go: false,
      waitMs: 50,
      heldBy: "rate",
    });
  });

  it("says the other callers hold a request when the answers showed their use and the tenant has no token", () => {
    expect(
      decideStart(view({ tokens: 0, othersRate: 4 }, TAKE_EVERYTHING), TAKE_EVERYTHING, 0),
    ).toEqual({ go: false, waitMs: 100, heldBy: "others" });
  });

  it("says the reserve holds a request the bucket has a token for while the other callers take their share, however recent this run's last request", () => {
    expect(
      decideStart(view({ tokens: 5.5, othersRate: 4, lastStartAt: 0 }), DEFAULT_PACING_BUDGET, 0),
    ).toEqual({ go: false, waitMs: 50, heldBy: "reserve" });
  });

  it("says a 429 holds a request while the bucket refills from the refusal", () => {
    expect(
      decideStart(view({ tokens: -1, rejected: true }, TAKE_EVERYTHING), TAKE_EVERYTHING, 0),
    ).toEqual({ go: false, waitMs: 200, heldBy: "rejected" });
  });

  it("spaces this run's requests by the ceiling", () => {
    const budget = { reserveShare: 0, maxRequestsPerSecond: 4 };
    expect(decideStart(view({ lastStartAt: 1000 }, budget), budget, 1100)).toEqual({
      go: false,
      waitMs: 150,
      heldBy: "ceiling",
    });
    expect(decideStart(view({ lastStartAt: 1000 }, budget), budget, 1250)).toEqual({ go: true });
  });

  it("waits for an answer, with no timer, when the window is full", () => {
    expect(decideStart(view({ inFlight: 4 }), DEFAULT_PACING_BUDGET, 0)).toEqual({
      go: false,
      waitMs: Number.POSITIVE_INFINITY,
      heldBy: "window",
    });
  });

  it("waits for an answer, not for a refill that cannot come, while its requests in flight leave no room for the reserve", () => {
    expect(decideStart(view({ tokens: 0, room: 5 }), DEFAULT_PACING_BUDGET, 0)).toEqual({
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
    expect(nextWindow(3, answer(5), 20, DEFAULT_PACING_BUDGET, 5)).toBe(4);
  });

  it("halves when an answer fell below the reserve", () => {
    expect(nextWindow(8, answer(4), 20, DEFAULT_PACING_BUDGET, 5)).toBe(4);
  });

  it("halves on a 429, down to one request at the least", () => {
    expect(nextWindow(1, answer(0, 429), 20, DEFAULT_PACING_BUDGET, 5)).toBe(1);
  });

  it("never exceeds the bucket's size", () => {
    expect(nextWindow(20, answer(19), 20, DEFAULT_PACING_BUDGET, 5)).toBe(20);
  });

  it("is unlimited for a run that takes everything", () => {
    expect(nextWindow(3, answer(0, 429), 20, TAKE_EVERYTHING, 0)).toBe(Number.POSITIVE_INFINITY);
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
        { sentAt: 400, remaining: 5, started: 5 },
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

describe("othersInFlight", () => {
  const tenant = { others: 8, rate: 10, roundTripMs: 600, inFlight: 1 };

  it("is what the other callers' rate sends in a round trip", () => {
    expect(othersInFlight(tenant, 20, DEFAULT_PACING_BUDGET)).toBeCloseTo(4.8);
  });

  it("is at least three times this run's own requests in flight before the others' rate is read", () => {
    const unread = { ...tenant, others: undefined, inFlight: 2 };
    expect(othersInFlight(unread, 20, DEFAULT_PACING_BUDGET)).toBe(6);
  });

  it("counts only what the others' rate sends in a round trip once they are read to take less than a twentieth of the rate", () => {
    const alone = { ...tenant, others: 0.3, inFlight: 2 };
    expect(othersInFlight(alone, 20, DEFAULT_PACING_BUDGET)).toBeCloseTo(0.18);
  });

  it("is at least three while the others take anything, however short the round trip", () => {
    expect(
      othersInFlight(
        { others: 0.5, rate: 10, roundTripMs: 1, inFlight: 0 },
        20,
        DEFAULT_PACING_BUDGET,
      ),
    ).toBe(3);
    expect(
      othersInFlight(
        { others: 0, rate: 10, roundTripMs: 1, inFlight: 0 },
        20,
        DEFAULT_PACING_BUDGET,
      ),
    ).toBe(0);
  });

  it("is 0 without a reserve, as the provider paced before the reserve existed", () => {
    expect(othersInFlight(tenant, 20, TAKE_EVERYTHING)).toBe(0);
  });

  it("is 0 for a tenant that gives no figures, or before the first answer", () => {
    expect(othersInFlight(tenant, Number.POSITIVE_INFINITY, DEFAULT_PACING_BUDGET)).toBe(0);
    expect(othersInFlight(tenant, undefined, DEFAULT_PACING_BUDGET)).toBe(0);
  });
});

describe("decideCount", () => {
  it("keeps the model's count while it lies within the whole token the header rounds down", () => {
    expect(decideCount(1.6, 1, DEFAULT_PACING_BUDGET)).toBe(1.6);
  });

  it("takes the header when the model counted more than the tenant holds", () => {
    expect(decideCount(2.2, 1, DEFAULT_PACING_BUDGET)).toBe(1);
  });

  it("takes the header when the model counted less", () => {
    expect(decideCount(0.4, 1, DEFAULT_PACING_BUDGET)).toBe(1);
  });

  it("takes the top of the header's whole token when the count is above it by less than the slack", () => {
    expect(decideCount(1.02, 0, DEFAULT_PACING_BUDGET, 0.05)).toBeCloseTo(1 - 1e-6, 9);
    expect(decideCount(1.2, 0, DEFAULT_PACING_BUDGET, 0.05)).toBe(0);
  });

  it("takes the header alone for a run that takes everything, as before", () => {
    expect(decideCount(1.6, 1, TAKE_EVERYTHING)).toBe(1);
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
    reserve: 5,
    window: 6,
    rate: 10,
    others: undefined,
    mostWaiting: 80,
  };

  it("says how long the reserve held requests and what the tenant had left", () => {
    expect(
      describeHolds({ ...holds, heldBy: "reserve", budget: DEFAULT_PACING_BUDGET }, STACK_NAMES),
    ).toBe(
      "pulumi-tenant: 12 requests to https://acme.example waited up to 7.2 s to leave the " +
        "tenant's other callers a reserve of 5 tokens (tenant:rateLimitReserve 0.25 of the bucket); " +
        "the tenant had 4 of its 20 tokens left",
    );
  });

  it("says what the other callers take when the reserve held requests beside them", () => {
    expect(
      describeHolds(
        { ...holds, heldBy: "reserve", others: 7.5, budget: DEFAULT_PACING_BUDGET },
        FLAG_NAMES,
      ),
    ).toBe(
      "pulumi-tenant: 12 requests to https://acme.example waited up to 7.2 s to leave the " +
        "tenant's other callers a reserve of 5 tokens (--rate-limit-reserve 0.25 of the bucket): " +
        "the tenant allows 10 requests/s, of which they take 7.5; the tenant had 4 of its 20 tokens left",
    );
  });

  it("names the ceiling when the ceiling held them, as a Pulumi program's stack config spells it", () => {
    expect(
      describeHolds(
        { ...holds, heldBy: "ceiling", budget: { reserveShare: 0.25, maxRequestsPerSecond: 2 } },
        STACK_NAMES,
      ),
    ).toBe(
      "pulumi-tenant: 12 requests to https://acme.example waited up to 7.2 s under this run's " +
        "ceiling of 2 requests/s (tenant:maxRequestsPerSecond); the tenant had 4 of its 20 tokens left",
    );
  });

  it("names the ceiling as the command's flag in a command", () => {
    expect(
      describeHolds(
        { ...holds, heldBy: "ceiling", budget: { reserveShare: 0.25, maxRequestsPerSecond: 2 } },
        FLAG_NAMES,
      ),
    ).toBe(
      "pulumi-tenant: 12 requests to https://acme.example waited up to 7.2 s under this run's " +
        "ceiling of 2 requests/s (--max-requests-per-second); the tenant had 4 of its 20 tokens left",
    );
  });

  it("names the window of unanswered requests when answers were slow to come, not the reserve", () => {
    expect(
      describeHolds({ ...holds, heldBy: "window", budget: DEFAULT_PACING_BUDGET }, STACK_NAMES),
    ).toBe(
      "pulumi-tenant: 12 requests to https://acme.example waited up to 7.2 s for the answers to " +
        "the 6 requests already out (the tenant is slow to answer; the run sends more as answers " +
        "come back); the tenant had 4 of its 20 tokens left",
    );
  });

  it("names the tenant's rate, and what it makes of the run's queue, when the run's own requests held them", () => {
    expect(
      describeHolds(
        {
          ...holds,
          heldBy: "rate",
          rate: 2,
          limit: 2,
          reserve: 0,
          remaining: 0,
          mostWaiting: 21,
          budget: TAKE_EVERYTHING,
        },
        FLAG_NAMES,
      ),
    ).toBe(
      "pulumi-tenant: 12 requests to https://acme.example waited up to 7.2 s for their turn: the " +
        "tenant allows 2 requests/s, and 21 requests of this run waiting at once take about 11 s at " +
        "that rate; the tenant had 0 of its 2 tokens left",
    );
  });

  it("says what the reserve adds to a wait the tenant's rate holds, naming the command's flag", () => {
    expect(
      describeHolds(
        {
          ...holds,
          heldBy: "rate",
          rate: 2,
          limit: 2,
          reserve: 1,
          remaining: 1,
          mostWaiting: 21,
          budget: DEFAULT_PACING_BUDGET,
        },
        FLAG_NAMES,
      ),
    ).toBe(
      "pulumi-tenant: 12 requests to https://acme.example waited up to 7.2 s for their turn: the " +
        "tenant allows 2 requests/s, and 21 requests of this run waiting at once take about 11 s at " +
        "that rate; the reserve of 1 token left to its other callers (--rate-limit-reserve 0.25 of " +
        "the bucket) adds about 0.5 s; the tenant had 1 of its 2 tokens left",
    );
  });

  it("names the other callers, with what they take, when they took the tokens", () => {
    expect(
      describeHolds(
        { ...holds, heldBy: "others", others: 4.25, budget: TAKE_EVERYTHING },
        STACK_NAMES,
      ),
    ).toBe(
      "pulumi-tenant: 12 requests to https://acme.example waited up to 7.2 s for the tenant's " +
        "rate limit to refill: the tenant allows 10 requests/s, of which its other callers take " +
        "4.25; the tenant had 4 of its 20 tokens left",
    );
  });

  it("names the 429 when the tenant refused a request and the bucket refilled from empty", () => {
    expect(
      describeHolds({ ...holds, heldBy: "rejected", budget: DEFAULT_PACING_BUDGET }, STACK_NAMES),
    ).toBe(
      "pulumi-tenant: 12 requests to https://acme.example waited up to 7.2 s for the tenant's " +
        "rate limit to refill after it answered 429 (too many requests): the tenant allows 10 " +
        "requests/s; the tenant had 4 of its 20 tokens left",
    );
  });
});

describe("paceStep", () => {
  const start = (budget: PacingBudget = DEFAULT_PACING_BUDGET) =>
    initialPacingState({
      at: 0,
      budget,
      minimumRate: 2,
      initialConcurrency: 1,
      origin: "https://acme.example",
    });
  const headers = (remaining: number, at: number, resetIn = 1) => ({
    limit: 20,
    remaining,
    reset: at / 1000 + resetIn,
  });

  it("lets the first request go and waits for its answer, with no timer, before the next", () => {
    const { actions } = paceStep(start(), { kind: "queue", at: 0, waiting: [0, 0] });
    expect(actions).toEqual({ send: [{ sentAt: 0, seq: 1 }], wakeAt: undefined, report: [] });
  });

  it("sets its timer to the moment the refill lets the next request leave the reserve", () => {
    const first = paceStep(start(), { kind: "queue", at: 0, waiting: [0] });
    // 14 of 21 missing, full in 1.4 s: 10 tokens a second; 6 left, all of them the reserve, when
    // the tenant counted the request, half its 10 ms round trip ago: 0.05 of a token since.
    const { actions } = paceStep(first.state, {
      kind: "answer",
      at: 10,
      waiting: [10],
      headers: { limit: 21, remaining: 6, reset: 1.4 },
      status: 200,
      ticket: { sentAt: 0, seq: 1 },
    });
    expect(actions).toEqual({ send: [], wakeAt: 105, report: [] });
  });

  it("reports a request held back by the window of unanswered requests as waiting for answers", () => {
    const first = paceStep(start(), { kind: "queue", at: 0, waiting: [0] });
    const held = paceStep(first.state, { kind: "queue", at: 0, waiting: [0] });
    const { actions } = paceStep(held.state, {
      kind: "answer",
      at: 6000,
      waiting: [0],
      headers: headers(15, 0),
      status: 200,
      ticket: { sentAt: 0, seq: 1 },
    });
    expect(actions.report.map(said)).toEqual([
      "pulumi-tenant: 1 request to https://acme.example waited up to 6.0 s for the answers to the " +
        "2 requests already out (the tenant is slow to answer; the run sends more as answers come " +
        "back); the tenant had 15 of its 20 tokens left",
    ]);
  });

  it("reports at the end of the run the long waits it had not reported yet", () => {
    // Three requests at once: the first goes, the other two wait 6 s for its answer, then both
    // go; the second's wait is reported at once, the third's falls within 30 s of that report.
    const first = paceStep(start(), { kind: "queue", at: 0, waiting: [0, 0, 0] });
    const answered = paceStep(first.state, {
      kind: "answer",
      at: 6000,
      waiting: [0, 0],
      headers: headers(15, 0),
      status: 200,
      ticket: { sentAt: 0, seq: 1 },
    });
    expect(answered.actions.send).toHaveLength(2);
    expect(answered.actions.report).toHaveLength(1);
    const end = paceStep(answered.state, { kind: "end", at: 7000 });
    expect(end.actions.report.map(said)).toEqual([
      "pulumi-tenant: 1 request to https://acme.example waited up to 6.0 s for the answers to the " +
        "2 requests already out (the tenant is slow to answer; the run sends more as answers come " +
        "back); the tenant had 15 of its 20 tokens left",
    ]);
  });

  it("counts the requests that could leave now as its step would let them out, changing nothing", () => {
    // One request sent and answered: 15 of 20 left, the reserve 5, the window grown to 2.
    const first = paceStep(start(), { kind: "queue", at: 0, waiting: [0] });
    const answered = paceStep(first.state, {
      kind: "answer",
      at: 10,
      waiting: [],
      headers: headers(15, 0),
      status: 200,
      ticket: { sentAt: 0, seq: 1 },
    });
    expect(turnsAt(answered.state, 10, [], 10)).toBe(2);
    expect(turnsAt(answered.state, 10, [], 1)).toBe(1);
    expect(turnsAt(answered.state, 10, [10], 10)).toBe(1);
    const probed = paceStep(answered.state, { kind: "queue", at: 10, waiting: [10, 10, 10] });
    expect(probed.actions.send).toHaveLength(2);
  });

  it("reads no use by other callers from a bucket that a run below the tenant's rate leaves full", () => {
    // A ceiling of 1 request/s on a bucket of 2 at 2/s, alone: every answer leaves 1 of 2, the
    // bucket full again before the next; the refill that overflowed it is nobody's use.
    const budget = { reserveShare: 0.25, maxRequestsPerSecond: 1 };
    let state = start(budget);
    for (let n = 0; n < 6; n += 1) {
      const at = n * 1000;
      const queued = paceStep(state, { kind: "queue", at, waiting: [at] });
      const ticket = queued.actions.send[0];
      expect(ticket).toBeDefined();
      state = paceStep(queued.state, {
        kind: "answer",
        at: at + 10,
        waiting: [],
        headers: { limit: 2, remaining: 1, reset: Math.ceil(at / 1000 + 0.5) },
        status: 200,
        ticket,
      }).state;
    }
    expect(state.othersSeen ?? 0).toBeLessThan(0.1);
  });

  it("counts no turn while the window of unanswered requests is full", () => {
    const first = paceStep(start(), { kind: "queue", at: 0, waiting: [0] });
    expect(turnsAt(first.state, 0, [], 10)).toBe(0);
  });

  it("says once, naming who asked, that a budget gave way to the more polite one that holds", () => {
    const budget = (reserveShare: number, who: string, at: number) =>
      ({
        kind: "budget",
        at,
        waiting: [],
        budget: { reserveShare, maxRequestsPerSecond: undefined },
        who,
      }) as const;
    const web = paceStep(start(), budget(0.25, 'ClientSettings "web"', 0));
    const fast = paceStep(web.state, budget(0, 'ClientSettings "fast"', 1));
    const again = paceStep(fast.state, budget(0, 'ClientSettings "faster"', 2));
    expect(web.actions.report).toEqual([]);
    expect(fast.actions.report.map(said)).toEqual([
      'pulumi-tenant: ClientSettings "fast" asks https://acme.example for rateLimitReserve 0, but others of this run keep 0.25; the more polite budget holds for all of them',
    ]);
    expect(again.actions.report).toEqual([]);
    expect(again.state.budget.reserveShare).toBe(0.25);
  });

  it("names as a wait's cause what held it for the longest share of it", () => {
    const holds = [
      { from: 0, heldBy: "window" as const },
      { from: 1000, heldBy: "reserve" as const },
      { from: 4000, heldBy: "window" as const },
    ];
    expect(mainCause(holds, 0, 5000)).toBe("reserve");
    expect(mainCause(holds, 3500, 8000)).toBe("window");
  });
});

describe("paceStep reading a tenant we did not write", () => {
  /** Our clock at the start, on a whole second. */
  const T0 = 1_700_000_000_000;
  const start = (budget: PacingBudget = DEFAULT_PACING_BUDGET) =>
    initialPacingState({
      at: T0,
      budget,
      minimumRate: 2,
      initialConcurrency: 1,
      origin: "https://acme.example",
    });
  /** The state after one request sent at `sentAt` and answered at `at` with `headers`. */
  const answeredOnce = (
    state: PacingState,
    headers: RateLimitHeaders,
    sentAt: number,
    at: number,
    status = 200,
  ): PacingState => {
    const sent = paceStep(state, { kind: "queue", at: sentAt, waiting: [sentAt] });
    const ticket = sent.actions.send[0];
    // The window may hold the request back: the answer then comes for one sent earlier.
    return paceStep(sent.state, {
      kind: "answer",
      at,
      waiting: ticket === undefined ? [sentAt] : [],
      headers,
      status,
      ticket,
    }).state;
  };

  it("learns no refill rate above the bucket's limit a second, whatever one answer's reset says", () => {
    // 4 of 5 missing and full 50 ms after the request left: 80 a second, from a bucket of 5.
    const state = answeredOnce(
      start(TAKE_EVERYTHING),
      { limit: 5, remaining: 0, reset: (T0 + 50) / 1000 },
      T0,
      T0 + 10,
    );
    expect(state.rate).toBe(5);
  });

  it("ignores an absurd limit and keeps the model it had", () => {
    const first = answeredOnce(
      start(TAKE_EVERYTHING),
      { limit: 21, remaining: 0, reset: T0 / 1000 + 2 },
      T0,
      T0 + 10,
    );
    const second = answeredOnce(
      first,
      { limit: 1e12, remaining: 1e12 - 2, reset: (T0 + 1000) / 1000 + 1 },
      T0 + 1000,
      T0 + 1010,
    );
    expect(second.limit).toBe(21);
    expect(second.rate).toBeCloseTo(10, 6);
  });

  it("learns the rate again when a later answer's figures bound it below what an earlier one taught", () => {
    // A tenant 0.9 s behind our clock, 2 tokens a second, a bucket of 20: from the nearly full
    // bucket, 1 missing and a reset 50 ms after the request left by our clock reads as 20/s.
    const nearlyFull = answeredOnce(
      start(TAKE_EVERYTHING),
      { limit: 20, remaining: 18, reset: (T0 + 50) / 1000 },
      T0,
      T0 + 10,
    );
    // A second later the bucket is nearly empty: 18 missing cannot refill within 8.1 s at
    // more than 18 / 8.1 = 2.2 a second.
    const drained = answeredOnce(
      nearlyFull,
      { limit: 20, remaining: 2, reset: (T0 + 1000) / 1000 + 9.1 },
      T0 + 1000,
      T0 + 1010,
    );
    expect(nearlyFull.rate).toBeCloseTo(20, 3);
    expect(drained.rate).toBeLessThan(2.25);
  });

  it("stops counting what an answer taught of the rate ten seconds later", () => {
    const first = answeredOnce(
      start(TAKE_EVERYTHING),
      { limit: 21, remaining: 0, reset: T0 / 1000 + 2 },
      T0,
      T0 + 10,
    );
    const later = T0 + 11_000;
    // 20 missing, full 5 s later: at least 4 a second, all the last ten seconds say.
    const second = answeredOnce(
      first,
      { limit: 21, remaining: 0, reset: later / 1000 + 5 },
      later,
      later + 10,
    );
    expect(first.rate).toBeCloseTo(10, 6);
    expect(second.rate).toBeCloseTo(4, 6);
  });

  it("reads the reset by the tenant's clock, from the answer's Date", () => {
    // The tenant's clock is 2 s behind ours; its bucket of 20 refills 2 a second and holds half a
    // token after the request: full 9.75 s later, at 1_700_000_008 by its clock (rounded up).
    // Read by our clock, 19 missing in 8 s would be 2.4 a second.
    const state = answeredOnce(
      start(TAKE_EVERYTHING),
      { limit: 20, remaining: 0, reset: 1_700_000_008, date: T0 - 2000 },
      T0,
      T0 + 10,
    );
    expect(state.rate).toBe(2);
  });

  it("keeps the model it had when an answer gives a limit below 1, and lets the next request go", () => {
    const first = answeredOnce(
      start(TAKE_EVERYTHING),
      { limit: 20, remaining: 10, reset: T0 / 1000 + 5 },
      T0,
      T0 + 10,
    );
    const half = answeredOnce(
      first,
      { limit: 0.5, remaining: 0, reset: T0 / 1000 + 1 },
      T0 + 20,
      T0 + 30,
    );
    expect(half.limit).toBe(20);
    const next = paceStep(half, { kind: "queue", at: T0 + 40, waiting: [T0 + 40] });
    expect(next.actions.send).toHaveLength(1);
  });

  it("keeps pacing when a gateway answers 502 without figures", () => {
    const first = answeredOnce(
      start(),
      { limit: 20, remaining: 5, reset: T0 / 1000 + 2 },
      T0,
      T0 + 10,
    );
    const gateway = answeredOnce(first, {}, T0 + 20, T0 + 30, 502);
    expect(gateway.limit).toBe(20);
    // 5 left, all of them the reserve: the next request waits for the refill.
    const next = paceStep(gateway, { kind: "queue", at: T0 + 40, waiting: [T0 + 40] });
    expect(next.actions.send).toEqual([]);
    expect(next.actions.wakeAt).toBeGreaterThan(T0 + 40);
  });

  it("ignores a remaining below 0 or above the limit, keeping its count", () => {
    const first = answeredOnce(
      start(TAKE_EVERYTHING),
      { limit: 20, remaining: 10, reset: T0 / 1000 + 5 },
      T0,
      T0 + 10,
    );
    for (const remaining of [-5, 500]) {
      const odd = answeredOnce(
        first,
        { limit: 20, remaining, reset: T0 / 1000 + 5 },
        T0 + 20,
        T0 + 30,
      );
      expect(odd.tokens).toBeGreaterThan(8);
      expect(odd.tokens).toBeLessThan(11);
    }
  });

  it("takes a new limit only once a second answer says it too", () => {
    const first = answeredOnce(
      start(TAKE_EVERYTHING),
      { limit: 20, remaining: 10, reset: T0 / 1000 + 5 },
      T0,
      T0 + 10,
    );
    const once = answeredOnce(
      first,
      { limit: 5000, remaining: 4999, reset: T0 / 1000 + 1 },
      T0 + 20,
      T0 + 30,
    );
    const twice = answeredOnce(
      once,
      { limit: 5000, remaining: 4998, reset: T0 / 1000 + 1 },
      T0 + 40,
      T0 + 50,
    );
    expect(once.limit).toBe(20);
    expect(once.tokens).toBeLessThan(11);
    expect(twice.limit).toBe(5000);
  });
});
