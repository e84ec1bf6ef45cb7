/**
 * The words of a command's progress (provider/progress.ts): the counts, the time left from the
 * rate the tenant allows, what bounds it, and the line of an interrupted read. The command's own
 * bar and lines, run as a user runs them: test/commands-cli.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { RateLimiterState } from "../provider/api/rate-limiter.js";
import { interruptedText, paceOf, progressBar, progressText } from "../provider/progress.js";

/** The limiter's state of a tenant at `rate` requests/s, others taking `othersRate`. */
const state = (rate: number, othersRate = 0, maxRequestsPerSecond?: number): RateLimiterState => ({
  limit: rate,
  rate,
  othersRate,
  othersSeen: othersRate,
  tokens: 0,
  inFlight: 1,
  window: 1,
  queued: 10,
  budget: { reserveShare: 0.25, maxRequestsPerSecond },
});

describe("the progress of a read", () => {
  it("says the time left from the rate the tenant allows", () => {
    expect(progressText({ done: 7, pages: 21, clients: 2000, pace: paceOf(state(2)) })).toBe(
      "read 7 of 21 pages (2,000 clients); about 7 s left: the tenant allows 2 requests/s",
    );
  });

  it("names this run's ceiling when it is what holds the read", () => {
    expect(paceOf(state(10, 0, 1))).toEqual({
      perSecond: 1,
      bound: "this run's ceiling of 1 requests/s (--max-requests-per-second)",
    });
  });

  it("names the other callers when they take a share of the tenant's rate", () => {
    expect(paceOf(state(10, 4))).toEqual({
      perSecond: 6,
      bound: "the tenant allows 10 requests/s, of which its other callers take 4",
    });
  });

  it("does not blame other callers for the noise of the limiter's estimate", () => {
    expect(paceOf(state(2, 0.1))?.bound).toBe("the tenant allows 2 requests/s");
  });

  it("says only the counts when the pace is not known yet or the read is done", () => {
    expect(progressText({ done: 1, pages: 21, clients: 2000, pace: undefined })).toBe(
      "read 1 of 21 pages (2,000 clients)",
    );
    expect(progressText({ done: 21, pages: 21, clients: 2000, pace: paceOf(state(2)) })).toBe(
      "read 21 of 21 pages (2,000 clients)",
    );
  });

  it("draws a bar of the pages read before the words", () => {
    expect(progressBar({ done: 10, pages: 20, clients: 2000, pace: undefined })).toBe(
      "[############------------] read 10 of 20 pages (2,000 clients)",
    );
  });

  it("says in one line what an interrupted read left undone", () => {
    expect(
      interruptedText("generate", { done: 7, pages: 21, clients: 2000, pace: undefined }),
    ).toBe(
      "pulumi-tenant generate: interrupted after 7 of 21 pages (2,000 clients); 14 pages were " +
        "not read, and nothing was written",
    );
  });
});
