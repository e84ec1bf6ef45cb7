/**
 * The limiter's whole decision as one pure step per event (docs/decisions.md, "Sharing the rate
 * limit"): given what the limiter knows and what just happened (a request wants to go, an answer
 * came back, the timer it asked for fired, the budget changed, the run ends), the new state and
 * what to do: which waiting requests to send, when to wake up, what to report. The limiter
 * (`rate-limiter.ts`) keeps the queue and the timer and calls {@link paceStep} once per event, the
 * way a resource's plan says what to send, remember and report; the rules it applies are the pure
 * functions of `pacing.ts`.
 *
 * @module
 */

import {
  type Anchor,
  decideStart,
  describeHolds,
  type HeldBy,
  type HoldSpan,
  heldFrom,
  LONG_WAIT_MS,
  mainCause,
  nextWindow,
  OTHERS_SPAN_MS,
  othersInFlight,
  othersRate,
  type PacingBudget,
  politest,
  REPORT_INTERVAL_MS,
  refillRate,
  reserveTokens,
  resynchronised,
} from "./pacing.js";
import type { RateLimitHeaders } from "./rate-limit-headers.js";

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

/** Everything the limiter knows; only {@link paceStep} makes a new one. */
export interface PacingState {
  readonly budget: PacingBudget;
  /** Undefined until an answer states the bucket size; Infinity once answers come without one. */
  readonly limit: number | undefined;
  /** The tenant's refill rate, as learned (a lower bound). */
  readonly rate: number;
  /** What the other callers of the tenant were seen to take, per second. */
  readonly others: number;
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
    }
  | { readonly kind: "end"; readonly at: number };

/** What the limiter does after a step. */
export interface PacingActions {
  /** Tickets for the first `send.length` waiters, in order: they go now. */
  readonly send: readonly Ticket[];
  /** When to step again with a `timer` event; undefined when only an answer can let the next go. */
  readonly wakeAt: number | undefined;
  /** Lines for the run's log (long waits), usually none. */
  readonly report: readonly string[];
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
    others: 0,
    tokens: options.initialConcurrency,
    updatedAt: options.at,
    inFlight: [],
    window:
      options.budget.reserveShare === 0 ? Number.POSITIVE_INFINITY : options.initialConcurrency,
    started: 0,
    lastStartAt: undefined,
    lastRemaining: undefined,
    roundTripMs: 0,
    anchors: [],
    initialConcurrency: options.initialConcurrency,
    holds: [],
    unreported: undefined,
    reportedAt: Number.NEGATIVE_INFINITY,
    origin: options.origin,
  };
}

/** One step: learn from the event, let out what may go, say when to look again and what to tell. */
export function paceStep(
  state: PacingState,
  event: PacingEvent,
): { state: PacingState; actions: PacingActions } {
  if (event.kind === "end") return flushed(refilled(state, event.at), event.at);
  let s = event.kind === "answer" ? answered(state, event) : refilled(state, event.at);
  if (event.kind === "budget") s = withBudget(s, event.budget);
  return released(s, event.at, event.waiting);
}

/** The state refilled to `at` at the model's rate. */
export function refilled(state: PacingState, at: number): PacingState {
  const elapsed = Math.max(0, at - state.updatedAt) / 1000;
  const ceiling = (state.limit ?? state.initialConcurrency) - state.inFlight.length;
  const rate = refillRate(state.rate, state.others, state.budget);
  const tokens =
    state.tokens < ceiling ? Math.min(ceiling, state.tokens + elapsed * rate) : state.tokens;
  return { ...state, tokens, updatedAt: Math.max(state.updatedAt, at) };
}

