/**
 * What one answer may teach the pacing model, and no more (docs/design/decisions.md, "A tenant we did
 * not write"): the tenant's clock against ours (from its `Date`), which of its rate-limit figures
 * are sane, and the bounds they give of the refill rate. Pure; `pacing-answer.ts` keeps what
 * these return in the pacing state and decides nothing here.
 *
 * No single answer can fool the model: a figure that cannot be true is dropped (the previous
 * model is kept), a bound is kept only for {@link BOUNDS_SPAN_MS}, and the rate read from the
 * bounds is capped by upper bounds that hold whether the tenant rounds its reset up or down.
 *
 * @module
 */

/**
 * The largest bucket believed: ten thousand tokens, two hundred times the platform's enterprise
 * bucket of 50. A larger `x-ratelimit-limit` is a figure no tenant means (`1e12` once taught
 * 7.5e11 requests a second) and is ignored.
 */
const LARGEST_LIMIT = 10_000;

/**
 * How long a rate bound or a clock reading counts: ten seconds, tens of answers from a drained
 * bucket (enough for the largest lower bound to come within a few percent of the rate), short
 * enough that one misleading answer stops counting soon after.
 */
export const BOUNDS_SPAN_MS = 10_000;

/** The most bounds kept within the span, so that one step's work stays bounded. */
const MOST_BOUNDS = 64;

/**
 * The tenant's clock less ours, in ms, as an interval the answers narrow: its `Date` is whole
 * seconds rounded down, written between the moment the request left and the moment its answer
 * was read.
 */
export interface ClockOffset {
  /** The offset is at least this. */
  readonly low: number;
  /** The offset is below this. */
  readonly high: number;
}

/** One answer's reading of the tenant's clock. */
export interface ClockReading extends ClockOffset {
  /** When the answer was read (ms since the epoch, our clock). */
  readonly at: number;
}

/** Our clock's offset (none), assumed while no answer has carried a `Date`. */
const SAME_CLOCK: ClockOffset = { low: 0, high: 0 };

/**
 * What one answer's `Date` (`dateMs`, the tenant's clock) says of the offset, for a request that
 * left at `sentAt` and was answered at `at` (our clock): the tenant wrote it at some moment in
 * between, truncated to the second.
 */
export function clockReading(dateMs: number, sentAt: number, at: number): ClockReading {
  return { low: dateMs - at, high: dateMs + 1000 - sentAt, at };
}

/**
 * The readings kept after `reading` (undefined: an answer without `Date`): those of the last
 * {@link BOUNDS_SPAN_MS}; when the new one contradicts them (a clock that jumped, a `Date` that
 * cannot be), only the new one.
 */
export function keptReadings(
  readings: readonly ClockReading[],
  reading: ClockReading | undefined,
): readonly ClockReading[] {
  if (reading === undefined) return readings;
  const recent = readings.filter((r) => reading.at - r.at <= BOUNDS_SPAN_MS).slice(-MOST_BOUNDS);
  const agreed = offsetOf([...recent, reading]);
  return agreed.low < agreed.high ? [...recent, reading] : [reading];
}

/** The offset the readings agree on; our own clock's while there are none. */
export function offsetOf(readings: readonly ClockReading[]): ClockOffset {
  if (readings.length === 0) return SAME_CLOCK;
  return {
    low: Math.max(...readings.map((r) => r.low)),
    high: Math.min(...readings.map((r) => r.high)),
  };
}

/** An answer's rate-limit figures, as read from its headers. */
export interface Figures {
  readonly limit?: number | undefined;
  readonly remaining?: number | undefined;
  readonly reset?: number | undefined;
}

/** The figures of one answer the model may learn from, each checked against the others. */
export interface SaneFigures {
  readonly limit: number;
  /** Undefined when absent or outside `0..limit`. */
  readonly remaining: number | undefined;
  /** Undefined when absent or not a moment the bucket of `limit` can be full again. */
  readonly reset: number | undefined;
}

/**
 * Whether `limit` is a bucket a tenant may have: at least one whole token (a bucket of 0.5 stalled
 * the limiter for good) and at most {@link LARGEST_LIMIT}.
 */
export function saneLimit(limit: number | undefined): limit is number {
  return limit !== undefined && Number.isFinite(limit) && limit >= 1 && limit <= LARGEST_LIMIT;
}

/**
 * The figures of an answer worth reading, or undefined when its limit is not a sane one. The
 * reset must fall between two seconds before the tenant's now and the time the slowest plan
 * (`minimumRate`) takes to fill the whole bucket, plus two seconds for the clocks' rounding:
 * anything else is a figure no bucket of `limit` can mean.
 */
