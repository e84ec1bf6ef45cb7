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
 * answers from a drained bucket. `now` is when the request was let out, not when its answer came back: the server counted
 * it in between, so the bound stays a lower bound however late the answer is read (a provider busy
 * for 200 ms would otherwise learn a rate above the tenant's and draw 429s). Between answers the
 * bucket refills locally at that rate; each answer re-synchronises the local count with the
 * server's, less the requests still in flight (which the server may not have counted yet), from
 * the answer to the latest request only: an answer overtaken by a later one is older news.
 */

/** What one HTTP answer says about the tenant's bucket. */
export interface RateLimitHeaders {
  /** Bucket capacity (`x-ratelimit-limit`). */
  readonly limit?: number | undefined;
  /** Tokens left after this request (`x-ratelimit-remaining`). */
  readonly remaining?: number | undefined;
  /** UNIX seconds when the bucket is full again (`x-ratelimit-reset`). */
  readonly reset?: number | undefined;
}

/** A snapshot for tests and benchmarks. */
export interface RateLimiterState {
  readonly limit: number | undefined;
  readonly rate: number;
  readonly tokens: number;
  readonly inFlight: number;
  readonly queued: number;
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
}

interface Waiter {
  resolve: (sentAt: number) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * A token bucket that learns the tenant's limit and refill rate from the rate-limit headers. One
 * instance per tenant per process (see `getTenantClient`), shared by every resource.
 */
export class TenantRateLimiter {
  private readonly now: () => number;
  private readonly initialConcurrency: number;
  /** Undefined until an answer states the bucket size; Infinity once answers come without one. */
  private limit: number | undefined;
  private rate: number;
  private tokens: number;
  private updatedAt: number;
  private inFlight = 0;
  /** When the request whose answer last set the local count was let out. */
  private syncedSentAt = Number.NEGATIVE_INFINITY;
  private readonly queue: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(options: RateLimiterOptions = {}) {
    this.now = options.now ?? Date.now;
    this.rate = options.minimumRate ?? 2;
    this.initialConcurrency = options.initialConcurrency ?? 1;
    this.tokens = this.initialConcurrency;
    this.updatedAt = this.now();
  }

  /**
   * Waits for a token, then counts the request as in flight; call {@link release} with the
   * answer's headers and the time this resolves with when it ends (whatever the outcome). Waiters
   * are served first come, first served.
   *
   * @returns when the token was given (milliseconds since the epoch): the request goes out after.
   * @throws the signal's reason if `signal` aborts while waiting (the token is not taken).
   */
  acquire(signal?: AbortSignal): Promise<number> {
    signal?.throwIfAborted();
    return new Promise<number>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal, onAbort: undefined };
      if (signal) {
        waiter.onAbort = () => {
          const index = this.queue.indexOf(waiter);
          if (index >= 0) this.queue.splice(index, 1);
          reject(signal.reason);
          this.schedule();
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
   * @param sentAt - what {@link acquire} resolved with; defaults to now, for an answer read as soon
   *   as its request went out.
   */
  release(headers: RateLimitHeaders | undefined, status?: number, sentAt?: number): void {
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
    if (remaining !== undefined && remaining >= 0) {
      const sent = sentAt ?? this.now();
      this.learnRate(remaining, reset, sent);
      // Answers come back out of order: one to an earlier request tells of an older, fuller
      // bucket, and re-synchronising from it would let out requests the tenant then refuses.
      if (sent >= this.syncedSentAt) {
        this.tokens = remaining - this.inFlight;
        this.syncedSentAt = sent;
      }
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
      tokens: this.tokens,
      inFlight: this.inFlight,
      queued: this.queue.length,
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

  private refill(): void {
    const now = this.now();
    const elapsed = Math.max(0, now - this.updatedAt) / 1000;
    this.updatedAt = now;
    const ceiling = (this.limit ?? this.initialConcurrency) - this.inFlight;
    if (this.tokens < ceiling) this.tokens = Math.min(ceiling, this.tokens + elapsed * this.rate);
  }

  private drain(): void {
    this.refill();
    while (this.queue.length > 0 && this.tokens >= 1) {
      const waiter = this.queue.shift() as Waiter;
      if (waiter.signal && waiter.onAbort) {
        waiter.signal.removeEventListener("abort", waiter.onAbort);
      }
      this.tokens -= 1;
      this.inFlight += 1;
      waiter.resolve(this.now());
    }
    this.schedule();
  }

  /**
   * One timer, for the moment the head of the queue can go; none when nobody waits. It keeps the
   * process alive on purpose: a request waiting for a token is work in progress.
   */
  private schedule(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.queue.length === 0) return;
    const deficit = 1 - this.tokens;
    const waitMs = Math.max(1, Math.ceil((deficit / this.rate) * 1000));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.drain();
    }, waitMs);
  }
}

/** Reads the three headers from an answer; absent or malformed values are undefined. */
export function parseRateLimitHeaders(
  headers: Record<string, unknown> | undefined,
): RateLimitHeaders {
  const num = (name: string): number | undefined => {
    const raw = headers?.[name];
    const value = typeof raw === "string" || typeof raw === "number" ? Number(raw) : Number.NaN;
    return Number.isFinite(value) ? value : undefined;
  };
  return {
    limit: num("x-ratelimit-limit"),
    remaining: num("x-ratelimit-remaining"),
    reset: num("x-ratelimit-reset"),
  };
}
