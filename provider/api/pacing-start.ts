/**
 * The decision whether one more request may go now (docs/design/decisions.md, "Sharing the rate
 * limit"): the ceiling, the window of requests out unanswered, the bucket less the reserve and
 * the other callers' requests on the way; and, when it may not, how long until it may and what
 * holds it, as the run is told. Pure: the pacing step (`pacing.ts`) asks it for each waiter in
 * turn, on a view of its state ({@link BucketView}).
 *
 * @module
 */

import { othersShown, type PacingBudget } from "./pacing-budget.js";
import type { HeldBy } from "./pacing-waits.js";

/**
 * What the limiter knows at one moment, for {@link decideStart}.
 */
export interface BucketView {
  /** The bucket's size; undefined before the first answer, Infinity for a tenant without one. */
  readonly limit: number | undefined;
  /** Whole tokens to leave in the bucket (`reserveTokens`, pacing-budget.ts). */
  readonly reserve: number;
  /** Tokens the model counts in the tenant's bucket, less this process's requests in flight. */
  readonly tokens: number;
  /**
   * Tokens per second the model adds between answers: the tenant's whole rate, as learned, what
   * the other callers take being counted apart ({@link BucketView.othersInFlight}).
   */
  readonly refillRate: number;
  /**
   * The most tokens the model can count before an answer: the bucket's size (before the first
   * answer, the requests allowed then) less this process's requests in flight. A request that
   * needs more waits for an answer, not for the refill.
   */
  readonly room: number;
  /** This process's requests in flight. */
  readonly inFlight: number;
  /**
   * The other callers' requests that will reach the tenant before this one and that no answer has
   * told of yet (`othersInFlight`): they take tokens too, so the request needs them on top.
   */
  readonly othersInFlight: number;
  /** How many of them may be in flight at once (`nextWindow`). */
  readonly window: number;
  /** When this process's last request went out (ms since the epoch); undefined before the first. */
  readonly lastStartAt: number | undefined;
  /** The least the answers show the other callers took, per second; undefined until read. */
  readonly othersRate: number | undefined;
  /** Whether the latest answer about the bucket was a 429 (`PacingState.rejected`). */
  readonly rejected: boolean;
}

/**
 * Whether the next request may go now; if not, how long until it may (Infinity: only an answer
 * can change the picture) and what holds it back, for the report of long waits.
 */
export type StartDecision =
  | { readonly go: true }
  | { readonly go: false; readonly waitMs: number; readonly heldBy: HeldBy };

/**
 * Decides whether one more request may go at `now`:
 * - the ceiling: at most `maxRequestsPerSecond`, so at least `1000 / maxRequestsPerSecond` ms
 *   after the last request of this process;
 * - the window: no more requests in flight than {@link BucketView.window}, nor more than leave
 *   the bucket room for the reserve ({@link BucketView.room}); only an answer ends such a wait;
 * - the bucket: the request must leave at least the reserve ({@link BucketView.reserve}) of tokens
 *   once the other callers' requests already on the network have landed, so it needs
 *   `1 + reserve + othersInFlight` tokens, but never more than the room the bucket has
 *   ({@link BucketView.room}). What holds it then is said by {@link bucketCause}.
 */
export function decideStart(view: BucketView, budget: PacingBudget, now: number): StartDecision {
  const { reserve } = view;
  const ceiling = budget.maxRequestsPerSecond;
  const ceilingWait =
    ceiling === undefined || view.lastStartAt === undefined
      ? 0
      : view.lastStartAt + 1000 / ceiling - now;
  // Never more than the bucket can hold beside the reserve: on a small bucket the others' requests
  // counted on the way would otherwise ask for tokens no refill can bring, and nothing would go.
  const others = Math.min(view.othersInFlight, Math.max(0, view.room - 1 - reserve));
  const missing = 1 + reserve + others - view.tokens;
  // Rounded up to whole ms, less floating-point noise (0.95 of a token at 10/s is 95 ms, not 96).
  const bucketWait = missing <= 0 ? 0 : Math.ceil((missing / view.refillRate) * 1000 - 1e-6);
  // Only an answer can end these waits: no timer, no polling.
  if (view.inFlight >= view.window || 1 + reserve > view.room) {
    return { go: false, waitMs: Number.POSITIVE_INFINITY, heldBy: "window" };
  }
  if (bucketWait <= 0 && ceilingWait <= 0) return { go: true };
  if (ceilingWait >= bucketWait) {
    return { go: false, waitMs: Math.max(1, Math.ceil(ceilingWait)), heldBy: "ceiling" };
  }
  return { go: false, waitMs: Math.max(1, bucketWait), heldBy: bucketCause(view, now) };
}

/**
 * What holds a request that waits for the bucket's refill. With no token: a 429 when the latest
 * answer was one, the other callers when the answers showed their use ({@link othersShown}), else
 * the tenant's rate (this run took the tokens). With a token: the reserve, unless this run's own
 * request took the bucket down to it less than a token's refill ago and nobody else was seen: then
 * the queue is draining at the tenant's rate, which it would do without a reserve too (a reserve
 * costs its tokens' refill once, at the first burst, not a share of the rate: docs/design/decisions.md,
 * "Sharing the rate limit"), so the rate holds it. `--rate-limit-reserve 0` at 2 requests/s
 * was told "its bucket was empty: a 429, or other callers", with neither.
 */
function bucketCause(view: BucketView, now: number): HeldBy {
  const others = othersShown(view.othersRate, view.refillRate);
  if (view.tokens < 1) return view.rejected ? "rejected" : others ? "others" : "rate";
  if (others) return "reserve";
  const ownRecently =
    view.lastStartAt !== undefined && now - view.lastStartAt < 1000 / view.refillRate;
  return ownRecently ? "rate" : "reserve";
}
