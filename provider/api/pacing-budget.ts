/**
 * The budget a run shares with the tenant's other callers (docs/design/decisions.md, "Sharing the
 * rate limit"): what the user allows a run to take (the reserve, the ceiling), and how the run
 * reads the others from the answers it gets, the only channel between them: the rate they take
 * ({@link othersRate}), their requests on the way that no answer told of yet
 * ({@link othersInFlight}), and the window of requests let out unconfirmed ({@link nextWindow}).
 * Pure: the pacing step (`pacing.ts`) asks these when an answer comes back and when a request
 * wants to go.
 *
 * The tenant's bucket is one for every caller: the customer's own back ends draw from it too, and
 * every answer's `x-ratelimit-remaining` says what all of them left. So a request goes only while
 * the bucket, less this process's requests in flight, holds more than the reserve; the reserve is
 * never spent, whatever the other callers do, and several runs at once keep it together with no
 * channel between them but those answers. Between answers the model refills at the tenant's
 * whole rate, the same for every run (so that several share the tenant evenly), and a request also
 * needs the tokens the other callers' requests on their way will take ({@link othersInFlight});
 * the requests it lets out unconfirmed by an answer are capped by a window that grows while
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
 * A quarter of the bucket (docs/design/decisions.md, "Sharing the rate limit"): 5 tokens of the bucket of
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

/** Two budgets that ask for the same. */
export function sameBudget(a: PacingBudget, b: PacingBudget): boolean {
  return a.reserveShare === b.reserveShare && a.maxRequestsPerSecond === b.maxRequestsPerSecond;
}

/**
 * The share of the tenant's rate the other callers must be seen to take before the run names them
 * as what held its requests (or bounds a command's progress): below it, the model's reading of
 * them ({@link othersRate}) is the headers' rounding more than their use.
 */
export const OTHERS_SHOWN_SHARE = 0.2;

/** Whether the other callers' rate, as read, shows their use of the tenant's `rate`. */
export function othersShown(others: number | undefined, rate: number): boolean {
  return others !== undefined && others >= OTHERS_SHOWN_SHARE * rate;
}

/**
 * The window of requests in flight after an answer: one more when the answer left at least the
 * reserve (so it doubles every round trip while the bucket has room), half when it fell below
 * the reserve or was a 429 (another caller took more than this run counted on). Without a reserve
 * the window is unlimited, as the provider paced before the reserve existed. (Growing by one a
 * round trip once an answer fell, as TCP does, was tried for fairness among runs and gave mixed
 * figures: docs/design/decisions.md, "Sharing the rate limit".)
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
 * An answer the model synchronised on: when its request went out, and what it said.
 */