function withBudget(state: PacingState, budget: PacingBudget): PacingState {
  const next = politest(state.budget, budget);
  const window =
    state.budget.reserveShare === 0 && next.reserveShare > 0
      ? Math.max(1, state.inFlight.length)
      : state.window;
  return { ...state, budget: next, window };
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
  let { limit, tokens, lastRemaining, anchors, others } = fresh;
  const { remaining, reset } = headers ?? {};
  if (headers?.limit !== undefined && headers.limit > 0) {
    limit = headers.limit;
  } else if (headers !== undefined && status !== 429) {
    // An answer without rate-limit headers: this tenant does not announce a limit.
    limit = Number.POSITIVE_INFINITY;
    tokens = Number.POSITIVE_INFINITY;
  }
  const rate = learnedRate(state.rate, limit, remaining, reset, ticket.sentAt);
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
      const held = resynchronised(tokens + later, remaining, state.budget);
      tokens = held - later;
      lastRemaining = remaining;
      const anchor: Anchor = { sentAt: ticket.sentAt, remaining: held, started: ticket.seq };
      anchors = anchors.filter((a) => anchor.sentAt - a.sentAt <= OTHERS_SPAN_MS);
      const oldest = anchors[0];
      others = (oldest === undefined ? undefined : othersRate(oldest, anchor, rate)) ?? others;
      anchors = [...anchors, anchor];
    }
  }
  const reserve = reserveTokens(limit, state.budget);
  const window =
    headers === undefined
      ? state.window
      : Number.isFinite(limit ?? 0)
        ? nextWindow(state.window, { status, remaining }, limit, state.budget, reserve)
        : // A tenant that gives no figures: nothing for the window to read, so it does not throttle.
          Number.POSITIVE_INFINITY;
  if (status === 429) tokens = Math.min(tokens, -inFlight.length);
  return { ...fresh, limit, rate, others, tokens, window, lastRemaining, anchors, roundTripMs };
}

/**
 * The round trip after one more answer that took `ms`: a moving average that weighs the latest
 * answer a fifth, so that one slow answer does not double the other callers' requests counted on
 * the network ({@link othersInFlight}); the first answer's time as it is.
 */
function nextRoundTrip(averageMs: number, ms: number): number {
  return averageMs === 0 ? ms : 0.8 * averageMs + 0.2 * ms;
}

/**
 * The largest lower bound of the refill rate so far (rate-limiter.ts says why a lower bound):
 * `(limit - remaining - 1) / (reset - sentAt)`, from when the request went out.
 */
function learnedRate(
  rate: number,
  limit: number | undefined,
  remaining: number | undefined,
  reset: number | undefined,
  sentAt: number,
): number {
  if (limit === undefined || !Number.isFinite(limit) || remaining === undefined) return rate;
  if (reset === undefined || remaining < 0) return rate;
  const missing = limit - remaining - 1;
  const secondsToFull = reset - sentAt / 1000;
  if (missing <= 0 || secondsToFull <= 0) return rate;
  return Math.max(rate, missing / secondsToFull);
}

/** Lets out every waiter that may go at `at`, in order, and says when to look again. */
function released(
  state: PacingState,
  at: number,
  waiting: readonly number[],
): { state: PacingState; actions: PacingActions } {
  let s = state;
  const send: Ticket[] = [];
  const report: string[] = [];
  for (const queuedAt of waiting) {
    const decision = decideStart(
      {
        limit: s.limit,
        reserve: reserveTokens(s.limit, s.budget),
        tokens: s.tokens,
        refillRate: refillRate(s.rate, s.others, s.budget),
        room: (s.limit ?? s.initialConcurrency) - s.inFlight.length,
        inFlight: s.inFlight.length,
        othersInFlight: othersInFlight(
          { others: s.others, roundTripMs: s.roundTripMs, inFlight: s.inFlight.length },
          s.limit,
          s.budget,
        ),
        window: s.window,
        lastStartAt: s.lastStartAt,
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
    if (noted.line !== undefined) report.push(noted.line);
  }
  return { state: { ...s, holds: [] }, actions: { send, wakeAt: undefined, report } };
}

/** Counts a long wait and reports the waits so far at most once a {@link REPORT_INTERVAL_MS}. */
function noteWait(
  state: PacingState,
  queuedAt: number,
  at: number,
): { state: PacingState; line?: string } {
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
  return at - state.reportedAt < REPORT_INTERVAL_MS ? { state: s } : flushedLine(s, at);
}

function flushedLine(state: PacingState, at: number): { state: PacingState; line?: string } {
  const tally = state.unreported;
  if (tally === undefined) return { state };
  const line = describeHolds({
    ...tally,
    origin: state.origin,
    remaining: state.lastRemaining,
    limit: state.limit,
    budget: state.budget,
    window: state.window,
  });
  return { state: { ...state, unreported: undefined, reportedAt: at }, line };
}

/** The end of the run: the long waits not reported yet are reported now. */
function flushed(state: PacingState, at: number): { state: PacingState; actions: PacingActions } {
  const { state: s, line } = flushedLine(state, at);
  return {
    state: s,
    actions: { send: [], wakeAt: undefined, report: line === undefined ? [] : [line] },
  };
}
