/**
 * What a wait tells the user (docs/design/decisions.md, "Sharing the rate limit"): what held the
 * head of the queue and for how long, which waits were long enough to say so, and when to say
 * them (at most once a {@link REPORT_INTERVAL_MS}, and at the end of the run), as data; the words
 * are `pacing-report.ts`'s. Pure: the pacing step (`pacing.ts`) notes each request it lets out
 * here, on the part of its state these rules keep ({@link WaitsModel}).
 *
 * @module
 */

import { othersShown, type PacingBudget, reserveTokens } from "./pacing-budget.js";

/**
 * Why a request waits, as the run is told (docs/design/decisions.md, "Sharing the rate limit"):
 * - `rate`: the tenant's rate, this run's own requests having taken the bucket down (a queue
 *   longer than the bucket drains at the tenant's rate, whatever the reserve);
 * - `others`: the tenant's other callers, whose use the answers showed, took the tokens;
 * - `rejected`: the tenant answered 429, and the bucket is refilling from empty;
 * - `reserve`: the bucket has a token for the request, which would take it into the reserve;
 * - `ceiling`: this run's own ceiling (`maxRequestsPerSecond`);
 * - `window`: the window of requests out unanswered (only an answer ends the wait).
 */
export type HeldBy = "rate" | "others" | "rejected" | "reserve" | "ceiling" | "window";

/** Long waits not reported yet: how many, the longest, and what held that one. */
interface WaitTally {
  readonly requests: number;
  readonly longestMs: number;
  readonly heldBy: HeldBy;
}

/**
 * How long a request must have waited on the reserve or the ceiling before the run says so: a
 * wait the user would notice in a pipeline's log, well above a queue's ordinary wait behind a
 * few dozen requests.
 */
const LONG_WAIT_MS = 5000;

/** At most one report of long waits per this many ms: a sentence per stretch, not per request. */
const REPORT_INTERVAL_MS = 30_000;

/** Since `from`, what held the head of the queue (until the next span). */
export interface HoldSpan {
  readonly from: number;
  readonly heldBy: HeldBy;
}

/**
 * The spans of what held the queue, with `heldBy` holding it from `at`, and nothing before
 * `since` (when the oldest waiter queued) but the span that covers it.
 */
export function heldFrom(
  holds: readonly HoldSpan[],
  at: number,
  heldBy: HeldBy,
  since: number,
): HoldSpan[] {
  const kept = holds.filter((_, i) => (holds[i + 1]?.from ?? at) > since);
  const last = kept.at(-1);
  return last?.heldBy === heldBy ? kept : [...kept, { from: at, heldBy }];
}

/**
 * What held a request that queued at `queuedAt` and went at `at` for the longest share of it.
 *
 * @internal
 */
export function mainCause(
  holds: readonly { readonly from: number; readonly heldBy: HeldBy }[],
  queuedAt: number,
  at: number,
): HeldBy | undefined {
  const spent = new Map<HeldBy, number>();
  holds.forEach((span, i) => {
    const from = Math.max(span.from, queuedAt);
    const to = Math.min(holds[i + 1]?.from ?? at, at);
    if (to > from) spent.set(span.heldBy, (spent.get(span.heldBy) ?? 0) + to - from);
  });
  let best: HeldBy | undefined;
  for (const [heldBy, ms] of spent)
    if (best === undefined || ms > (spent.get(best) ?? 0)) best = heldBy;
  return best;
}

/**
 * Long waits since the last report, as `describeHolds` (pacing-report.ts) words them.
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
  /** The tenant's rate as learned, in requests per second. */
  readonly rate: number;
  /** What its other callers were seen to take, per second; undefined when the answers showed no use. */
  readonly others: number | undefined;
  /** The most requests of this run that waited at once in the stretch of these waits. */
  readonly mostWaiting: number;
}

/** A budget that gave way to the more polite one the tenant's resources share. */
export interface GivenWay {
  /** Who asked for it first (`ClientSettings "web"`, or `a resource`). */
  readonly who: string;
  /** The tenant's origin. */
  readonly origin: string;
  readonly asked: PacingBudget;
  /** The budget that holds: the most polite of all asked (`politest`), so never less polite. */
  readonly holds: PacingBudget;
}

/**
 * What the pacing step tells the run (`PacingActions.report`, pacing.ts): long waits, or a budget that
 * gave way. Data, worded by `describePacingReport` (pacing-report.ts) at the edge.
 */
export type PacingReport =
  | { readonly kind: "holds"; readonly holds: Holds }
  | { readonly kind: "givenWay"; readonly givenWay: GivenWay };

/**
 * The part of the pacing state these rules read and keep: the spans of what held the queue, the
 * long waits not reported yet and when the last report went, with what a report says of the
 * bucket.
 */
export interface WaitsModel {
  /** What held the head of the queue, since the oldest waiter queued. */
  readonly holds: readonly HoldSpan[];
  readonly unreported: WaitTally | undefined;
  readonly reportedAt: number;
  /**
   * The most requests that waited at once since the queue last stood empty with no long wait left
   * to report, for the report.
   */
  readonly mostWaiting: number;
  /** The tenant's origin, for the report. */
  readonly origin: string;
  readonly budget: PacingBudget;
  readonly limit: number | undefined;
  readonly rate: number;
  readonly window: number;
  /** What the latest answer said was left, for the report. */
  readonly lastRemaining: number | undefined;
  /** The least the answers show the other callers took, per second; undefined until read. */
  readonly othersSeen: number | undefined;
}

/** Counts a long wait and reports the waits so far at most once a {@link REPORT_INTERVAL_MS}. */
export function noteWait<S extends WaitsModel>(
  state: S,
  queuedAt: number,
  at: number,
): { state: S; told?: PacingReport } {
  const waitedMs = at - queuedAt;
  const heldBy = mainCause(state.holds, queuedAt, at);
  if (waitedMs < LONG_WAIT_MS || heldBy === undefined) return { state };
  const before = state.unreported;
  const unreported: WaitTally = {
    requests: (before?.requests ?? 0) + 1,
    longestMs: Math.max(before?.longestMs ?? 0, waitedMs),
    heldBy: before === undefined || waitedMs >= before.longestMs ? heldBy : before.heldBy,
  };
  const s = { ...state, unreported };
  return at - state.reportedAt < REPORT_INTERVAL_MS ? { state: s } : tellWaits(s, at);
}

/** The long waits not reported yet, as a report, with what the tenant had left. */
export function tellWaits<S extends WaitsModel>(
  state: S,
  at: number,
): { state: S; told?: PacingReport } {
  const tally = state.unreported;
  if (tally === undefined) return { state };
  const reserve = reserveTokens(state.limit, state.budget);
  const holds = {
    ...tally,
    origin: state.origin,
    remaining: state.lastRemaining,
    limit: state.limit,
    budget: state.budget,
    reserve,
    window: state.window,
    rate: state.rate,
    others: othersShown(state.othersSeen, state.rate) ? state.othersSeen : undefined,
    mostWaiting: state.mostWaiting,
  };
  return {
    state: { ...state, unreported: undefined, reportedAt: at },
    told: { kind: "holds", holds },
  };
}
