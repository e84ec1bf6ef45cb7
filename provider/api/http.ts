import axios, {
  type AxiosAdapter,
  type AxiosError,
  type AxiosInstance,
  type AxiosResponse,
  getAdapter,
  isAxiosError,
} from "axios";
import axiosRetry from "axios-retry";
import { routeGroup } from "./pacing-buckets.js";
import { headerNumber, parseRateLimitHeaders } from "./rate-limit-headers.js";
import type { TenantRateLimiter } from "./rate-limiter.js";
import { mayHeal, retryNotice } from "./transport-failures.js";

declare module "axios" {
  interface AxiosRequestConfig {
    /**
     * When the operation the request belongs to must be done (ms since the epoch): a wait the
     * server asks for that would end past it is not waited for ({@link waitPastDeadline}).
     */
    deadlineAt?: number | undefined;
  }
}

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
 * out a tenant's rolling restart behind its gateway (502/503 answers, reset connections), and
 * bounded by the operation deadline anyway. A refused connection is not retried
 * (`transport-failures.ts`): nothing listens at the address, which a typo makes far more often
 * than a restart.
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
  // No answer: only what may heal is tried again (a refused connection, an unknown host, a TLS
  // mismatch, an untrusted certificate or a server that let the attempt time out fail at once).
  if (status === undefined) return mayHeal(error);
  return status === 408 || status === 429 || status >= 500;
}

/**
 * The longest delay Node's timers take (2^31 - 1 ms): a longer one fires after 1 ms, so a
 * `Retry-After` of a month would be retried at once.
 */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** The wait a server asked for before another try, and which header said it. */
interface ServerWait {
  readonly ms: number;
  readonly header: "Retry-After" | "x-ratelimit-reset";
}

/**
 * The wait a 429 asks for (docs/design/decisions.md, "A tenant we did not write"): its `Retry-After`, in
 * seconds or as an HTTP date, else its `x-ratelimit-reset`; a date or a reset is read against the
 * answer's own `Date` when it has one (the tenant's clock), else against ours. An empty or
 * malformed `Retry-After` says nothing (it is not "no wait"); undefined when nothing is said.
 */
function serverWait(
  headers: Record<string, unknown> | undefined,
  now: number,
): ServerWait | undefined {
  const { reset, date } = parseRateLimitHeaders(headers);
  const tenantNow = date ?? now;
  const raw = headers?.["retry-after"];
  const seconds = headerNumber(raw);
  if (seconds !== undefined && seconds >= 0) return { ms: seconds * 1000, header: "Retry-After" };
  const at = typeof raw === "string" && /[a-z]/i.test(raw) ? Date.parse(raw) : Number.NaN;
  if (Number.isFinite(at)) return { ms: Math.max(0, at - tenantNow), header: "Retry-After" };
  if (reset !== undefined) {
    return { ms: Math.max(0, reset * 1000 - tenantNow), header: "x-ratelimit-reset" };
  }
  return undefined;
}

/**
 * The wait before retry number `retry` (1-based). A 429 waits for what the server said
 * ({@link serverWait}), or the base delay when it said nothing; other failures back off
 * exponentially. Both get jitter so that many resources retrying at once do not come back in the
 * same millisecond. Never longer than Node's timers take.
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
    const asked = serverWait(headers, now())?.ms ?? policy.baseDelayMs;
    return Math.min(LONGEST_TIMER_MS, asked + random() * 250);
  }
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  // "Equal jitter": at least half the backoff, so retries still spread out in time.
  return exponential / 2 + random() * (exponential / 2);
}

/** A server's wait that would have ended past the deadline, and what was left of it. */
export interface WaitPastDeadline extends ServerWait {
  readonly leftMs: number;
}

/** The failures that were not retried because the wait asked for ended past the deadline. */
const pastDeadline = new WeakMap<object, WaitPastDeadline>();

/**
 * The wait the server asked for, when `error` was not retried because that wait would have
 * ended past the request's deadline (`deadlineAt`): the operation fails at once, saying so,
 * rather than wait for a try it could not finish.
 */
export function waitPastDeadline(error: unknown): WaitPastDeadline | undefined {
  return typeof error === "object" && error !== null ? pastDeadline.get(error) : undefined;
}

/**
 * Whether a 429's wait ends past the request's deadline; if so, the error is marked with it
 * ({@link waitPastDeadline}).
 */
function endsPastDeadline(error: AxiosError, now: number): boolean {
  const deadlineAt = error.config?.deadlineAt;
  if (deadlineAt === undefined || error.response?.status !== 429) return false;
  const wait = serverWait(error.response.headers as Record<string, unknown>, now);
  if (wait === undefined || now + wait.ms <= deadlineAt) return false;
  pastDeadline.set(error, { ...wait, leftMs: Math.max(0, deadlineAt - now) });
  return true;
}

/**
 * The sentence of a request that failed at once because the server asked for a wait past its
 * deadline: what was refused, the wait and the header that asked for it, and the deadline
 * (`deadline`, worded by the caller: the operation's, or the token request's own).
 */
export function describeWaitPastDeadline(
  what: string,
  wait: WaitPastDeadline,
  deadline: string,
): string {
  const seconds = (ms: number) => `${Math.ceil(ms / 1000)} s`;
  return (
    `${what} was refused by the rate limit (429), and the server asked to wait ${seconds(wait.ms)} ` +
    `(${wait.header}) before another try, past ${deadline}, of which ${seconds(wait.leftMs)} were left`
  );
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
  /** Told of each retry of a failure that may heal, as one line; default: not told. */
  notice?: ((line: string) => void) | undefined;
}): AxiosInstance {
  const { limiter, stats } = options;
  const transport = getAdapter(axios.defaults.adapter);
  const paced: AxiosAdapter = async (config) => {
    const group = routeGroup(config.method, config.url);
    const ticket = await limiter.acquire(config.signal as AbortSignal | undefined, group);
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
  attachRetries(http, options.policy, stats, options.notice);
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
  /** As {@link createApiHttp}'s. */
  notice?: ((line: string) => void) | undefined;
}): AxiosInstance {
  const http = axios.create({ timeout: options.timeoutMs, maxRedirects: 0 });
  attachRetries(http, options.policy, options.stats, options.notice);
  return http;
}

function attachRetries(
  http: AxiosInstance,
  policy: RetryPolicy,
  stats: HttpStats,
  notice: ((line: string) => void) | undefined,
): void {
  // axios-retry asks for the delay, then calls onRetry, with nothing in between: the notice says
  // the delay just chosen.
  let delayMs = 0;
  axiosRetry(http, {
    retries: policy.retries,
    // A wait past the deadline is not waited for: the request fails at once, saying so.
    retryCondition: (error) => isRetryable(error) && !endsPastDeadline(error, Date.now()),
    retryDelay: (retry, error) => {
      delayMs = retryDelayMs(retry, error, policy);
      return delayMs;
    },
    shouldResetTimeout: true,
    onRetry: (retry, error, config) => {
      stats.retries += 1;
      // A 429 is the rate limit's to explain (the limiter reports its long waits).
      if (notice === undefined || error.response?.status === 429) return;
      const what = `${(config.method ?? "get").toUpperCase()} ${config.baseURL ?? ""}${config.url ?? ""}`;
      notice(retryNotice(what, error, { number: retry, of: policy.retries, delayMs }));
    },
  });
}
