/**
 * The tenant's rate-limit headers, read once for the limiter (what the bucket holds) and for the
 * retries (when a 429 may try again).
 *
 * @module
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
