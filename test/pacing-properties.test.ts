import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_PACING_BUDGET, TAKE_EVERYTHING } from "../provider/api/pacing-budget.js";
import { PROPERTY_SEED } from "./support/arbitraries/index.js";
import {
  type AnswerQuirk,
  type SimulatedRequest,
  type SimulatedTenant,
  simulatePacing,
} from "./support/pacing-simulation.js";

/** Enough runs to meet every quirk in many orders, few enough for the file to take seconds. */
const RUNS = 150;

const QUIRKS: readonly AnswerQuirk[] = [
  "plain",
  "noFigures",
  "gateway",
  "unequalRepeat",
  "absurdLimit",
  "tinyLimit",
  "negativeRemaining",
  "farReset",
];

/** A tenant of any plan, its clock off by up to 3 s either way, with or without `Date`. */
const tenants: fc.Arbitrary<SimulatedTenant> = fc.record({
  rate: fc.constantFrom(2, 4, 10, 16, 50),
  burst: fc.integer({ min: 1, max: 50 }),
  clockOffsetMs: fc.integer({ min: -3000, max: 3000 }),
  sendsDate: fc.boolean(),
  roundsDown: fc.boolean(),
});

/** Answers mostly plain, each quirk now and then. */
const quirks: fc.Arbitrary<AnswerQuirk> = fc.oneof(
  { arbitrary: fc.constant("plain" as const), weight: 6 },
  { arbitrary: fc.constantFrom(...QUIRKS), weight: 4 },
);

const requests = (deadlineMs: fc.Arbitrary<number>): fc.Arbitrary<SimulatedRequest[]> =>
  fc.array(
    fc.record({
      queuedAfterMs: fc.integer({ min: 0, max: 2000 }),
      deadlineMs,
      roundTripMs: fc.integer({ min: 1, max: 400 }),
      quirk: quirks,
    }),
    { minLength: 1, maxLength: 120 },
  );

const budgets = fc.constantFrom(DEFAULT_PACING_BUDGET, TAKE_EVERYTHING);

describe("the pacing step against a tenant we did not write (property-based)", () => {
  it("lets every queued request out before its deadline or drops it at its deadline, and never stalls with requests waiting", () => {
    fc.assert(
      fc.property(
        tenants,
        requests(fc.integer({ min: 1, max: 30_000 })),
        budgets,
        (tenant, run, budget) => {
          const outcome = simulatePacing(tenant, run, budget);
          expect(outcome.stalls).toBe(0);
          expect(outcome.lateSends).toBe(0);
          expect(outcome.sentAt.length + outcome.expired).toBe(run.length);
        },
      ),
      { seed: PROPERTY_SEED, numRuns: RUNS },
    );
  });

  it("lets every request out when each may wait as long as the slowest plan takes for all of them", () => {
    fc.assert(
      fc.property(tenants, requests(fc.constant(90_000)), budgets, (tenant, run, budget) => {
        // 120 requests at the slowest plan's 2/s take 60 s; the deadlines give 90.
        expect(simulatePacing(tenant, run, budget).expired).toBe(0);
      }),
      { seed: PROPERTY_SEED, numRuns: RUNS },
    );
  });

  it("lets out in any span no more than the tenant's true bucket allows in it, plus the burst", () => {
    fc.assert(
      fc.property(tenants, requests(fc.constant(90_000)), budgets, (tenant, run, budget) => {
        const { sentAt } = simulatePacing(tenant, run, budget);
        const allowed = (ms: number) => tenant.burst + (tenant.rate * ms) / 1000;
        for (let from = 0; from < sentAt.length; from += 1) {
          for (let to = from; to < sentAt.length; to += 1) {
            const span = (sentAt[to] as number) - (sentAt[from] as number);
            expect(to - from + 1).toBeLessThanOrEqual(allowed(span) + tenant.burst);
          }
        }
      }),
      { seed: PROPERTY_SEED, numRuns: RUNS },
    );
  });

  it("never learns a refill rate above the bucket's limit a second", () => {
    fc.assert(
      fc.property(tenants, requests(fc.constant(90_000)), budgets, (tenant, run, budget) => {
        for (const state of simulatePacing(tenant, run, budget).states) {
          const { limit } = state;
          if (limit !== undefined && Number.isFinite(limit)) {
            expect(state.rate).toBeLessThanOrEqual(limit);
          }
        }
      }),
      { seed: PROPERTY_SEED, numRuns: RUNS },
    );
  });

  it("never holds a rate, a count or a window that is not a number, nor an infinite rate", () => {
    fc.assert(
      fc.property(tenants, requests(fc.constant(90_000)), budgets, (tenant, run, budget) => {
        for (const state of simulatePacing(tenant, run, budget).states) {
          expect(Number.isFinite(state.rate)).toBe(true);
          expect(state.rate).toBeGreaterThan(0);
          expect(Number.isNaN(state.tokens)).toBe(false);
          expect(Number.isNaN(state.window)).toBe(false);
        }
      }),
      { seed: PROPERTY_SEED, numRuns: RUNS },
    );
  });
});
