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
 * rate up to twice the tenant's, and the limiter, which keeps the largest bound, would pace too
 * fast for the rest of the run. So the largest bound seen so far converges on the true rate from
 * below: never faster than the tenant allows, and within a few percent of it after a few dozen
 * answers from a drained bucket. `now` is when the request was let out, not when its answer came
 * back: the server counted it in between, so the bound stays a lower bound however late the answer is read (a provider busy
 * for 200 ms would otherwise learn a rate above the tenant's and draw 429s). Between answers the
 * bucket refills locally at that rate; each answer re-synchronises the local count with the
 * server's, less the requests still in flight (which the server may not have counted yet), from
 * the answer to the latest request only: an answer overtaken by a later one is older news.
 *
 * When a request may go is not decided here: `pacing.ts` decides it from the budget (the reserve
 * left to the tenant's other callers, this run's ceiling) and the model's picture, which this
 * class keeps, and learns, answer by answer.
 */

import {
  type Anchor,
  type BucketView,
  DEFAULT_PACING_BUDGET,
  decideStart,
  describeHolds,
  type HeldBy,
  LONG_WAIT_MS,
  nextWindow,
  OTHERS_SPAN_MS,
  othersRate,
  type PacingBudget,
  politest,
  REPORT_INTERVAL_MS,
  refillRate,
  resynchronised,
} from "./pacing.js";
import type { RateLimitHeaders } from "./rate-limit-headers.js";

/** A snapshot for tests and benchmarks. */
export interface RateLimiterState {
  readonly limit: number | undefined;
  /** The tenant's refill rate, as learned. */
  readonly rate: number;
  /** What the other callers of the tenant were seen to take, per second. */
  readonly othersRate: number;
  readonly tokens: number;
  readonly inFlight: number;
  readonly window: number;
  readonly queued: number;
  readonly budget: PacingBudget;
}

/** A request let out: when, and its place in this process's order (for {@link othersRate}). */
export interface Ticket {
  /** Milliseconds since the epoch. */
  readonly sentAt: number;
  /** 1 for the first request the limiter let out, 2 for the next, ... */
  readonly seq: number;
}

/** Options, mostly for tests: the clock, the slowest rate, the first answer's concurrency. */
export interface RateLimiterOptions {
  /** Milliseconds since the epoch; defaults to `Date.now`. */
  readonly now?: () => number;
  /**
   * The slowest rate the tenant can have, known before any answer: 2/s, the platform's slowest
   * plan (docs/decisions.md, "Pacing and retries"). Learned bounds below it are ignored; with a bucket of 2,
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
}

interface Waiter {
  resolve: (ticket: Ticket) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  queuedAt: number;
}

/**
 * A token bucket that learns the tenant's limit and refill rate from the rate-limit headers and
 * lets requests out as the pure decision of `pacing.ts` allows. One instance per tenant per
 * process (see `getTenantClient`), shared by every resource.
 */
export class TenantRateLimiter {
  private readonly now: () => number;
  private readonly initialConcurrency: number;
  private readonly origin: string;
  private readonly report: ((line: string) => void) | undefined;
  private budget: PacingBudget;
  /** Undefined until an answer states the bucket size; Infinity once answers come without one. */
  private limit: number | undefined;
  private rate: number;
  private others = 0;
  private tokens: number;
  private updatedAt: number;
  private inFlight = 0;
  private window: number;
  private started = 0;
  private lastStartAt: number | undefined;
  private lastRemaining: number | undefined;
  /** The answers synchronised on within the last {@link OTHERS_SPAN_MS}, oldest first. */
  private anchors: Anchor[] = [];
  private readonly queue: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;
  private heldBy: HeldBy | undefined;
  private holds: { heldBy: "reserve" | "ceiling"; requests: number; longestMs: number } | undefined;
  private reportedAt = Number.NEGATIVE_INFINITY;

  constructor(options: RateLimiterOptions = {}) {
    this.now = options.now ?? Date.now;
    this.rate = options.minimumRate ?? 2;
    this.initialConcurrency = options.initialConcurrency ?? 1;
    this.budget = options.budget ?? DEFAULT_PACING_BUDGET;
    this.origin = options.origin ?? "the tenant";
    this.report = options.report;
    this.tokens = this.initialConcurrency;
    this.window =
      this.budget.reserveShare === 0 ? Number.POSITIVE_INFINITY : this.initialConcurrency;
    this.updatedAt = this.now();
  }

  /**
   * Makes this limiter keep `budget` too: the larger reserve and the lower ceiling of the two
   * ({@link politest}), since resources of one tenant share the limiter.
   */
  useBudget(budget: PacingBudget): void {
    const before = this.budget;
    this.budget = politest(before, budget);
    if (before.reserveShare === 0 && this.budget.reserveShare > 0) {
      this.window = Math.max(1, this.inFlight);
    }
    this.drain();
  }

  /**
   * Waits until a request may go, then counts it as in flight; call {@link release} with the
   * answer's headers and the ticket this resolves with when it ends (whatever the outcome).
   * Waiters are served first come, first served.
   *
   * @throws the signal's reason if `signal` aborts while waiting (no token is taken).
   */
  acquire(signal?: AbortSignal): Promise<Ticket> {
    signal?.throwIfAborted();
    return new Promise<Ticket>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal, onAbort: undefined, queuedAt: this.now() };
      if (signal) {
        waiter.onAbort = () => {
          const index = this.queue.indexOf(waiter);
          if (index >= 0) this.queue.splice(index, 1);
          reject(signal.reason);
          this.drain();
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      this.queue.push(waiter);
      this.drain();
    });
  }

  /**
   * Ends a request started with {@link acquire} and learns from its answer. With no headers (a
   * connection error) only the in-flight count changes. A 429 empties the local bucket: the server
   * just said it is empty, whatever the model thought.
   *
   * @param ticket - what {@link acquire} resolved with; defaults to one sent now, for an answer
   *   read as soon as its request went out.
   */
  release(headers: RateLimitHeaders | undefined, status?: number, ticket?: Ticket): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.refill();
    const { limit, remaining, reset } = headers ?? {};
    if (limit !== undefined && limit > 0) {
      this.limit = limit;
    } else if (headers !== undefined && status !== 429) {
      // An answer without rate-limit headers: this tenant does not announce a limit, so do not
      // invent one. A 429 without headers still empties the bucket below.
      this.limit = Number.POSITIVE_INFINITY;
      this.tokens = Number.POSITIVE_INFINITY;
    }
    const sent = ticket ?? { sentAt: this.now(), seq: this.started };
    if (remaining !== undefined && remaining >= 0) {
      this.learnRate(remaining, reset, sent.sentAt);
      // Answers come back out of order: one to an earlier request tells of an older, fuller
      // bucket, and re-synchronising from it would let out requests the tenant then refuses.
      const latest = this.anchors.at(-1);
      if (latest === undefined || sent.seq >= latest.started) {
        const held = resynchronised(this.tokens + this.inFlight, remaining, this.budget);
        this.tokens = held - this.inFlight;
        this.lastRemaining = remaining;
        this.learnOthers({ sentAt: sent.sentAt, remaining: held, started: sent.seq });
      }
    }
    if (headers !== undefined) {
      this.window = nextWindow(this.window, { status, remaining }, this.limit, this.budget);
    }
    if (status === 429) this.tokens = Math.min(this.tokens, -this.inFlight);
    this.drain();
  }

  /** The model as it stands, for tests and the benchmark report. */
  state(): RateLimiterState {
    this.refill();
    return {
      limit: this.limit,
      rate: this.rate,
      othersRate: this.others,
      tokens: this.tokens,
      inFlight: this.inFlight,
      window: this.window,
      queued: this.queue.length,
      budget: this.budget,
    };
  }

  private learnRate(remaining: number, reset: number | undefined, sentAt: number): void {
    if (this.limit === undefined || !Number.isFinite(this.limit) || reset === undefined) return;
    const missing = this.limit - remaining - 1;
    const secondsToFull = reset - sentAt / 1000;
    // A bucket missing less than a token, or a reset already in the past, says nothing about the
    // refill rate.
    if (missing <= 0 || secondsToFull <= 0) return;
    const lowerBound = missing / secondsToFull;
    if (lowerBound > this.rate) this.rate = lowerBound;
  }

  /** Reads the other callers' rate over the answers of the last {@link OTHERS_SPAN_MS}. */
  private learnOthers(anchor: Anchor): void {
    this.anchors = this.anchors.filter((a) => anchor.sentAt - a.sentAt <= OTHERS_SPAN_MS);
    const oldest = this.anchors[0];
    const measured = oldest === undefined ? undefined : othersRate(oldest, anchor, this.rate);
    if (measured !== undefined) this.others = measured;
    this.anchors.push(anchor);
  }

  private refill(): void {
    const now = this.now();
    const elapsed = Math.max(0, now - this.updatedAt) / 1000;
    this.updatedAt = now;
    const ceiling = (this.limit ?? this.initialConcurrency) - this.inFlight;
    const rate = refillRate(this.rate, this.others, this.budget);
    if (this.tokens < ceiling) this.tokens = Math.min(ceiling, this.tokens + elapsed * rate);
  }

  private view(): BucketView {
    return {
      limit: this.limit,
      tokens: this.tokens,
      refillRate: refillRate(this.rate, this.others, this.budget),
      inFlight: this.inFlight,
      window: this.window,
      lastStartAt: this.lastStartAt,
    };
  }

  private drain(): void {
    this.refill();
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.queue.length > 0) {
      const now = this.now();
      const decision = decideStart(this.view(), this.budget, now);
      if (!decision.go) {
        this.heldBy = decision.heldBy;
        // One timer, for the moment the head of the queue can go; none when only an answer can
        // let it go. It keeps the process alive on purpose: a waiting request is work in progress.
        if (Number.isFinite(decision.waitMs)) {
          this.timer = setTimeout(() => {
            this.timer = undefined;
            this.drain();
          }, decision.waitMs);
        }
        return;
      }
      const waiter = this.queue.shift() as Waiter;
      if (waiter.signal && waiter.onAbort) {
        waiter.signal.removeEventListener("abort", waiter.onAbort);
      }
      this.tokens -= 1;
      this.inFlight += 1;
      this.started += 1;
      this.lastStartAt = now;
      this.noteWait(now - waiter.queuedAt, now);
      waiter.resolve({ sentAt: now, seq: this.started });
    }
  }

  /** Counts a long wait on the reserve or the ceiling, and reports at most once an interval. */
  private noteWait(waitedMs: number, now: number): void {
    const heldBy = this.heldBy;
    if (waitedMs < LONG_WAIT_MS || (heldBy !== "reserve" && heldBy !== "ceiling")) return;
    const holds = this.holds ?? { heldBy, requests: 0, longestMs: 0 };
    holds.requests += 1;
    if (waitedMs >= holds.longestMs) {
      holds.longestMs = waitedMs;
      holds.heldBy = heldBy;
    }
    this.holds = holds;
    if (this.report === undefined || now - this.reportedAt < REPORT_INTERVAL_MS) return;
    this.report(
      describeHolds({
        ...holds,
        origin: this.origin,
        remaining: this.lastRemaining,
        limit: this.limit,
        budget: this.budget,
      }),
    );
    this.reportedAt = now;
    this.holds = undefined;
  }
}
