import axios, {
  type AxiosAdapter,
  type AxiosError,
  type AxiosInstance,
  type AxiosResponse,
  getAdapter,
  isAxiosError,
} from "axios";
import axiosRetry from "axios-retry";
import { parseRateLimitHeaders } from "./rate-limit-headers.js";
import type { TenantRateLimiter } from "./rate-limiter.js";

/** Counters kept per tenant client, for the benchmarks and for tests. */
export interface HttpStats {
  /** Attempts that reached the wire (retries included). */
  attempts: number;
  /** Attempts that were retries. */
  retries: number;
  /** 429 answers received. */
  rateLimited: number;
}

/** How retries back off; tests shorten the delays. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly retries: number;
  /** First backoff for 408/5xx/connection errors; doubles each retry. */
  readonly baseDelayMs: number;
  /** Longest single backoff. */
  readonly maxDelayMs: number;
}

/**
 * Eight retries with a 250 ms base double up to 10 s: about 45 s of backoff in all, enough to ride
 * out a tenant's rolling restart, and bounded by the operation deadline anyway.
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 8,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
};

/**
 * Statuses worth another attempt: 408 and 5xx are transient by definition, and 429 means "later".
 * Every call this package makes is idempotent (GET, PUT, PATCH with absolute values, DELETE), so a
 * retry after a lost answer cannot apply anything twice.
 */
function isRetryable(error: AxiosError): boolean {
  if (error.code === "ERR_CANCELED") return false;
  const status = error.response?.status;
  if (status === undefined) return !isCertificateFailure(error);
  return status === 408 || status === 429 || status >= 500;
}

/**
 * A TLS certificate the client does not trust will not be trusted on the next attempt either:
 * retrying would only delay the error (and hide its cause behind a timeout).
 */
function isCertificateFailure(error: AxiosError): boolean {
  const code = error.code ?? "";
  return /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS/.test(code);
}

/**
 * The wait before retry number `retry` (1-based). A 429 waits for what the server said:
 * `Retry-After` (seconds until a token) when present, else `x-ratelimit-reset`; other failures back
 * off exponentially. Both get jitter so that many resources retrying at once do not come back in
 * the same millisecond.
 *
 * @internal
 */
export function retryDelayMs(
  retry: number,
  error: AxiosError,
  policy: RetryPolicy,
  random: () => number = Math.random,
  now: () => number = Date.now,
): number {
  const headers = error.response?.headers as Record<string, unknown> | undefined;
  if (error.response?.status === 429) {
    const retryAfter = Number(headers?.["retry-after"]);
    const reset = parseRateLimitHeaders(headers).reset;
    const serverWait = Number.isFinite(retryAfter)
      ? retryAfter * 1000
      : reset !== undefined
        ? reset * 1000 - now()
        : policy.baseDelayMs;
    return Math.max(0, serverWait) + random() * 250;
  }
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  // "Equal jitter": at least half the backoff, so retries still spread out in time.
  return exponential / 2 + random() * (exponential / 2);
}

/**
 * The axios instance for one tenant's management API: base URL, JSON, a timeout per attempt,
 * every attempt paced by the tenant's shared limiter, and retries with backoff.
 *
 * The limiter sits in the adapter rather than in an interceptor because axios-retry re-sends
 * through the instance: each retry then waits for a token like any other request, and the
 * in-flight count spans exactly the time on the wire.
 */
export function createApiHttp(options: {
  baseUrl: string;
  timeoutMs: number;
  limiter: TenantRateLimiter;
  policy: RetryPolicy;
  stats: HttpStats;
}): AxiosInstance {
  const { limiter, stats } = options;
  const transport = getAdapter(axios.defaults.adapter);
  const paced: AxiosAdapter = async (config) => {
    const ticket = await limiter.acquire(config.signal as AbortSignal | undefined);
    stats.attempts += 1;
    let response: AxiosResponse | undefined;
    try {
      response = await transport(config);
      return response;
    } catch (error) {
      if (isAxiosError(error)) response = error.response;
      throw error;
    } finally {
      if (response?.status === 429) stats.rateLimited += 1;
      limiter.release(
        response ? parseRateLimitHeaders(response.headers as Record<string, unknown>) : undefined,
        response?.status,
        ticket,
      );
    }
  };
  const http = axios.create({
    baseURL: options.baseUrl,
    timeout: options.timeoutMs,
    adapter: paced,
    headers: { "content-type": "application/json", accept: "application/json" },
    // Redirects would re-send the bearer token to wherever the Location points.
    maxRedirects: 0,
  });
  attachRetries(http, options.policy, stats);
  return http;
}

/**
 * The axios instance for the token endpoint: same timeout and retries, but not paced by the
 * management API's limiter (the authentication API has its own limits).
 */
export function createAuthHttp(options: {
  timeoutMs: number;
  policy: RetryPolicy;
  stats: HttpStats;
}): AxiosInstance {
  const http = axios.create({ timeout: options.timeoutMs, maxRedirects: 0 });
  attachRetries(http, options.policy, options.stats);
  return http;
}

function attachRetries(http: AxiosInstance, policy: RetryPolicy, stats: HttpStats): void {
  axiosRetry(http, {
    retries: policy.retries,
    retryCondition: isRetryable,
    retryDelay: (retry, error) => retryDelayMs(retry, error, policy),
    shouldResetTimeout: true,
    onRetry: () => {
      stats.retries += 1;
    },
  });
}
