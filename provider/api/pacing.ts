/**
 * When a request to the tenant may go, as pure functions of what the limiter knows: the budget
 * the user set (a reserve of the tenant's bucket left to its other callers, a ceiling on this
 * run's own rate), what the latest answer said, and what this process has in flight. The limiter
 * (`rate-limiter.ts`) keeps the state and the queue and only asks these functions; the model and
 * its reasons are in docs/decisions.md, "Sharing the rate limit".
 *
 * The tenant's bucket is one for every caller: the customer's own back ends draw from it too, and
 * every answer's `x-ratelimit-remaining` says what all of them left. So a request goes only while
 * the bucket, less this process's requests in flight, holds more than the reserve; the reserve is
 * never spent, whatever the other callers do, and several runs at once keep it together with no
 * channel between them but those answers. Between answers the model refills at the rate the
 * bucket has been seen to grow for this process (the tenant's rate less what everyone else takes),
 * and the requests it lets out unconfirmed by an answer are capped by a window that grows while
 * answers stay above the reserve and halves when one falls below it, so that runs which read the
 * same answer at the same moment cannot together spend more than the reserve holds.
 *
 * @module
 */

/** What the user allows a run to take of the tenant's rate limit. */
export interface PacingBudget {
  /**
   * The share of the tenant's bucket (`x-ratelimit-limit`) never spent, left to the tenant's
   * other callers: from 0 (take everything) to below 1.
   */
  readonly reserveShare: number;
  /** This run's own ceiling, in requests per second; undefined for none. */
  readonly maxRequestsPerSecond: number | undefined;
}

/**
 * A quarter of the bucket (docs/decisions.md, "Sharing the rate limit"): 5 tokens of the bucket of
 * 20 that a tenant at 10 requests/s has, 13 of an enterprise bucket of 50, 3 of a bucket of 10,
 * so a production back end's burst of a few requests always finds tokens, and several runs that
 * each overshoot by a request or two still leave some. It costs a run a quarter of the first
 * burst, not of its rate: 0.5 s of an `up` of 200 clients at 10/s.
 */
export const DEFAULT_PACING_BUDGET: PacingBudget = {
  reserveShare: 0.25,
  maxRequestsPerSecond: undefined,
};

/**
 * The budget of a run that takes every token the tenant has, as the provider did before the
 * reserve existed.
 *
 * @internal
 */
export const TAKE_EVERYTHING: PacingBudget = { reserveShare: 0, maxRequestsPerSecond: undefined };

/**
 * The budget two users of one limiter agree on: the larger reserve and the lower ceiling. One
 * process paces each tenant with one limiter, so resources of one tenant that ask for different
 * budgets all get the most polite one.
 */
export function politest(a: PacingBudget, b: PacingBudget): PacingBudget {
  const ceilings = [a.maxRequestsPerSecond, b.maxRequestsPerSecond].filter(
    (ceiling): ceiling is number => ceiling !== undefined,
  );
  return {
    reserveShare: Math.max(a.reserveShare, b.reserveShare),
    maxRequestsPerSecond: ceilings.length > 0 ? Math.min(...ceilings) : undefined,
  };
}

/**
 * Whole tokens left untouched in a bucket of `limit`: the reserve share of it, rounded up, but
 * never the whole bucket (a bucket of 1 or 2 would otherwise never let a request go); 0 while the
 * bucket size is unknown or unlimited (a tenant without rate-limit headers).
 */
export function reserveTokens(limit: number | undefined, budget: PacingBudget): number {
  if (limit === undefined || !Number.isFinite(limit)) return 0;
  return Math.max(0, Math.min(Math.ceil(limit * budget.reserveShare), Math.floor(limit) - 1));
}

/** What the limiter knows at one moment, for {@link decideStart}. */
export interface BucketView {
  /** The bucket's size; undefined before the first answer, Infinity for a tenant without one. */
  readonly limit: number | undefined;
  /** Whole tokens to leave in the bucket ({@link reserveTokens}). */
  readonly reserve: number;
  /** Tokens the model counts in the tenant's bucket, less this process's requests in flight. */
  readonly tokens: number;
  /** Tokens per second the model adds between answers (see {@link refillRate}). */
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
   * told of yet ({@link othersInFlight}): they take tokens too, so the request needs them on top.
   */
  readonly othersInFlight: number;
  /** How many of them may be in flight at once ({@link nextWindow}). */
  readonly window: number;
  /** When this process's last request went out (ms since the epoch); undefined before the first. */
  readonly lastStartAt: number | undefined;
}

/**
 * Why a request waits: the tenant's bucket is empty (a 429 said so, or the answers), the reserve,
 * this run's ceiling, or the window of requests out unanswered.
 */
