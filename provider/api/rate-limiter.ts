/**
 * Paces the requests of one process to one tenant so that a large stack runs close to the
 * tenant's rate limit with few or no 429 answers.
 *
 * Why hand-written: the platform announces its bucket in every answer (`x-ratelimit-limit`,
 * `-remaining`, `-reset`), and the pace has to follow those headers answer by answer. Bottleneck's
 * reservoir refills on a fixed 250 ms heartbeat and applies new settings asynchronously, so it lags
 * behind the headers, and p-queue's fixed intervals cannot learn a rate at all; neither can be told
 * "the server says 3 tokens are left". The model here is a plain token bucket (about 100 lines).
 *
 * The model: the server's bucket holds at most `limit` tokens and refills at `rate` per second.
 * Every answer says how many whole tokens were left after that request (`remaining`, rounded
 * down: the server may hold up to one more) and when the bucket will be full again (`reset`, UNIX
 * seconds, rounded up). From one answer, `(limit - remaining - 1) / (reset - now)` is a lower
 * bound of the rate: the numerator is below the tokens missing, and rounding `reset` up only
 * lengthens the denominator. Without the `- 1`, an answer from a nearly full bucket reads as a
 * rate up to twice the tenant's. So the largest bound of the last 10 s converges on the true rate
 * from below: never faster than the tenant allows, and within a few percent of it after a few
 * dozen answers from a drained bucket. A tenant we did not write may keep another clock or round
 * its reset down: the bounds are then read by its `Date`, capped by upper bounds and by the limit
 * a second, and no single answer can fool them (`pacing-figures.ts`; docs/design/decisions.md, "A tenant
 * we did not write"). Each of the tenant's buckets (an endpoint group may have its own) is paced by
 * a model of its own (`pacing-buckets.ts`). `now` is when the request was let out, not when its answer came
 * back: the server counted it in between, so the bound stays a lower bound however late the answer is read (a provider busy
 * for 200 ms would otherwise learn a rate above the tenant's and draw 429s). Between answers the
 * bucket refills locally at that rate; each answer re-synchronises the local count with the
 * server's, less the requests still in flight (which the server may not have counted yet), from
 * the answer to the latest request only: an answer overtaken by a later one is older news.
 *
 * Nothing is decided here: every event (a request wanting to go, an answer, the timer, a budget,
 * the end of the run) is one call of the pure step of `pacing.ts`, which returns the new
 * state and what to do: which waiters go, when to wake up (the moment the next may go, never a
 * poll; none while only an answer can let it go), and what to report. This class keeps the queue,
 * the one timer and the state between steps.
 */

import { CONFIG_KEYS } from "../config.js";
import {
  DEFAULT_PACING_BUDGET,
  initialPacingState,
  type PacingBudget,
  type PacingEvent,
  type PacingReport,
  type PacingState,
  paceStep,
  politest,
  refilled,
  type Ticket,
  turnsAt,
} from "./pacing.js";
import { bucketOf, NO_ROUTES, type Routes, routed, SHARED_BUCKET } from "./pacing-buckets.js";
import { saneLimit } from "./pacing-figures.js";
import { type BudgetNames, describePacingReport } from "./pacing-report.js";
import type { RateLimitHeaders } from "./rate-limit-headers.js";

export type { Ticket } from "./pacing.js";

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
  /** How the run's user spells the budget's settings (the limiter's {@link RateLimiterOptions.budgetNames}). */
  readonly budgetNames?: BudgetNames;
}

/** Options, mostly for tests: the clock, the slowest rate, the first answer's concurrency. */
export interface RateLimiterOptions {
  /** Milliseconds since the epoch; defaults to `Date.now`. */
  readonly now?: () => number;
  /**
   * The slowest rate the tenant can have, known before any answer: 2/s, the platform's slowest
   * plan (docs/design/decisions.md, "Pacing and retries"). Learned bounds below it are ignored; with a bucket of 2,
   * one answer's bound can be half the true rate.
   */
  readonly minimumRate?: number;
  /** Requests allowed in flight before the first answer has told us the bucket size. */
  readonly initialConcurrency?: number;
  /** What the run may take; default {@link DEFAULT_PACING_BUDGET}. */
  readonly budget?: PacingBudget;
  /** The tenant's origin, for the report of long waits. */
  readonly origin?: string;
  /** Where the report of long waits goes (one line each); default nowhere. */
  readonly report?: (line: string) => void;
  /**
   * How the reports name the budget's settings; default the stack config's keys
   * (`tenant:rateLimitReserve`), which a Pulumi program reads.
   */
  readonly budgetNames?: BudgetNames;
}

