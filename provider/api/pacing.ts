/**
 * The pacing of one process's requests to one tenant, whole and pure: the budget the user sets,
 * the state the limiter keeps, the one step that turns an event into a new state and what to do,
 * and the rules that step applies (docs/design/decisions.md, "Sharing the rate limit"). The limiter
 * (`rate-limiter.ts`) keeps the queue and the timer and calls {@link paceStep} once per event (a
 * request wants to go, an answer came back, the timer it asked for fired, the budget changed, the
 * run ends), the way a resource's plan says what to send, remember and report; nothing here calls
 * back into it, and only the wording of its reports lives apart (`pacing-report.ts`).
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
import type { RateLimitHeaders } from "./rate-limit-headers.js";

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

/** A request let out: when, and its place in this process's order. */
export interface Ticket {
  /** Milliseconds since the epoch. */
  readonly sentAt: number;
  /** 1 for the first request the limiter let out, 2 for the next, ... */
  readonly seq: number;
}

/** Long waits not reported yet: how many, the longest, and what held that one. */
interface WaitTally {
  readonly requests: number;
  readonly longestMs: number;
  readonly heldBy: HeldBy;
}

/**
 * The share of the tenant's rate the other callers must be seen to take before the run names them
 * as what held its requests (or bounds a command's progress): below it, the model's reading of
 * them ({@link othersRate}) is the headers' rounding more than their use.
 */
export const OTHERS_SHOWN_SHARE = 0.2;

/** Whether the other callers' rate, as read, shows their use of the tenant's `rate`. */
function othersShown(others: number | undefined, rate: number): boolean {
  return others !== undefined && others >= OTHERS_SHOWN_SHARE * rate;
}

/** Everything the limiter knows; only {@link paceStep} makes a new one. */
export interface PacingState {
  readonly budget: PacingBudget;
  /** Undefined until an answer states the bucket size; Infinity once answers come without one. */
  readonly limit: number | undefined;
  /**
   * The tenant's refill rate, as learned from the answers of the last span (`learnedRate` in
   * pacing-figures.ts): their largest lower bound, capped by their upper bounds and the limit.
   */
  readonly rate: number;
  /** The least the model paces at: the platform's slowest plan's rate. */
  readonly minimumRate: number;
  /** The figures of the last span's answers, from which {@link rate} is read again each answer. */
  readonly samples: readonly RateSample[];
  /** Whether the answers showed that the tenant rounds its reset down (the figures disagreed). */
  readonly roundsDown: boolean;
  /** The tenant's clock against ours, as the last span's `Date` headers read it. */
  readonly clock: readonly ClockReading[];
  /**
   * A limit other than {@link limit}, said by one answer: adopted when the next answer with a
   * limit says it too, so that no single answer changes the bucket's size.
   */
  readonly newLimit: number | undefined;
  /**
   * What the other callers of the tenant were seen to take, per second; undefined until read (it
   * needs answers half a second apart).
   */
  readonly others: number | undefined;
  /**
   * The least the answers show the other callers took, per second ({@link others} counts the
   * refill a full bucket may have turned away as theirs, which paces with care but would blame
   * them for nothing): what the run is told, and what names them as what held its requests.
   */
  readonly othersSeen: number | undefined;
  /** Tokens the model counts in the bucket, less this process's requests in flight. */
  readonly tokens: number;
  /** When {@link tokens} was last refilled (ms since the epoch). */
  readonly updatedAt: number;
  /** The `seq` of each request of this process in flight, in order. */
  readonly inFlight: readonly number[];
  /** How many requests may be in flight unconfirmed by an answer ({@link nextWindow}). */
  readonly window: number;
  /** Requests let out so far. */
  readonly started: number;
  readonly lastStartAt: number | undefined;
  /** What the latest answer said was left, for the report. */
  readonly lastRemaining: number | undefined;
  /**
   * Whether the latest answer that said anything of the bucket was a 429: the model then counts
   * the bucket empty, and what holds the next requests is that refusal ({@link HeldBy}).
   */
  readonly rejected: boolean;
  /**
   * The most requests that waited at once since the queue last stood empty with no long wait left
   * to report, for the report.
   */
  readonly mostWaiting: number;
  /**
   * The round trip to the tenant as this process sees it, in ms: from a request's start to its
   * answer, averaged over the latest answers; 0 before the first.
   */
  readonly roundTripMs: number;
  /** The answers synchronised on within the last {@link OTHERS_SPAN_MS}, oldest first. */
  readonly anchors: readonly Anchor[];
  /** Requests allowed in flight before an answer has told the bucket size. */
  readonly initialConcurrency: number;
  /** What held the head of the queue, since the oldest waiter queued. */
  readonly holds: readonly HoldSpan[];
  readonly unreported: WaitTally | undefined;
  readonly reportedAt: number;
  /** The tenant's origin, for the report. */
  readonly origin: string;
  /**
   * The budgets asked of this limiter, each with who asked for it first, until one gave way to a
   * more polite one and the run was told ({@link withBudget}); then none.
   */
  readonly asks: readonly BudgetAsk[];
  /** Whether the run was told that a budget gave way: it is told once. */
  readonly toldGivenWay: boolean;
}

