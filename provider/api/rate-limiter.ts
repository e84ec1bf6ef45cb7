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
 * Nothing is decided here: each bucket is paced by the pure step of `pacing.ts`, through a
 * {@link BucketPacer} (`bucket-pacer.ts`) that keeps its queue, its one timer and its state
 * between steps; this class keeps one per bucket and routes each request to its bucket.
 */

import { BucketPacer, type RateLimiterState } from "./bucket-pacer.js";
import { bucketOf, NO_ROUTES, type Routes, routed, SHARED_BUCKET } from "./pacing-buckets.js";
import { DEFAULT_PACING_BUDGET, type PacingBudget, politest } from "./pacing-budget.js";
import { saneLimit } from "./pacing-figures.js";
import { type BudgetNames, describePacingReport } from "./pacing-report.js";
import type { PacingStart, Ticket } from "./pacing-state.js";
import type { PacingReport } from "./pacing-waits.js";
import type { RateLimitHeaders } from "./rate-limit-headers.js";
import { STACK_KEYS } from "./settings.js";

export type { RateLimiterState } from "./bucket-pacer.js";
export type { Ticket } from "./pacing-state.js";

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
  rateLimitReserve: STACK_KEYS.rateLimitReserve,
  maxRequestsPerSecond: STACK_KEYS.maxRequestsPerSecond,
};

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
  private readonly start: PacingStart;
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
