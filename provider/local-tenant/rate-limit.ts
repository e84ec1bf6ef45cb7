/**
 * Per-tenant rate limiting of the management API, as a token bucket.
 *
 * The platform publishes its limits as a bucket: a capacity (the burst) that refills at a steady
 * rate, reported on every answer in `x-ratelimit-limit`, `x-ratelimit-remaining` and
 * `x-ratelimit-reset` (UNIX seconds). Reproducing the bucket, not a fixed window, matters because
 * the provider paces itself from those headers.
 */

import { CommandUsageError } from "../errors.js";

/** Rate limit settings: `rate` tokens per second refill a bucket that holds `burst` tokens. */
export interface RateLimitOptions {
  /** Tokens added per second; must be greater than 0. */
  rate: number;
  /** Capacity of the bucket, so the largest burst; at least 1. Defaults to `rate` rounded up. */
  burst?: number | undefined;
  /**
   * A per-minute limit beside the per-second one, as the platform publishes some: a second bucket
   * of this many tokens refilled over a minute; a request needs a token of both, and the answer
   * carries the figures of whichever has fewer left (docs/design/local-tenant.md, "A tenant we did not
   * write"). Default none.
   */
  perMinute?: number | undefined;
}

/** Rate limit settings with the burst filled in. */
export interface ResolvedRateLimit {
  /** Tokens added per second. */
  rate: number;
  /** Capacity of the bucket. */
  burst: number;
  /** The per-minute limit, if any. */
  perMinute?: number;
}

/** The outcome of one request against the bucket, with the header values to send. */
export interface RateLimitDecision {
  /** Whether the request may proceed (false: answer 429). */
  allowed: boolean;
  /** `x-ratelimit-limit`: the capacity of the bucket. */
  limit: number;
  /** `x-ratelimit-remaining`: whole tokens left after this request. */
  remaining: number;
  /** `x-ratelimit-reset`: UNIX seconds (rounded up) when the bucket will be full again. */
  reset: number;
  /** When the bucket will be full again, exactly, in milliseconds since the epoch. */
  resetAtMs: number;
  /** Whole seconds until one token is available, at least 1; set only when refused. */
  retryAfter?: number;
}

/** The limit reported while rate limiting is off: large enough never to be reached by a test. */
const UNLIMITED_REPORTED_LIMIT = 1000;

/** Checks rate limit settings and fills in the default burst; throws on nonsense values. */
function normalizeRateLimit(options: RateLimitOptions): ResolvedRateLimit {
  const { rate } = options;
  if (!Number.isFinite(rate) || rate <= 0) {
    throw new CommandUsageError(`rate limit: rate must be a number greater than 0, got ${rate}`);
  }
  const burst = options.burst ?? Math.max(1, Math.ceil(rate));
  if (!Number.isInteger(burst) || burst < 1) {
    throw new CommandUsageError(`rate limit: burst must be an integer of at least 1, got ${burst}`);
  }
  const { perMinute } = options;
  if (perMinute === undefined) return { rate, burst };
  if (!Number.isInteger(perMinute) || perMinute < 1) {
    throw new CommandUsageError(
      `rate limit: perMinute must be an integer of at least 1, got ${perMinute}`,
    );
  }
  return { rate, burst, perMinute };
}

/** One bucket's tokens after taking one (or not), and its figures. */
function figures(tokens: number, capacity: number, perSecond: number, now: number) {
  const resetAtMs = now + ((capacity - tokens) / perSecond) * 1000;
  return {
    limit: capacity,
    remaining: Math.floor(tokens),
    reset: Math.ceil(resetAtMs / 1000),
    resetAtMs,
  };
}

/**
 * A token bucket. The clock is injected so that tests can assert exact header values without
 * sleeping.
 */
export class TokenBucket {
  private settings: ResolvedRateLimit | null = null;
  private tokens = 0;
  /** The per-minute bucket's tokens, when there is one. */
  private minuteTokens = 0;
  private updatedAt = 0;

  /**
   * @param clock - milliseconds since the epoch; `Date.now` outside tests.
   * @param options - the limit, or null for no limit.
   */
  constructor(
    private readonly clock: () => number,
    options: RateLimitOptions | null = null,
  ) {
    this.configure(options);
  }

  /** Replaces the settings and starts again with a full bucket (null turns limiting off). */
  configure(options: RateLimitOptions | null): void {
    this.settings = options === null ? null : normalizeRateLimit(options);
    this.tokens = this.settings?.burst ?? 0;
    this.minuteTokens = this.settings?.perMinute ?? 0;
    this.updatedAt = this.clock();
  }

  /** The current settings, or null when limiting is off. */
  current(): ResolvedRateLimit | null {
    return this.settings === null ? null : { ...this.settings };
  }

  /**
   * The tokens in the bucket now, refilled to this moment but nothing taken (fractions kept), or
   * null while limiting is off: what the console draws, without touching the bucket.
   */
  level(): number | null {
    const settings = this.settings;
    if (settings === null) return null;
    const elapsedSeconds = Math.max(0, this.clock() - this.updatedAt) / 1000;
    return Math.min(settings.burst, this.tokens + elapsedSeconds * settings.rate);
  }

  /** Takes one token for a request and says whether it may proceed. */
  take(): RateLimitDecision {
    const now = this.clock();
    const settings = this.settings;
    if (settings === null) {
      return {
        allowed: true,
        limit: UNLIMITED_REPORTED_LIMIT,
        remaining: UNLIMITED_REPORTED_LIMIT,
        reset: Math.ceil(now / 1000),
        resetAtMs: now,
      };
    }
    const elapsedSeconds = Math.max(0, now - this.updatedAt) / 1000;
    this.tokens = Math.min(settings.burst, this.tokens + elapsedSeconds * settings.rate);
    const { perMinute } = settings;
    const minuteRate = (perMinute ?? 0) / 60;
    if (perMinute !== undefined) {
      this.minuteTokens = Math.min(perMinute, this.minuteTokens + elapsedSeconds * minuteRate);
    }
    this.updatedAt = now;
    const allowed = this.tokens >= 1 && (perMinute === undefined || this.minuteTokens >= 1);
    if (allowed) {
      this.tokens -= 1;
      this.minuteTokens -= 1;
    }
    const second = figures(this.tokens, settings.burst, settings.rate, now);
    const minute =
      perMinute === undefined ? undefined : figures(this.minuteTokens, perMinute, minuteRate, now);
    const shown = minute !== undefined && minute.remaining < second.remaining ? minute : second;
    const decision: RateLimitDecision = { allowed, ...shown };
    if (!allowed) {
      const wait = (tokens: number, perSecond: number) => Math.max(0, (1 - tokens) / perSecond);
      const seconds = Math.max(
        wait(this.tokens, settings.rate),
        perMinute === undefined ? 0 : wait(this.minuteTokens, minuteRate),
      );
      decision.retryAfter = Math.max(1, Math.ceil(seconds));
    }
    return decision;
  }
}
