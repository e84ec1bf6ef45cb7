/**
 * The wording of what the limiter tells the run, in one place: the pure step of `pacing.ts` decides
 * when to tell and what (requests held long, and by what; a budget that gave way to a more polite
 * one: docs/decisions.md, "Sharing the rate limit") and returns it as data; the limiter says it to
 * the user in these words, naming the settings as the `tenant` input spells them.
 *
 * @module
 */

import type { HeldBy, PacingActions, PacingBudget } from "./pacing.js";

/** The budget's settings, as the `tenant` input names them. */
const RESERVE = "rateLimitReserve";
const CEILING = "maxRequestsPerSecond";

/**
 * Long waits since the last report, as {@link describeHolds} words them.
 *
 * @internal
 */
export interface Holds {
  /** The tenant's origin. */
  readonly origin: string;
  /** What held the longest of them back for most of its wait. */
  readonly heldBy: HeldBy;
  /** Requests that waited at least `LONG_WAIT_MS`. */
  readonly requests: number;
  /** The longest of those waits, in ms. */
  readonly longestMs: number;
  /** What the latest answer said the tenant had left, and of how many; undefined if unknown. */
  readonly remaining: number | undefined;
  readonly limit: number | undefined;
  readonly budget: PacingBudget;
  /** Whole tokens the budget leaves in the bucket (`reserveTokens`). */
  readonly reserve: number;
  /** The window of requests out unanswered, as it stands. */
  readonly window: number;
}

/**
 * The info line about long waits: how long, the real cause (the reserve, this run's ceiling, the
 * window of requests waiting for their answers, the tenant's bucket empty after a 429), what the
 * tenant had left, and the setting to tune where there is one. Names the settings as the `tenant`
 * input spells them; docs/guides/sharing-the-rate-limit.md gives every other
 * spelling.
 *
 * @internal
 */
export function describeHolds(holds: Holds): string {
  const waited = `${holds.requests === 1 ? "1 request" : `${holds.requests} requests`} to ${holds.origin} waited up to ${(holds.longestMs / 1000).toFixed(1)} s`;
  const known = holds.limit !== undefined && Number.isFinite(holds.limit);
  const left =
    holds.remaining === undefined
      ? ""
      : known
        ? `; the tenant had ${holds.remaining} of its ${holds.limit} tokens left`
        : `; the tenant had ${holds.remaining} tokens left`;
  switch (holds.heldBy) {
    case "ceiling":
      return `pulumi-tenant: ${waited} under this run's ceiling of ${holds.budget.maxRequestsPerSecond} requests/s (${CEILING})${left}`;
    case "window":
      return (
        `pulumi-tenant: ${waited} for the answers to the ${holds.window === 1 ? "request" : `${holds.window} requests`} ` +
        `already out (the tenant is slow to answer; the run sends more as answers come back)${left}`
      );
    case "bucket":
      return `pulumi-tenant: ${waited} for the tenant's rate limit to refill (its bucket was empty: a 429, or other callers took every token)${left}`;
    case "reserve": {
      return (
        `pulumi-tenant: ${waited} to leave the tenant's other callers a reserve of ${holds.reserve} tokens ` +
        `(${RESERVE} ${holds.budget.reserveShare} of the bucket)${left}`
      );
    }
  }
}

/** A budget that gave way to the more polite one the tenant's resources share. */
interface GivenWay {
  /** Who asked for it first (`ClientSettings "web"`, or `a resource`). */
  readonly who: string;
  /** The tenant's origin. */
  readonly origin: string;
  readonly asked: PacingBudget;
  /** The budget that holds: the most polite of all asked (`politest`), so never less polite. */
  readonly holds: PacingBudget;
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
    parts.push({ asked: `${RESERVE} ${asked.reserveShare}`, holds: `${holds.reserveShare}` });
  }
  if (asked.maxRequestsPerSecond !== holds.maxRequestsPerSecond) {
    parts.push({
      asked:
        asked.maxRequestsPerSecond === undefined
          ? `no ${CEILING}`
          : `${CEILING} ${asked.maxRequestsPerSecond}`,
      holds: `${holds.maxRequestsPerSecond}`,
    });
  }
  return (
    `pulumi-tenant: ${givenWay.who} asks ${givenWay.origin} for ${parts.map((part) => part.asked).join(" and ")}, ` +
    `but others of this run keep ${parts.map((part) => part.holds).join(" and ")}; ` +
    "the more polite budget holds for all of them"
  );
}

/**
 * What the pacing step tells the run ({@link PacingActions.report}): long waits, or a budget that
 * gave way. Data, worded by {@link describePacingReport} at the edge.
 */
export type PacingReport =
  | { readonly kind: "holds"; readonly holds: Holds }
  | { readonly kind: "givenWay"; readonly givenWay: GivenWay };

/** The info line for one report of the pacing step. */
export function describePacingReport(report: PacingReport): string {
  return report.kind === "holds" ? describeHolds(report.holds) : describeGivenWay(report.givenWay);
}
