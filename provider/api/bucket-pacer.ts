/**
 * One of the tenant's buckets, paced: the queue of requests waiting for it, the one timer, and the
 * pacing state between steps. Nothing is decided here: every event (a request wanting to go, an
 * answer, the timer, a budget, the end of the run) is one call of the pure step of `pacing.ts`,
 * which returns the new state and what to do: which waiters go, when to wake up (the moment the
 * next may go, never a poll; none while only an answer can let it go), and what to report. The
 * tenant's limiter (`rate-limiter.ts`) keeps one per bucket.
 *
 * @module
 */

import { type PacingEvent, paceStep, turnsAt } from "./pacing.js";
import type { PacingBudget } from "./pacing-budget.js";
import type { BudgetNames } from "./pacing-report.js";
import {
  initialPacingState,
  onElapsed,
  type PacingStart,
  type PacingState,
  type Ticket,
} from "./pacing-state.js";
import type { PacingReport } from "./pacing-waits.js";
import type { RateLimitHeaders } from "./rate-limit-headers.js";

/** A snapshot for tests and benchmarks. */
export interface RateLimiterState {
  readonly limit: number | undefined;
  /** The tenant's refill rate, as learned. */
  readonly rate: number;
  /** What the other callers of the tenant were seen to take, per second, as the pacing counts it. */
  readonly othersRate: number;
  /** The least the answers show they took, per second: what the run is told of them. */
  readonly othersSeen: number;
  readonly tokens: number;
  readonly inFlight: number;
  readonly window: number;
  readonly queued: number;
  readonly budget: PacingBudget;
  /** How the run's user spells the budget's settings (the limiter's `RateLimiterOptions.budgetNames`). */
  readonly budgetNames?: BudgetNames;
}

/**
 * The longest delay Node's timers take (2^31 - 1 ms, about 24.8 days): a longer one fires after
 * 1 ms, so a ceiling of 1e-9 requests a second once woke the limiter every millisecond. A wait
 * longer than this is slept in steps of it, each step asking the model again.
 */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

interface Waiter {
  resolve: (ticket: Ticket) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  queuedAt: number;
}

/**
 * One of the tenant's buckets: a token bucket that learns its limit and refill rate from the
 * rate-limit headers and lets requests out as the pure step of `pacing.ts` says.
 */
export class BucketPacer {
  private readonly now: () => number;
  private readonly report: ((told: PacingReport) => void) | undefined;
  /**
   * What the state starts from: the first event makes it, so that the model is entered only by a
   * step, one per event, and the constructor only keeps its options.
   */
  private readonly start: PacingStart;
  private pacing: PacingState | undefined;
  private readonly queue: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    start: PacingStart,
    now: () => number,
    report: ((told: PacingReport) => void) | undefined,
    /** Whether this bucket tells of a budget that gave way: the shared one does, for all. */
    private readonly tellsGivenWay: boolean,
  ) {
    this.now = now;
    this.report = report;
    this.start = start;
  }

  /** The bucket's size as the model holds it; undefined before its first answer. */
  limit(): number | undefined {
    return this.pacing?.limit;
  }

  /**
   * Makes this limiter keep `budget` too: the larger reserve and the lower ceiling of the two
   * (`politest`), since resources of one tenant share the limiter. When this or an earlier budget
   * gives way to a more polite one, the report says so once, naming `who` asked for it
   * (`ClientSettings "web"`).
   */
  useBudget(budget: PacingBudget, who: string): void {
    this.step({ kind: "budget", at: this.now(), waiting: this.waiting(), budget, who });
  }

  /**
   * Waits until a request may go, then counts it as in flight; call {@link release} with the
   * answer's headers and the ticket this resolves with when it ends (whatever the outcome).
   * Waiters are served first come, first served.
   *
   * @throws the signal's reason if `signal` aborts while waiting (no token is taken).
   */
  acquire(signal: AbortSignal | undefined): Promise<Ticket> {
    signal?.throwIfAborted();
    return new Promise<Ticket>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal, onAbort: undefined, queuedAt: this.now() };
      if (signal) {
        waiter.onAbort = () => {
          const index = this.queue.indexOf(waiter);
          if (index >= 0) this.queue.splice(index, 1);
          reject(signal.reason);
          this.step({ kind: "queue", at: this.now(), waiting: this.waiting() });
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      this.queue.push(waiter);
      this.step({ kind: "queue", at: this.now(), waiting: this.waiting() });
    });
  }

  /**
   * Ends a request started with {@link acquire} and learns from its answer. With no headers (a
   * connection error) only the in-flight count changes. A 429 empties the local bucket: the server
   * just said it is empty, whatever the model thought.
   *
   * @param ticket - what {@link acquire} resolved with; without it, the answer counts as one to a
   *   request sent just now, after every other in flight.
   */
  release(
    headers: RateLimitHeaders | undefined,
    status: number | undefined,
    ticket: Ticket | undefined,
  ): void {
    const at = this.now();
    this.step({ kind: "answer", at, waiting: this.waiting(), headers, status, ticket });
  }

  /**
   * The run ends: long waits not reported yet are reported now (a run's last minutes of waiting
   * would otherwise go unsaid).
   */
  end(): void {
    this.step({ kind: "end", at: this.now() });
  }

  /**
   * How many more requests could go now without waiting, at most `upTo` ({@link turnsAt}). Asks,
   * changes nothing: a request still takes its turn with {@link acquire}, and between the two
   * another may have taken it.
   */
  turnsNow(upTo: number): number {
    return turnsAt(this.pacing ?? initialPacingState(this.start), this.now(), this.waiting(), upTo);
  }

  /** The model as it stands, for tests and the benchmark report. */
  state(): RateLimiterState {
    const s = onElapsed(this.pacing ?? initialPacingState(this.start), this.now());
    return {
      limit: s.limit,
      rate: s.rate,
      othersRate: s.others ?? 0,
      othersSeen: s.othersSeen ?? 0,
      tokens: s.tokens,
      inFlight: s.inFlight.length,
      window: s.window,
      queued: this.queue.length,
      budget: s.budget,
    };
  }

  private waiting(): number[] {
    return this.queue.map((waiter) => waiter.queuedAt);
  }

  /** Runs one step and does what it says: reports, lets out the waiters, sets the one timer. */
  private step(event: PacingEvent): void {
    const before = this.pacing ?? initialPacingState(this.start);
    const { state, actions } = paceStep(before, event);
    this.pacing = state;
    for (const told of actions.report) {
      if (told.kind === "givenWay" && !this.tellsGivenWay) continue;
      this.report?.(told);
    }
    for (const ticket of actions.send) {
      const waiter = this.queue.shift() as Waiter;
      if (waiter.signal && waiter.onAbort) {
        waiter.signal.removeEventListener("abort", waiter.onAbort);
      }
      waiter.resolve(ticket);
    }
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    // One timer, for the moment the head of the queue can go; none when only an answer can let it
    // go. It keeps the process alive on purpose: a waiting request is work in progress.
    if (actions.wakeAt !== undefined) {
      this.timer = setTimeout(
        () => {
          this.timer = undefined;
          this.step({ kind: "timer", at: this.now(), waiting: this.waiting() });
        },
        Math.min(LONGEST_TIMER_MS, Math.max(0, actions.wakeAt - this.now())),
      );
    }
  }
}
