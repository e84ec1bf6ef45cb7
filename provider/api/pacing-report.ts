/**
 * The wording of what the limiter tells the run, in one place: the pure step of `pacing.ts` decides
 * when to tell and what (requests held long, and by what; a budget that gave way to a more polite
 * one: docs/design/decisions.md, "Sharing the rate limit") and returns it as data; the limiter says it to
 * the user in these words, naming the settings as the user gave them ({@link BudgetNames}).
 *
 * @module
 */

import type { GivenWay, Holds, PacingReport } from "./pacing-waits.js";

/**
 * How the run's user spells the budget's settings, for the reports: a command's flag or
 * environment variable (`--rate-limit-reserve`, `TENANT_RATE_LIMIT_RESERVE`), a Pulumi program's
 * stack config key (`tenant:rateLimitReserve`) or `tenant` input member (`tenant.rateLimitReserve`),
 * all from the one table of settings (`CONFIG_KEYS`, config.ts).
 */
export interface BudgetNames {
  readonly rateLimitReserve: string;
  readonly maxRequestsPerSecond: string;
}

/**
 * The budget's settings as members of a resource's budget, for the line that says a resource's
 * ask gave way: resources of one run may have given theirs each its own way (a `tenant` input, the
 * stack config), so the line names the member, not one spelling.
 */
const MEMBER: BudgetNames = {
  rateLimitReserve: "rateLimitReserve",
  maxRequestsPerSecond: "maxRequestsPerSecond",
};

/** `2`, `2.5`, `0.33`: a rate as people read it. */
export function rateText(value: number): string {
  return value >= 10 ? String(Math.round(value)) : String(Math.round(value * 100) / 100);
}

/** `1 token`, `5 tokens`. */
function tokens(count: number): string {
  return count === 1 ? "1 token" : `${count} tokens`;
}

/**
 * The info line about long waits: how long, what held them as the pacing step saw it (`HeldBy`
 * in pacing.ts: the tenant's rate, its other callers, a 429, the reserve, this run's ceiling, the
 * window of requests waiting for their answers), what the tenant had left, and the setting to
 * tune where there is one, named as `names` says.
 *
 * @internal
 */
export function describeHolds(holds: Holds, names: BudgetNames): string {
  const waited = `${holds.requests === 1 ? "1 request" : `${holds.requests} requests`} to ${holds.origin} waited up to ${(holds.longestMs / 1000).toFixed(1)} s`;
  const known = holds.limit !== undefined && Number.isFinite(holds.limit);
  const left =
    holds.remaining === undefined
      ? ""
      : known
        ? `; the tenant had ${holds.remaining} of its ${holds.limit} tokens left`
        : `; the tenant had ${holds.remaining} tokens left`;
  const rate = `the tenant allows ${rateText(holds.rate)} requests/s`;
  switch (holds.heldBy) {
    case "rate": {
      // What the rate alone makes of the queue: its longest, at the tenant's rate.
      const queue = Math.max(holds.mostWaiting, holds.requests);
      const seconds = Math.max(1, Math.round(queue / holds.rate));
      // A reserve costs its tokens' refill once, not a share of the rate: said as what it adds.
      const reserve =
        holds.reserve === 0
          ? ""
          : `; the reserve of ${tokens(holds.reserve)} left to its other callers (${names.rateLimitReserve} ${holds.budget.reserveShare} of the bucket) adds about ${(holds.reserve / holds.rate).toFixed(1)} s`;
      return `pulumi-tenant: ${waited} for their turn: ${rate}, and ${queue} requests of this run waiting at once take about ${seconds} s at that rate${reserve}${left}`;
    }
    case "others": {
      // Their figure as read now; a stretch they held may have ended by the report.
      const taken =
        holds.others === undefined
          ? "and its other callers took the tokens"
          : `of which its other callers take ${rateText(holds.others)}`;
      return `pulumi-tenant: ${waited} for the tenant's rate limit to refill: ${rate}, ${taken}${left}`;
    }
    case "rejected":
      return `pulumi-tenant: ${waited} for the tenant's rate limit to refill after it answered 429 (too many requests): ${rate}${left}`;
    case "ceiling":
      return `pulumi-tenant: ${waited} under this run's ceiling of ${holds.budget.maxRequestsPerSecond} requests/s (${names.maxRequestsPerSecond})${left}`;
    case "window":
      return (
        `pulumi-tenant: ${waited} for the answers to the ${holds.window === 1 ? "request" : `${holds.window} requests`} ` +
        `already out (the tenant is slow to answer; the run sends more as answers come back)${left}`
      );
    case "reserve": {
      const taken =
        holds.others === undefined ? "" : `: ${rate}, of which they take ${rateText(holds.others)}`;
      return (
        `pulumi-tenant: ${waited} to leave the tenant's other callers a reserve of ${tokens(holds.reserve)} ` +
        `(${names.rateLimitReserve} ${holds.budget.reserveShare} of the bucket)${taken}${left}`
      );
    }
  }
}

/**
 * The info line that tells who asked that the budget gave way: each setting in which it differs
 * from the budget that holds (a smaller reserve; a higher ceiling, or none), as asked and as held.
 * Written in the words of the reports of long waits ({@link describeHolds}).
 */
function describeGivenWay(givenWay: GivenWay): string {
  const { asked, holds } = givenWay;
  const parts: { asked: string; holds: string }[] = [];
  if (asked.reserveShare !== holds.reserveShare) {
    parts.push({
      asked: `${MEMBER.rateLimitReserve} ${asked.reserveShare}`,
      holds: `${holds.reserveShare}`,
    });
  }
  if (asked.maxRequestsPerSecond !== holds.maxRequestsPerSecond) {
    const ceiling = MEMBER.maxRequestsPerSecond;
    parts.push({
      asked:
        asked.maxRequestsPerSecond === undefined
          ? `no ${ceiling}`
          : `${ceiling} ${asked.maxRequestsPerSecond}`,
      holds: `${holds.maxRequestsPerSecond}`,
    });
  }
  return (
    `pulumi-tenant: ${givenWay.who} asks ${givenWay.origin} for ${parts.map((part) => part.asked).join(" and ")}, ` +
    `but others of this run keep ${parts.map((part) => part.holds).join(" and ")}; ` +
    "the more polite budget holds for all of them"
  );
}

/** The info line for one report of the pacing step, naming the settings as `names` says. */
export function describePacingReport(report: PacingReport, names: BudgetNames): string {
  return report.kind === "holds"
    ? describeHolds(report.holds, names)
    : describeGivenWay(report.givenWay);
}
