/**
 * What an answer teaches the model (docs/design/decisions.md, "Sharing the rate limit" and "A tenant
 * we did not write"): the bucket's size and rate read from its figures as no single answer can
 * fool them, the count re-synchronised on what the tenant said was left, the round trip, the
 * other callers' rate since the answers of the span, the window, and a 429's refusal. Pure: the
 * pacing step (`pacing.ts`) calls {@link onAnswer} for each answer, then lets out what may go.
 *
 * @module
 */

import {
  type Anchor,
  nextWindow,
  OTHERS_SPAN_MS,
  othersRate,
  othersTakeNothing,
  overflowed,
  type PacingBudget,
  reserveTokens,
} from "./pacing-budget.js";
import {
  type ClockReading,
  clockReading,
  keptReadings,
  keptSamples,
  learnedRate,
  offsetOf,
  type RateSample,
  saneFigures,
  saneLimit,
} from "./pacing-figures.js";
import { onElapsed, type PacingState, roomOf, type Ticket } from "./pacing-state.js";
import type { RateLimitHeaders } from "./rate-limit-headers.js";

/** An answer, as the pacing step hears it (`PacingEvent`, pacing.ts). */
export interface Answer {
  /** When it was read (ms since the epoch). */
  readonly at: number;
  /** Undefined for no answer at all (a connection error). */
  readonly headers: RateLimitHeaders | undefined;
  readonly status: number | undefined;
  /**
   * The request answered; undefined when the caller does not say (an answer read as soon as
   * its request went out): then it counts as the latest, and every other request in flight
   * as not yet counted by the tenant.
   */
  readonly ticket: Ticket | undefined;
}

/**
 * Learns from an answer. The answer tells of the bucket when the server counted the request: the
 * requests of this process let out before it reached the server first and are in its figure, even
 * if their own answers are still on the way back; those let out after it are not. So the count
 * is re-synchronised less only the later ones still in flight: at a round trip of 300 ms, the
 * earlier ones are many, and taking them off again would hold the run back for nothing.
 */