export function saneFigures(
  figures: Figures,
  at: number,
  offset: ClockOffset,
  minimumRate: number,
): SaneFigures | undefined {
  const { limit, remaining, reset } = figures;
  if (!saneLimit(limit)) return undefined;
  const saneRemaining =
    remaining !== undefined && Number.isFinite(remaining) && remaining >= 0 && remaining <= limit
      ? remaining
      : undefined;
  const tenantNow = (at + offset.low) / 1000;
  const latest = (at + offset.high) / 1000 + limit / minimumRate + 2;
  const saneReset =
    reset !== undefined && Number.isFinite(reset) && reset >= tenantNow - 2 && reset <= latest
      ? reset
      : undefined;
  return { limit, remaining: saneRemaining, reset: saneReset };
}

/** What one answer bounded the refill rate by: its figures and its times, read again later. */
export interface RateSample {
  readonly limit: number;
  readonly remaining: number;
  /** UNIX seconds, the tenant's clock. */
  readonly reset: number;
  /** When the request left (ms since the epoch, our clock). */
  readonly sentAt: number;
  /** When its answer was read (ms since the epoch, our clock). */
  readonly at: number;
}

/**
 * The samples kept after `sample`: those of the last {@link BOUNDS_SPAN_MS}, at most
 * {@link MOST_BOUNDS}. A bound is never kept for the rest of the run.
 */
export function keptSamples(
  samples: readonly RateSample[],
  sample: RateSample | undefined,
  at: number,
): readonly RateSample[] {
  const all = sample === undefined ? samples : [...samples, sample];
  return all.filter((s) => at - s.at <= BOUNDS_SPAN_MS).slice(-MOST_BOUNDS);
}

/**
 * The bounds one answer gives of the refill rate, in tokens a second, with the clocks' `offset`:
 *
 * - *low*: `(limit - remaining - 1) / (reset - sentAt)`, the reset read as late as the offset
 *   allows. The numerator is below the tokens missing (`remaining` is rounded down); a reset
 *   rounded up only lengthens the denominator. A reset rounded down can shorten it by up to a
 *   second, so when `roundsDown` a second is added.
 * - *high*: `(limit - remaining) / (reset - answeredAt - 1)`, the reset read as early as the
 *   offset allows: the bucket missed at most `limit - remaining` tokens and, rounded up or down,
 *   the reset is less than a second past the moment it is full. Only for a bucket more than a
 *   second from full.
 */
function rateBounds(
  sample: RateSample,
  offset: ClockOffset,
  roundsDown: boolean,
): { readonly low: number | undefined; readonly high: number | undefined } {
  const missing = sample.limit - sample.remaining - 1;
  const untilLate = (sample.reset * 1000 - offset.low - sample.sentAt) / 1000;
  const low =
    missing > 0 && untilLate > 0 ? missing / (untilLate + (roundsDown ? 1 : 0)) : undefined;
  const untilEarly = (sample.reset * 1000 - offset.high - sample.at) / 1000 - 1;
  const high = untilEarly > 0 ? (sample.limit - sample.remaining) / untilEarly : undefined;
  return { low, high };
}

/** The rate the samples allow, and whether they showed that the tenant rounds its reset down. */
export interface LearnedRate {
  readonly rate: number;
  readonly roundsDown: boolean;
}

/**
 * The refill rate read from the samples of the span: the largest lower bound, never above the
 * smallest upper bound nor above `limit` a second, never below `minimumRate` (the platform's
 * slowest plan); `previous` while the span holds no lower bound (nothing new was said). When a
 * lower bound exceeds an upper bound the figures disagree: the tenant rounds its reset down (or
 * its clock is off and it does not say so, which the model cannot tell apart), and from then on
 * the lower bounds allow for it.
 */
export function learnedRate(
  samples: readonly RateSample[],
  offset: ClockOffset,
  previous: LearnedRate,
  limit: number,
  minimumRate: number,
): LearnedRate {
  const bounds = (roundsDown: boolean) => samples.map((s) => rateBounds(s, offset, roundsDown));
  const extremes = (roundsDown: boolean) => {
    const read = bounds(roundsDown);
    const lows = read.flatMap((b) => (b.low === undefined ? [] : [b.low]));
    const highs = read.flatMap((b) => (b.high === undefined ? [] : [b.high]));
    return {
      low: lows.length > 0 ? Math.max(...lows) : undefined,
      high: highs.length > 0 ? Math.min(...highs) : Number.POSITIVE_INFINITY,
    };
  };
  let roundsDown = previous.roundsDown;
  let { low, high } = extremes(roundsDown);
  if (!roundsDown && low !== undefined && low > high) {
    roundsDown = true;
    ({ low, high } = extremes(true));
  }
  const lowest = Math.min(minimumRate, limit);
  const learned = low === undefined ? previous.rate : Math.max(minimumRate, low);
  const rate = Math.max(lowest, Math.min(learned, high, limit));
  return { rate: Number.isFinite(rate) ? rate : lowest, roundsDown };
}