/** A budget a resource asked for, and who asked for it first (`ClientSettings "web"`). */
interface BudgetAsk {
  readonly budget: PacingBudget;
  readonly who: string;
}

/** What happened; `at` is when (ms since the epoch), `waiting` when each waiter queued, in order. */
export type PacingEvent =
  | { readonly kind: "queue"; readonly at: number; readonly waiting: readonly number[] }
  | { readonly kind: "timer"; readonly at: number; readonly waiting: readonly number[] }
  | {
      readonly kind: "answer";
      readonly at: number;
      readonly waiting: readonly number[];
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
  | {
      readonly kind: "budget";
      readonly at: number;
      readonly waiting: readonly number[];
      readonly budget: PacingBudget;
      /** Who asks for it, as the run is told when it gives way (`ClientSettings "web"`). */
      readonly who: string;
    }
  | { readonly kind: "end"; readonly at: number };

/** What the limiter does after a step. */
export interface PacingActions {
  /** Tickets for the first `send.length` waiters, in order: they go now. */
  readonly send: readonly Ticket[];
  /** When to step again with a `timer` event; undefined when only an answer can let the next go. */
  readonly wakeAt: number | undefined;
  /** What to tell the run (long waits, a budget that gave way), usually nothing. */
  readonly report: readonly PacingReport[];
}

/** The state of a limiter that has heard no answer yet. */
export function initialPacingState(options: {
  readonly at: number;
  readonly budget: PacingBudget;
  readonly minimumRate: number;
  readonly initialConcurrency: number;
  readonly origin: string;
}): PacingState {
  return {
    budget: options.budget,
    limit: undefined,
    rate: options.minimumRate,
    minimumRate: options.minimumRate,
    samples: [],
    roundsDown: false,
    clock: [],
    newLimit: undefined,
    others: undefined,
    othersSeen: undefined,
    tokens: options.initialConcurrency,
    updatedAt: options.at,
    inFlight: [],
    window:
      options.budget.reserveShare === 0 ? Number.POSITIVE_INFINITY : options.initialConcurrency,
    started: 0,
    lastStartAt: undefined,
    lastRemaining: undefined,
    rejected: false,
    mostWaiting: 0,
    roundTripMs: 0,
    anchors: [],
    initialConcurrency: options.initialConcurrency,
    holds: [],
    unreported: undefined,
    reportedAt: Number.NEGATIVE_INFINITY,
    origin: options.origin,
    asks: [],
    toldGivenWay: false,
  };
}

/** One step: learn from the event, let out what may go, say when to look again and what to tell. */
export function paceStep(
  state: PacingState,
  event: PacingEvent,
): { state: PacingState; actions: PacingActions } {
  if (event.kind !== "end") {
    const s = event.kind === "answer" ? answered(state, event) : refilled(state, event.at);
    const told = event.kind === "budget" ? withBudget(s, event.budget, event.who) : { state: s };
    return released(told.state, event.at, event.waiting, told.told);
  }
  const s = refilled(state, event.at);
  return flushed(s, event.at);
}

/**
 * How many more requests could leave at `at` without waiting, after the `waiting` ones queued
 * before them, at most `upTo`: what a caller that can still choose between calls (the read pass,
 * choosing between single GETs and list pages, docs/design/client-reads.md "Rentals") may send now
 * rather than commit to a wait. The step run on a probe of `upTo` more waiters; the state it would
 * make is dropped.
 */
export function turnsAt(
  state: PacingState,
  at: number,
  waiting: readonly number[],
  upTo: number,
): number {
  const probe = [...waiting, ...Array.from({ length: Math.max(0, upTo) }, () => at)];
  const { actions } = released(refilled(state, at), at, probe, undefined);
  return Math.max(0, actions.send.length - waiting.length);
}

/**
 * The most tokens the model can count before an answer: the bucket's size (before the first
 * answer, the requests allowed then) less this process's requests in flight.
 */
function roomOf(
  limit: number | undefined,
  state: Pick<PacingState, "initialConcurrency">,
  inFlight: readonly number[],
): number {
  return (limit ?? state.initialConcurrency) - inFlight.length;
}

/** The state refilled to `at` at the model's rate. */
export function refilled(state: PacingState, at: number): PacingState {
  const elapsed = Math.max(0, at - state.updatedAt) / 1000;
  const ceiling = roomOf(state.limit, state, state.inFlight);
  const tokens =
    state.tokens < ceiling ? Math.min(ceiling, state.tokens + elapsed * state.rate) : state.tokens;
  return { ...state, tokens, updatedAt: Math.max(state.updatedAt, at) };
}

/**
 * Keeps `budget` too ({@link politest}), asked for by `who`, and says, once, when this or an
 * earlier ask gives way to the more polite budget that holds (naming who asked for the budget that
 * gave way): a resource that asks for a reserve of 0 beside resources on the default would
 * otherwise be paced by a budget it never sees. One ask is kept per distinct budget, so a stack of
 * 200 resources on the default keeps one.
 */
function withBudget(
  state: PacingState,
  budget: PacingBudget,
  who: string,
): { state: PacingState; told?: PacingReport } {
  const next = politest(state.budget, budget);
  const window =
    state.budget.reserveShare === 0 && next.reserveShare > 0
      ? Math.max(1, state.inFlight.length)
      : state.window;
  const kept = { ...state, budget: next, window };
  if (state.toldGivenWay) return { state: kept };
  const asks = state.asks.some((ask) => sameBudget(ask.budget, budget))
    ? state.asks
    : [...state.asks, { budget, who }];
  // The budget that holds is the most polite of all asked: one that differs gave way to it.
  const gaveWay = asks.find((ask) => !sameBudget(ask.budget, next));
  if (gaveWay !== undefined) {
    const givenWay = { who: gaveWay.who, origin: state.origin, asked: gaveWay.budget, holds: next };
    return {
      state: { ...kept, asks: [], toldGivenWay: true },
      told: { kind: "givenWay", givenWay },
    };
  }
  return { state: { ...kept, asks } };
}

/** Two budgets that ask for the same. */
function sameBudget(a: PacingBudget, b: PacingBudget): boolean {
  return a.reserveShare === b.reserveShare && a.maxRequestsPerSecond === b.maxRequestsPerSecond;
}

/**
 * Learns from an answer. The answer tells of the bucket when the server counted the request: the
 * requests of this process let out before it reached the server first and are in its figure, even
 * if their own answers are still on the way back; those let out after it are not. So the count
 * is re-synchronised less only the later ones still in flight: at a round trip of 300 ms, the
 * earlier ones are many, and taking them off again would hold the run back for nothing.
 */
function answered(
  state: PacingState,
  event: Extract<PacingEvent, { kind: "answer" }>,
): PacingState {
  const { headers, status } = event;
  const ticket = event.ticket ?? { sentAt: event.at, seq: state.started };
  // The ticket's request is no longer in flight (the oldest, for an answer given no ticket); the
  // refill up to now counts on the room it leaves.
  const index = event.ticket === undefined ? 0 : Math.max(0, state.inFlight.indexOf(ticket.seq));
  const inFlight = state.inFlight.filter((_, i) => i !== index);
  const fresh = refilled({ ...state, inFlight }, event.at);
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
      const held = resynchronised(tokens + later - since, remaining, state.budget, slack);
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
 * its count ({@link resynchronised}): an event loop's turn on each side and the tenant's handling
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
 * the network ({@link othersInFlight}); the first answer's time as it is.
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
 * Lets out every waiter that may go at `at`, in order, and says when to look again; reports `told`
 * (a budget that gave way) first.
 */
function released(
  state: PacingState,
  at: number,
  waiting: readonly number[],
  told: PacingReport | undefined,
): { state: PacingState; actions: PacingActions } {
  // The queue's peak since it last stood empty with every long wait reported: the waits still to
  // report are those of that peak.
  const fresh = waiting.length === 0 && state.unreported === undefined;
  const mostWaiting = fresh ? 0 : Math.max(state.mostWaiting, waiting.length);
  let s = { ...state, mostWaiting };
  const send: Ticket[] = [];
  const report: PacingReport[] = told === undefined ? [] : [told];
  for (const queuedAt of waiting) {
    const decision = decideStart(
      {
        limit: s.limit,
        reserve: reserveTokens(s.limit, s.budget),
        tokens: s.tokens,
        refillRate: s.rate,
        room: roomOf(s.limit, s, s.inFlight),
        inFlight: s.inFlight.length,
        othersInFlight: othersInFlight(
          {
            others: s.others,
            rate: s.rate,
            roundTripMs: s.roundTripMs,
            inFlight: s.inFlight.length,
          },
          s.limit,
          s.budget,
        ),
        window: s.window,
        lastStartAt: s.lastStartAt,
        othersRate: s.othersSeen,
        rejected: s.rejected,
      },
      s.budget,
      at,
    );
    if (!decision.go) {
      s = { ...s, holds: heldFrom(s.holds, at, decision.heldBy, queuedAt) };
      const wakeAt = Number.isFinite(decision.waitMs) ? at + decision.waitMs : undefined;
      return { state: s, actions: { send, wakeAt, report } };
    }
    const seq = s.started + 1;
    send.push({ sentAt: at, seq });
    s = {
      ...s,
      tokens: s.tokens - 1,
      inFlight: [...s.inFlight, seq],
      started: seq,
      lastStartAt: at,
    };
    const noted = noteWait(s, queuedAt, at);
    s = noted.state;
    if (noted.told !== undefined) report.push(noted.told);
  }
  return { state: { ...s, holds: [] }, actions: { send, wakeAt: undefined, report } };
}

/** Counts a long wait and reports the waits so far at most once a {@link REPORT_INTERVAL_MS}. */
function noteWait(
  state: PacingState,
  queuedAt: number,
  at: number,
): { state: PacingState; told?: PacingReport } {
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
  return at - state.reportedAt < REPORT_INTERVAL_MS ? { state: s } : toldWaits(s, at);
}

/** The long waits not reported yet, as a report, with what the tenant had left. */
function toldWaits(state: PacingState, at: number): { state: PacingState; told?: PacingReport } {
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

/** The end of the run: the long waits not reported yet are reported now. */
function flushed(state: PacingState, at: number): { state: PacingState; actions: PacingActions } {
  const { state: s, told } = toldWaits(state, at);
  return {
    state: s,
    actions: { send: [], wakeAt: undefined, report: told === undefined ? [] : [told] },
  };
}

/**
 * What the limiter knows at one moment, for {@link decideStart}.
 *
 * @internal
 */
export interface BucketView {
  /** The bucket's size; undefined before the first answer, Infinity for a tenant without one. */
  readonly limit: number | undefined;
  /** Whole tokens to leave in the bucket ({@link reserveTokens}). */
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
   * told of yet ({@link othersInFlight}): they take tokens too, so the request needs them on top.
   */
  readonly othersInFlight: number;
  /** How many of them may be in flight at once ({@link nextWindow}). */
  readonly window: number;
  /** When this process's last request went out (ms since the epoch); undefined before the first. */
  readonly lastStartAt: number | undefined;
  /** The least the answers show the other callers took, per second; undefined until read. */
  readonly othersRate: number | undefined;
  /** Whether the latest answer about the bucket was a 429 ({@link PacingState.rejected}). */
  readonly rejected: boolean;
}

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
type HeldBy = "rate" | "others" | "rejected" | "reserve" | "ceiling" | "window";

/**
 * Whether the next request may go now; if not, how long until it may (Infinity: only an answer
 * can change the picture) and what holds it back, for the report of long waits.
 *
 * @internal
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
 *
 * @internal
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

/**
 * The window of requests in flight after an answer: one more when the answer left at least the
 * reserve (so it doubles every round trip while the bucket has room), half when it fell below
 * the reserve or was a 429 (another caller took more than this run counted on). Without a reserve
 * the window is unlimited, as the provider paced before the reserve existed. (Growing by one a
 * round trip once an answer fell, as TCP does, was tried for fairness among runs and gave mixed
 * figures: docs/design/decisions.md, "Sharing the rate limit".)
 *
 * @internal
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
export function resynchronised(
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

/**
 * An answer the model synchronised on: when its request went out, and what it said.
 *
 * @internal
 */
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
const OTHERS_SPAN_MS = 2000;

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
 *
 * @internal
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
function overflowed(chain: readonly Anchor[], limit: number | undefined, rate: number): number {
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
function othersTakeNothing(others: number, rate: number): boolean {
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
 *
 * @internal
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

/**
 * How long a request must have waited on the reserve or the ceiling before the run says so: a
 * wait the user would notice in a pipeline's log, well above a queue's ordinary wait behind a
 * few dozen requests.
 */
const LONG_WAIT_MS = 5000;

/** At most one report of long waits per this many ms: a sentence per stretch, not per request. */
const REPORT_INTERVAL_MS = 30_000;

/** Since `from`, what held the head of the queue (until the next span). */
interface HoldSpan {
  readonly from: number;
  readonly heldBy: HeldBy;
}

/**
 * The spans of what held the queue, with `heldBy` holding it from `at`, and nothing before
 * `since` (when the oldest waiter queued) but the span that covers it.
 */
function heldFrom(
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
 * What the pacing step tells the run ({@link PacingActions.report}): long waits, or a budget that
 * gave way. Data, worded by `describePacingReport` (pacing-report.ts) at the edge.
 */
export type PacingReport =
  | { readonly kind: "holds"; readonly holds: Holds }
  | { readonly kind: "givenWay"; readonly givenWay: GivenWay };