export function onAnswer(state: PacingState, event: Answer): PacingState {
  const { headers, status } = event;
  const ticket = event.ticket ?? { sentAt: event.at, seq: state.started };
  // The ticket's request is no longer in flight (the oldest, for an answer given no ticket); the
  // refill up to now counts on the room it leaves.
  const index = event.ticket === undefined ? 0 : Math.max(0, state.inFlight.indexOf(ticket.seq));
  const inFlight = state.inFlight.filter((_, i) => i !== index);
  const fresh = onElapsed({ ...state, inFlight }, event.at);
  let { tokens, lastRemaining, anchors, others, othersSeen } = fresh;
  const read = readFigures(fresh, headers, status, ticket.sentAt, event.at);
  const { limit, rate, remaining } = read;
  if (read.unlimited) tokens = Number.POSITIVE_INFINITY;
  const roundTripMs =
    event.ticket === undefined
      ? state.roundTripMs
      : nextRoundTrip(state.roundTripMs, event.at - ticket.sentAt);
  if (remaining !== undefined && remaining >= 0) {
    // Answers come back out of order: one to an earlier request tells of an older, fuller bucket.
    const latest = anchors.at(-1);
    if (latest === undefined || ticket.seq >= latest.started) {
      const later =
        event.ticket === undefined
          ? inFlight.length
          : inFlight.filter((seq) => seq > ticket.seq).length;
      // The model's count when the tenant counted the request, about half the round trip after
      // it went (for a page of 100 clients the answer takes longer than the way there): the
      // count now less the refill since. Compared with the count now, a slow answer read as a
      // bucket a whole token lower than it was, and the next request waited for that token.
      const countedAt = (ticket.sentAt + event.at) / 2;
      const since = Math.max(0, ((event.at - countedAt) / 1000) * rate);
      // A run alone may allow for half the round trip too (when the tenant counted the request
      // is a guess within it): nobody else's requests can hide in that allowance.
      const alone = others !== undefined && othersTakeNothing(others, rate);
      const slack = (rate * (COUNT_TIMING_MS + (alone ? roundTripMs / 2 : 0))) / 1000;
      const held = decideCount(tokens + later - since, remaining, state.budget, slack);
      const ceiling = roomOf(limit, state, inFlight);
      tokens = Math.min(ceiling, held + since - later);
      lastRemaining = remaining;
      const anchor: Anchor = { sentAt: ticket.sentAt, remaining: held, started: ticket.seq };
      anchors = anchors.filter((a) => anchor.sentAt - a.sentAt <= OTHERS_SPAN_MS);
      const oldest = anchors[0];
      const read = oldest === undefined ? undefined : othersRate(oldest, anchor, rate);
      others = read ?? others;
      // What the run is told of them: the least the figures show, the refill a full bucket may
      // have turned away not counted as theirs ({@link overflowed}).
      const overflow = overflowed([...anchors, anchor], limit, rate);
      const seen = oldest === undefined ? undefined : othersRate(oldest, anchor, rate, overflow);
      othersSeen = seen ?? othersSeen;
      anchors = [...anchors, anchor];
    }
  }
  const reserve = reserveTokens(limit, state.budget);
  const window = !Number.isFinite(limit ?? 0)
    ? // A tenant that gives no figures: nothing for the window to read, so it does not throttle.
      Number.POSITIVE_INFINITY
    : read.taught || status === 429
      ? nextWindow(state.window, { status, remaining }, limit, state.budget, reserve)
      : // An answer that said nothing of the bucket (a gateway's 502, a figure ignored) changes
        // nothing: it does not switch the pacing off, nor open the window.
        state.window;
  if (status === 429) tokens = Math.min(tokens, -inFlight.length);
  const rejected = status === 429 ? true : read.taught ? false : state.rejected;
  return {
    ...fresh,
    limit,
    rate,
    samples: read.samples,
    roundsDown: read.roundsDown,
    clock: read.clock,
    newLimit: read.newLimit,
    others,
    othersSeen,
    tokens,
    window,
    lastRemaining,
    rejected,
    anchors,
    roundTripMs,
  };
}

/**
 * What the model allows for the moments it cannot place when an answer's figure is read against
 * its count ({@link decideCount}): an event loop's turn on each side and the tenant's handling
 * before it counts the request. At 2 requests/s, 0.05 of a token: `pulumi-tenant generate`'s counts
 * were 0.01 to 0.04 above the header on loopback. The round trip's uncertainty only for a run
 * alone (at a 100 ms round trip, generate's count was 0.1 above, and it lost a token): allowing
 * half of it to every run let three runs at 150 ms each way take the bucket below the reserve less
 * production's burst (1.95) in the simulation.
 */
const COUNT_TIMING_MS = 25;

/**
 * The round trip after one more answer that took `ms`: a moving average that weighs the latest
 * answer a fifth, so that one slow answer does not double the other callers' requests counted on
 * the network (`othersInFlight`, pacing-budget.ts); the first answer's time as it is.
 */
function nextRoundTrip(averageMs: number, ms: number): number {
  return averageMs === 0 ? ms : 0.8 * averageMs + 0.2 * ms;
}

/** What the model keeps of one answer ({@link readFigures}). */
interface ReadFigures {
  readonly limit: number | undefined;
  readonly newLimit: number | undefined;
  readonly rate: number;
  readonly samples: readonly RateSample[];
  readonly roundsDown: boolean;
  readonly clock: readonly ClockReading[];
  /** The answer's `remaining`, when sane and of the bucket the model holds. */
  readonly remaining: number | undefined;
  /** Whether the answer said something of the bucket the model holds. */
  readonly taught: boolean;
  /** Whether the answer is the first of a tenant that announces no limit. */
  readonly unlimited: boolean;
}

