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
  /** UNIX seconds when the bucket is full again (`x-ratelimit-reset`), by the tenant's clock. */
  readonly reset?: number | undefined;
  /** The tenant's clock when it answered (`Date`), in ms since the epoch. */
  readonly date?: number | undefined;
}

/**
 * One header's number. A proxy may join a repeated header into one (`10, 10`), or hand it on as a
 * list: copies that all say the same number are read as that number; copies that differ, an
 * empty value and anything but a plain decimal number (`0x10`, `1e3`, `Infinity`) are undefined,
 * so the model keeps what it had (docs/design/decisions.md, "A tenant we did not write").
 */
export function headerNumber(raw: unknown): number | undefined {
  const copies = Array.isArray(raw)
    ? raw.flatMap((item) => String(item).split(","))
    : typeof raw === "number"
      ? [String(raw)]
      : typeof raw === "string"
        ? raw.split(",")
        : [];
  const values = copies.map((copy) => copy.trim());
  const first = values[0];
  if (first === undefined || !/^-?\d+(\.\d+)?$/.test(first)) return undefined;
  if (values.some((value) => value !== first)) return undefined;
  return Number(first);
}

/** The `Date` header as ms since the epoch; undefined when absent, repeated unequal or not a date. */
function headerDate(raw: unknown): number | undefined {
  const copies = Array.isArray(raw) ? raw.map(String) : typeof raw === "string" ? [raw] : [];
  const first = copies[0];
  if (first === undefined || copies.some((copy) => copy !== first)) return undefined;
  const ms = Date.parse(first);
  return Number.isFinite(ms) ? ms : undefined;
}

/** Reads the three headers and the `Date` from an answer; absent or malformed values are undefined. */
export function parseRateLimitHeaders(
  headers: Record<string, unknown> | undefined,
): RateLimitHeaders {
  return {
    limit: headerNumber(headers?.["x-ratelimit-limit"]),
    remaining: headerNumber(headers?.["x-ratelimit-remaining"]),
    reset: headerNumber(headers?.["x-ratelimit-reset"]),
    date: headerDate(headers?.date),
  };
}