export type HeldBy = "bucket" | "reserve" | "ceiling" | "window";

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
 *   ({@link BucketView.room}). Held by "reserve" when it would have had a token without them, by
 *   "bucket" when the tenant itself has none.
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
  const bucketWait = missing <= 0 ? 0 : Math.ceil((missing / view.refillRate) * 1000);
  // Only an answer can end these waits: no timer, no polling.
  if (view.inFlight >= view.window || 1 + reserve > view.room) {
    return { go: false, waitMs: Number.POSITIVE_INFINITY, heldBy: "window" };
  }
  if (bucketWait <= 0 && ceilingWait <= 0) return { go: true };
  if (ceilingWait >= bucketWait) {
    return { go: false, waitMs: Math.max(1, Math.ceil(ceilingWait)), heldBy: "ceiling" };
  }
  return {
    go: false,
    waitMs: Math.max(1, bucketWait),
    heldBy: view.tokens >= 1 ? "reserve" : "bucket",
  };
}

/**
 * The window of requests in flight after an answer: one more when the answer left at least the
 * reserve (so it doubles every round trip while the bucket has room), half when it fell below
 * the reserve or was a 429 (another caller took more than this run counted on). Without a reserve
 * the window is unlimited, as the provider paced before the reserve existed. (Growing by one a
 * round trip once an answer fell, as TCP does, was tried for fairness among runs and gave mixed
 * figures: docs/decisions.md, "Sharing the rate limit".)
 */
export function nextWindow(
  window: number,
  answer: { readonly status: number | undefined; readonly remaining: number | undefined },
  limit: number | undefined,
  budget: PacingBudget,
  reserve: number,
): number {
  if (budget.reserveShare === 0) return Number.POSITIVE_INFINITY;
  const fell =
    answer.status === 429 || (answer.remaining !== undefined && answer.remaining < reserve);
  if (fell) return Math.max(1, Math.floor(window / 2));
  const largest = limit !== undefined && Number.isFinite(limit) ? limit : Number.POSITIVE_INFINITY;
  return Math.min(largest, window + 1);
}

/**
 * What the bucket held after an answered request, as the model re-synchronises on it: the
 * header's `remaining` is whole tokens rounded down, so the bucket held between `remaining` and
 * `remaining + 1`. While the model's own count (`counted`, the tokens it had plus this process's
 * requests in flight) lies in that interval, it is the better figure: it keeps the fraction the
 * header drops, which on a small bucket decides whether the next request waits a whole token's
 * refill too long (with a bucket of 2 and a reserve of 1, snapping to the header took 1.8 x the
 * time the rate allows in test/rate-limiter.test.ts's simulation). Outside the interval the model was wrong (another caller took tokens, or it refilled
 * past the header), and the header's lower bound wins. Without a reserve, the header alone, as
 * before.
 */
export function resynchronised(counted: number, remaining: number, budget: PacingBudget): number {
  if (budget.reserveShare === 0) return remaining;
  return counted >= remaining && counted < remaining + 1 ? counted : remaining;
}

/** An answer the model synchronised on: when its request went out, and what it said. */
export interface Anchor {
  /** When the request went out (ms since the epoch). */
  readonly sentAt: number;
  /** What the bucket held after it: its `x-ratelimit-remaining`, as {@link resynchronised} reads it. */
  readonly remaining: number;
  /** How many requests this process had let out up to and including that one. */
  readonly started: number;
}

/**
 * How long a span of answers {@link othersRate} reads: long enough that `remaining`'s rounding
 * (up to one token at each end) moves the estimate by at most 1 request/s, short enough that the
 * estimate follows the other callers within two seconds. Between spans every answer still
 * re-synchronises the count at once.
 */
export const OTHERS_SPAN_MS = 2000;

/**
 * The shortest span {@link othersRate} reads: half a second, so that runs which start together
 * see each other within their first burst (with a second, three runs at once took the bucket to
 * 0.4 token in test/rate-limiter.test.ts's simulation; docs/decisions.md, "Sharing the rate
 * limit"). Its rounding is coarser (up to 4 requests/s), which only makes the first estimates
 * cautious or bold for the second and a half until the span is whole; {@link othersInFlight}
 * does not rely on them alone.
 */
const OTHERS_MIN_SPAN_MS = 500;

/**
 * The rate at which the tenant's other callers took tokens between two answers, from what the
 * bucket should have held had only this process used it: `from.remaining` plus the refill, less
 * this process's requests in between, against `to.remaining`. Never below 0 nor above the
 * tenant's rate. Undefined when the span is shorter than {@link OTHERS_MIN_SPAN_MS} (too coarse to
 * read).
 */
export function othersRate(from: Anchor, to: Anchor, rate: number): number | undefined {
  const seconds = (to.sentAt - from.sentAt) / 1000;
  if (seconds * 1000 < OTHERS_MIN_SPAN_MS) return undefined;
  const own = to.started - from.started;
  const taken = (from.remaining + rate * seconds - own - to.remaining) / seconds;
  return Math.min(rate, Math.max(0, taken));
}