export interface Anchor {
  /** When the request went out (ms since the epoch). */
  readonly sentAt: number;
  /**
   * What the bucket held after it: its `x-ratelimit-remaining`, as `decideCount`
   * (pacing-answer.ts) reads it.
   */
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
 * 0.4 token in test/rate-limiter.test.ts's simulation; docs/design/decisions.md, "Sharing the rate
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
export function othersRate(
  from: Anchor,
  to: Anchor,
  rate: number,
  overflow = 0,
): number | undefined {
  const seconds = (to.sentAt - from.sentAt) / 1000;
  if (seconds * 1000 < OTHERS_MIN_SPAN_MS) return undefined;
  const own = to.started - from.started;
  const taken = (from.remaining + rate * seconds - overflow - own - to.remaining) / seconds;
  return Math.min(rate, Math.max(0, taken));
}

/**
 * The refill that a full bucket may have turned away between consecutive answers of `chain`
 * (oldest first), in tokens: after each, the bucket would be full again once the refill covered
 * what it lacked and this process's requests sent in between; the wait past that moment to the
 * next request refilled nothing. Counted as if nobody else took tokens (the fastest the bucket can
 * fill), so {@link othersRate} less it stays a lower bound of their use: without it, a run at a
 * ceiling of 1/s alone on a tenant of 2/s read the other callers at 1/s, and its progress and
 * reports blamed them. 0 for a bucket of unknown or unlimited size.
 */
export function overflowed(
  chain: readonly Anchor[],
  limit: number | undefined,
  rate: number,
): number {
  if (limit === undefined || !Number.isFinite(limit) || !(rate > 0)) return 0;
  let tokens = 0;
  for (let i = 1; i < chain.length; i += 1) {
    const a = chain[i - 1] as Anchor;
    const b = chain[i] as Anchor;
    const between = Math.max(0, b.started - a.started - 1);
    const fullAt = a.sentAt + ((limit - a.remaining + between) / rate) * 1000;
    tokens += (Math.max(0, b.sentAt - fullAt) / 1000) * rate;
  }
  return tokens;
}

/**
 * Whether the other callers' rate, as read ({@link othersRate}), says they take nothing: less
 * than a twentieth of the tenant's rate, which is what the headers' rounding reads for nobody
 * (0.01 to 0.09 requests/s at 2/s, a run alone).
 */
export function othersTakeNothing(others: number, rate: number): boolean {
  return others < rate / 20;
}

/**
 * How many runs like this one a run counts on having requests out at once, beside it: with
 * three, three runs at once kept the bucket at the reserve less production's burst at 0 to
 * 150 ms each way in the simulation; with two, they took it to 0 (docs/design/decisions.md, "Sharing
 * the rate limit").
 */
const RUNS_ALIKE = 3;

/**
 * The fewest of the other callers' requests counted on their way while they take anything: three.
 * With the refill counted at the tenant's whole rate (docs/design/decisions.md, "Sharing the rate limit",
 * fairness), three runs at once on loopback beside production reading in bursts of 3 took the
 * bucket to 1.07 tokens with one counted, 2.04 with two and 2.06 with three; beside production in
 * bursts of 6, two gave the runs 44 429s of their own, three none.
 */
const OTHERS_WHILE_THEY_TAKE = 3;

/**
 * The other callers' requests already on their way that the latest answer did not count, which
 * will take tokens before a request sent now reaches the tenant: answers tell what the others
 * took a round trip ago, never what they have on the network now. At least what their rate
 * ({@link othersRate}) sends in a round trip; at least {@link RUNS_ALIKE} times this process's
 * own requests in flight, since runs that start together ramp up together, faster than a rate
 * read over half a second can follow (at 150 ms each way, two others had 16 requests out while
 * their rate read 4 a second), unless the others' rate has been read and is nothing
 * ({@link othersTakeNothing}; a run alone: it
 * then spends the tokens it held back, which at 150 ms each way had kept 11 tokens of a lone
 * run's first burst unspent and cost it 1 s of 20); and at least {@link OTHERS_WHILE_THEY_TAKE}
 * while the others take anything, however short the round trip: the refill counts on the
 * tenant's whole rate, so what the others take between two answers is counted here. 0 without a
 * reserve, as the provider paced before the reserve existed, and for a tenant that gives no
 * figures.
 */
export function othersInFlight(
  view: {
    /** Undefined until read ({@link othersRate} needs answers half a second apart). */
    readonly others: number | undefined;
    /** The tenant's rate, as learned. */
    readonly rate: number;
    readonly roundTripMs: number;
    readonly inFlight: number;
  },
  limit: number | undefined,
  budget: PacingBudget,
): number {
  if (budget.reserveShare === 0 || limit === undefined || !Number.isFinite(limit)) return 0;
  const others = view.others ?? 0;
  const takeNothing = othersTakeNothing(others, view.rate);
  return Math.max(
    (others * view.roundTripMs) / 1000,
    view.others !== undefined && takeNothing ? 0 : RUNS_ALIKE * view.inFlight,
    takeNothing ? 0 : OTHERS_WHILE_THEY_TAKE,
  );
}