/** The stack config's keys of the budget, as {@link RateLimiterOptions.budgetNames} defaults. */
const STACK_BUDGET_NAMES: BudgetNames = {
  rateLimitReserve: CONFIG_KEYS.rateLimitReserve.key,
  maxRequestsPerSecond: CONFIG_KEYS.maxRequestsPerSecond.key,
};

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
class BucketPacer {
  private readonly now: () => number;
  private readonly report: ((told: PacingReport) => void) | undefined;
  /**
   * What the state starts from: the first event makes it, so that the model is entered only by a
   * step, one per event, and the constructor only keeps its options.
   */
  private readonly start: Parameters<typeof initialPacingState>[0];
  private pacing: PacingState | undefined;
  private readonly queue: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    start: Parameters<typeof initialPacingState>[0],
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
    const s = refilled(this.pacing ?? initialPacingState(this.start), this.now());
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

/** A request let out: its ticket, its group and the bucket that let it out. */
export interface PacedTicket extends Ticket {
  /** Its method and route (`routeGroup`). */
  readonly group: string;
  /** The bucket that paced it (`bucketOf`). */
  readonly bucket: string;
}

/**
 * Paces the requests of one process to one tenant: one {@link BucketPacer} for each of the
 * tenant's buckets, the shared one first; a group of requests (method and route) moves to a bucket
 * of its own when its answers show one (`routed`, pacing-buckets.ts). One instance per tenant per
 * process (see `getTenantClient`), shared by every resource.
 */
export class TenantRateLimiter {
  private readonly now: () => number;
  /** Says a report of the pacing step in words, naming the settings as the run's user spells them. */
  private readonly report: ((told: PacingReport) => void) | undefined;
  private readonly budgetNames: BudgetNames;
  private readonly start: Parameters<typeof initialPacingState>[0];
  private readonly pacers = new Map<string, BucketPacer>();
  private routes: Routes = NO_ROUTES;
  /** The budgets asked so far, for a bucket found later: the most polite of them (`politest`). */
  private budget: PacingBudget;

  constructor(options: RateLimiterOptions = {}) {
    this.now = options.now ?? Date.now;
    const { report } = options;
    const names = options.budgetNames ?? STACK_BUDGET_NAMES;
    this.budgetNames = names;
    this.report =
      report === undefined ? undefined : (told) => report(describePacingReport(told, names));
    this.budget = options.budget ?? DEFAULT_PACING_BUDGET;
    this.start = {
      at: this.now(),
      budget: this.budget,
      minimumRate: options.minimumRate ?? 2,
      initialConcurrency: options.initialConcurrency ?? 1,
      origin: options.origin ?? "the tenant",
    };
    this.pacers.set(SHARED_BUCKET, new BucketPacer(this.start, this.now, this.report, true));
  }

  /**
   * Makes this limiter keep `budget` too: the larger reserve and the lower ceiling of the two
   * (`politest`), since resources of one tenant share the limiter. When this or an earlier budget
   * gives way to a more polite one, the report says so once, naming `who` asked for it
   * (`ClientSettings "web"`).
   */
  useBudget(budget: PacingBudget, who = "a resource"): void {
    this.budget = politest(this.budget, budget);
    for (const pacer of this.pacers.values()) pacer.useBudget(budget, who);
  }

  /**
   * Waits until a request of `group` (`routeGroup`: its method and route) may go, by the bucket
   * that paces it, then counts it as in flight; call {@link release} with the answer's headers
   * and the ticket this resolves with when it ends (whatever the outcome). Waiters of one bucket
   * are served first come, first served.
   *
   * @throws the signal's reason if `signal` aborts while waiting (no token is taken).
   */
  async acquire(signal?: AbortSignal, group = SHARED_BUCKET): Promise<PacedTicket> {
    const bucket = bucketOf(this.routes, group);
    const ticket = await this.pacer(bucket).acquire(signal);
    return { ...ticket, group, bucket };
  }

  /**
   * Ends a request started with {@link acquire} and learns from its answer. With no headers (a
   * connection error) only the in-flight count changes. A 429 empties the bucket's model: the
   * server just said it is empty, whatever the model thought. An answer that shows its group a
   * bucket of its own starts that bucket's model.
   *
   * @param ticket - what {@link acquire} resolved with; without it, the answer counts as one to a
   *   request of the shared bucket sent just now, after every other in flight.
   */
  release(
    headers: RateLimitHeaders | undefined,
    status?: number,
    ticket?: Ticket | PacedTicket,
  ): void {
    const group = ticket !== undefined && "group" in ticket ? ticket.group : SHARED_BUCKET;
    const bucket = ticket !== undefined && "bucket" in ticket ? ticket.bucket : SHARED_BUCKET;
    const pacer = this.pacer(bucket);
    const at = this.now();
    const announced = saneLimit(headers?.limit) ? headers?.limit : undefined;
    this.routes = routed(this.routes, group, pacer.limit(), announced, at, (limit) =>
      this.holding(limit),
    );
    const moved = bucketOf(this.routes, group);
    if (moved === bucket) {
      pacer.release(headers, status, ticket);
      return;
    }
    // The request was the old bucket's; its answer is the new bucket's first.
    pacer.release(undefined, status, ticket);
    this.pacer(moved).release(headers, status, undefined);
  }

  /** The run ends: every bucket reports the long waits it had not reported yet. */
  end(): void {
    for (const pacer of this.pacers.values()) pacer.end();
  }

  /**
   * How many more requests of `group` could go now without waiting, at most `upTo`
   * ({@link turnsAt}). Asks, changes nothing.
   */
  turnsNow(upTo: number, group = SHARED_BUCKET): number {
    return this.pacer(bucketOf(this.routes, group)).turnsNow(upTo);
  }

  /** The model of the bucket that paces `group` as it stands, for tests and the benchmark report. */
  state(group = SHARED_BUCKET): RateLimiterState {
    return { ...this.pacer(bucketOf(this.routes, group)).state(), budgetNames: this.budgetNames };
  }

  /** The bucket whose model holds `limit`, if any. */
  private holding(limit: number): string | undefined {
    for (const [bucket, pacer] of this.pacers) if (pacer.limit() === limit) return bucket;
    return undefined;
  }

  private pacer(bucket: string): BucketPacer {
    const known = this.pacers.get(bucket);
    if (known !== undefined) return known;
    const start = { ...this.start, at: this.now(), budget: this.budget };
    const pacer = new BucketPacer(start, this.now, this.report, false);
    this.pacers.set(bucket, pacer);
    return pacer;
  }
}