/**
 * The rate the model refills at between answers. Without a reserve, the tenant's rate, as before:
 * a run that takes everything does not care who else draws. With one, the tenant's rate less what
 * the other callers were seen to take, so that this process does not count on tokens they spend
 * (with three runs and production drawing, counting on the whole rate put the bucket near empty).
 * At least a tenth of the tenant's rate, so that a run whose estimate is too low still sends the
 * request whose answer corrects it.
 */
export function refillRate(rate: number, others: number, budget: PacingBudget): number {
  if (budget.reserveShare === 0) return rate;
  return Math.max(rate / 10, rate - others);
}

/**
 * How many runs like this one a run counts on having requests out at once, beside it: with
 * three, three runs at once kept the bucket at the reserve less production's burst at 0 to
 * 150 ms each way in the simulation; with two, they took it to 0 (docs/decisions.md, "Sharing
 * the rate limit").
 */
const RUNS_ALIKE = 3;

/**
 * The other callers' requests already on their way that the latest answer did not count, which
 * will take tokens before a request sent now reaches the tenant: answers tell what the others
 * took a round trip ago, never what they have on the network now. At least what their rate
 * ({@link othersRate}) sends in a round trip; at least {@link RUNS_ALIKE} times this process's
 * own requests in flight, since runs that start together ramp up together, faster than a rate
 * read over half a second can follow (at 150 ms each way, two others had 16 requests out while
 * their rate read 4 a second); and at least one while the others take anything, however short the
 * round trip (on loopback, three runs that counted none of theirs took the bucket to 1.4 tokens).
 * 0 without a reserve, as the provider paced before the reserve existed, and for a tenant that
 * gives no figures. The cost for a run alone: that many tokens of its first burst left unspent, 6
 * at 150 ms each way (0.9 s of a 28 s run beside production).
 */
export function othersInFlight(
  view: { readonly others: number; readonly roundTripMs: number; readonly inFlight: number },
  limit: number | undefined,
  budget: PacingBudget,
): number {
  if (budget.reserveShare === 0 || limit === undefined || !Number.isFinite(limit)) return 0;
  const onTheirWay = (view.others * view.roundTripMs) / 1000;
  return Math.max(onTheirWay, RUNS_ALIKE * view.inFlight, view.others > 0 ? 1 : 0);
}

/**
 * How long a request must have waited on the reserve or the ceiling before the run says so: a
 * wait the user would notice in a pipeline's log, well above a queue's ordinary wait behind a
 * few dozen requests.
 */
export const LONG_WAIT_MS = 5000;

/** At most one report of long waits per this many ms: a sentence per stretch, not per request. */
export const REPORT_INTERVAL_MS = 30_000;

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

/** What held a request that queued at `queuedAt` and went at `at` for the longest share of it. */
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

/** Long waits since the last report, as {@link describeHolds} words them. */
export interface Holds {
  /** The tenant's origin. */
  readonly origin: string;
  /** What held the longest of them back for most of its wait. */
  readonly heldBy: HeldBy;
  /** Requests that waited at least {@link LONG_WAIT_MS}. */
  readonly requests: number;
  /** The longest of those waits, in ms. */
  readonly longestMs: number;
  /** What the latest answer said the tenant had left, and of how many; undefined if unknown. */
  readonly remaining: number | undefined;
  readonly limit: number | undefined;
  readonly budget: PacingBudget;
  /** The window of requests out unanswered, as it stands. */
  readonly window: number;
}

/**
 * The info line about long waits: how long, the real cause (the reserve, this run's ceiling, the
 * window of requests waiting for their answers, the tenant's bucket empty after a 429), what the
 * tenant had left, and the setting to tune where there is one. Names the settings as the `tenant`
 * input spells them; the README's "Sharing the rate limit with production" gives every other
 * spelling.
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
      return `pulumi-tenant: ${waited} under this run's ceiling of ${holds.budget.maxRequestsPerSecond} requests/s (maxRequestsPerSecond)${left}`;
    case "window":
      return (
        `pulumi-tenant: ${waited} for the answers to the ${holds.window === 1 ? "request" : `${holds.window} requests`} ` +
        `already out (the tenant is slow to answer; the run sends more as answers come back)${left}`
      );
    case "bucket":
      return `pulumi-tenant: ${waited} for the tenant's rate limit to refill (its bucket was empty: a 429, or other callers took every token)${left}`;
    case "reserve": {
      const reserve = reserveTokens(holds.limit, holds.budget);
      return (
        `pulumi-tenant: ${waited} to leave the tenant's other callers a reserve of ${reserve} tokens ` +
        `(rateLimitReserve ${holds.budget.reserveShare} of the bucket)${left}`
      );
    }
  }
}
