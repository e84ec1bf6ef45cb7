/**
 * The state of one process's pacing of one tenant's bucket: everything the limiter knows, as it
 * starts, and what the mere passing of time does to it (the refill at the model's rate). The
 * events change it in the pacing step (`pacing.ts`); what an answer teaches in
 * `pacing-answer.ts`.
 *
 * @module
 */

import type { Anchor, PacingBudget } from "./pacing-budget.js";
import type { ClockReading, RateSample } from "./pacing-figures.js";
import type { WaitsModel } from "./pacing-waits.js";

/** A request let out: when, and its place in this process's order. */
export interface Ticket {
  /** Milliseconds since the epoch. */
  readonly sentAt: number;
  /** 1 for the first request the limiter let out, 2 for the next, ... */
  readonly seq: number;
}

/**
 * Everything the limiter knows; only the pacing step (`paceStep`, pacing.ts) makes a new one. What
 * a wait tells the user is kept in its own part ({@link WaitsModel}).
 */
export interface PacingState extends WaitsModel {
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
  /** How many requests may be in flight unconfirmed by an answer (`nextWindow`, pacing-budget.ts). */
  readonly window: number;
  /** Requests let out so far. */
  readonly started: number;
  readonly lastStartAt: number | undefined;
  /** What the latest answer said was left, for the report. */
  readonly lastRemaining: number | undefined;
  /**
   * Whether the latest answer that said anything of the bucket was a 429: the model then counts
   * the bucket empty, and what holds the next requests is that refusal (`HeldBy`, pacing-waits.ts).
   */
  readonly rejected: boolean;
  /**
   * The round trip to the tenant as this process sees it, in ms: from a request's start to its
   * answer, averaged over the latest answers; 0 before the first.
   */
  readonly roundTripMs: number;
  /** The answers synchronised on within the last `OTHERS_SPAN_MS` (pacing-budget.ts), oldest first. */
  readonly anchors: readonly Anchor[];
  /** Requests allowed in flight before an answer has told the bucket size. */
  readonly initialConcurrency: number;
  /**
   * The budgets asked of this limiter, each with who asked for it first, until one gave way to a
   * more polite one and the run was told (`onBudget`, pacing.ts); then none.
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

/** What a limiter starts from: when, its budget, the slowest rate, the first concurrency, the origin. */
export interface PacingStart {
  readonly at: number;
  readonly budget: PacingBudget;
  readonly minimumRate: number;
  readonly initialConcurrency: number;
  readonly origin: string;
}

/** The state of a limiter that has heard no answer yet. */
export function initialPacingState(options: PacingStart): PacingState {
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

/**
 * The most tokens the model can count before an answer: the bucket's size (before the first
 * answer, the requests allowed then) less this process's requests in flight.
 */
export function roomOf(
  limit: number | undefined,
  state: Pick<PacingState, "initialConcurrency">,
  inFlight: readonly number[],
): number {
  return (limit ?? state.initialConcurrency) - inFlight.length;
}

/**
 * Time passed until `at`: the state refilled at the model's rate, up to the room the bucket has.
 */
export function onElapsed(state: PacingState, at: number): PacingState {
  const elapsed = Math.max(0, at - state.updatedAt) / 1000;
  const ceiling = roomOf(state.limit, state, state.inFlight);
  const tokens =
    state.tokens < ceiling ? Math.min(ceiling, state.tokens + elapsed * state.rate) : state.tokens;
  return { ...state, tokens, updatedAt: Math.max(state.updatedAt, at) };
}