/**
 * Reads an answer's figures as no single answer can fool them (docs/design/decisions.md, "A tenant we
 * did not write"): the tenant's clock from its `Date`; a limit below 1 or absurd, a remaining
 * outside the bucket, a reset no bucket can mean, are ignored with the previous model kept; a
 * limit other than the one held counts once a second answer says it too (the bucket changed:
 * what was learned of the old one is learned again); an answer without figures switches pacing
 * off only when it is the tenant's own (below 500, not a 429) and no answer has yet carried any
 * (a tenant that announces no limit), never for a gateway's 502; and the rate is read again from
 * the bounds of the last span (`learnedRate`).
 */
function readFigures(
  state: PacingState,
  headers: RateLimitHeaders | undefined,
  status: number | undefined,
  sentAt: number,
  at: number,
): ReadFigures {
  const date = headers?.date;
  const clock = keptReadings(
    state.clock,
    date === undefined ? undefined : clockReading(date, sentAt, at),
  );
  const kept: ReadFigures = {
    limit: state.limit,
    newLimit: state.newLimit,
    rate: state.rate,
    samples: state.samples,
    roundsDown: state.roundsDown,
    clock,
    remaining: undefined,
    taught: false,
    unlimited: false,
  };
  if (headers === undefined) return kept;
  const offset = offsetOf(clock);
  const figures = saneFigures(headers, at, offset, state.minimumRate);
  if (figures === undefined) {
    const none =
      headers.limit === undefined && headers.remaining === undefined && headers.reset === undefined;
    const ownAnswer = status !== undefined && status < 500 && status !== 429;
    if (none && ownAnswer && state.limit === undefined) {
      return { ...kept, limit: Number.POSITIVE_INFINITY, taught: true, unlimited: true };
    }
    return kept;
  }
  const held = state.limit;
  const changed = held !== undefined && saneLimit(held) && figures.limit !== held;
  if (changed && state.newLimit !== figures.limit) return { ...kept, newLimit: figures.limit };
  const previous = changed
    ? { rate: state.minimumRate, roundsDown: false }
    : { rate: state.rate, roundsDown: state.roundsDown };
  const { remaining, reset } = figures;
  const sample =
    remaining === undefined || reset === undefined
      ? undefined
      : { limit: figures.limit, remaining, reset, sentAt, at };
  const samples = keptSamples(changed ? [] : state.samples, sample, at);
  const learned = learnedRate(samples, offset, previous, figures.limit, state.minimumRate);
  return {
    ...kept,
    limit: figures.limit,
    newLimit: undefined,
    rate: learned.rate,
    roundsDown: learned.roundsDown,
    samples,
    remaining,
    taught: true,
  };
}

/**
 * What the bucket held after an answered request, as the model re-synchronises on it: the
 * header's `remaining` is whole tokens rounded down, so the bucket held between `remaining` and
 * `remaining + 1`. While the model's own count (`counted`, the tokens it had plus this process's
 * requests in flight) lies in that interval, it is the better figure: it keeps the fraction the
 * header drops, which on a small bucket decides whether the next request waits a whole token's
 * refill too long (with a bucket of 2 and a reserve of 1, snapping to the header took 1.8 x the
 * time the rate allows in test/rate-limiter.test.ts's simulation). A count above it by less than
 * `slack` (the refill of the moments the model cannot place: an event loop's turn on each side,
 * the tenant's handling before it counts) was right but for that timing, and becomes the top of
 * the interval:
 * a run that sent the moment its count reached a whole token found the tenant a hair short of it
 * (`remaining` 0 where the count said 1.02), and dropping to the header's figure cost it a whole
 * token's refill, every other request at 2 requests/s. Further outside, the model was wrong
 * (another caller took tokens), and the header's lower bound wins. Without a reserve, the header
 * alone, as before.
 *
 * @internal
 */
export function decideCount(
  counted: number,
  remaining: number,
  budget: PacingBudget,
  slack = 0,
): number {
  if (budget.reserveShare === 0) return remaining;
  if (counted >= remaining && counted < remaining + 1) return counted;
  return counted >= remaining + 1 && counted < remaining + 1 + slack
    ? remaining + 1 - 1e-6
    : remaining;
}
