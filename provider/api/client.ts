import { type AxiosInstance, isAxiosError } from "axios";
import {
  TenantApiError,
  TenantAuthError,
  TenantError,
  TenantNetworkError,
  TenantTimeoutError,
  TenantValidationError,
} from "../errors.js";
import { plural } from "../text.js";
import {
  ClientCredentialsTokenSource,
  StaticTokenSource,
  type TokenSource,
  tokenScopes,
} from "./auth.js";
import {
  createApiHttp,
  createAuthHttp,
  DEFAULT_RETRY_POLICY,
  describeWaitPastDeadline,
  type HttpStats,
  type RetryPolicy,
  waitPastDeadline,
} from "./http.js";
import type { OperationContext } from "./operation.js";
import { TenantRateLimiter } from "./rate-limiter.js";
import { STACK_KEYS, type TenantSettings } from "./settings.js";
import { describeTransportFailure, isCanceled, isTimeout, mayHeal } from "./transport-failures.js";

/** One call to the management API. */
export interface ApiRequest {
  readonly method: "GET" | "PUT" | "PATCH" | "DELETE";
  /** Relative to `/api/v2`, segments already encoded: `/clients/${encodeURIComponent(id)}`. */
  readonly path: string;
  /**
   * The query string, as name and value pairs; kept apart from `path` so that errors name the
   * route (`GET /clients`) without a query that can run to hundreds of characters.
   */
  readonly params?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  /**
   * Error statuses that are answers rather than failures for this call, e.g. 404 for "the event
   * stream is already gone". They resolve instead of throwing.
   */
  readonly accept?: readonly number[];
}

/** The answer to an {@link ApiRequest}. */
export interface ApiResponse<T> {
  readonly status: number;
  readonly data: T;
}

/** Counters for one tenant client. */
export interface TenantClientStats extends HttpStats {
  tokenRequests: number;
}

/**
 * The management API of one tenant, as one set of credentials sees it.
 *
 * - Every request carries a bearer token: the static API token, or one obtained with the client
 *   credentials and cached for the process. A 401 renews the token once and retries once.
 * - Every attempt is paced by the tenant's limiter, which all clients of the tenant in the
 *   process share.
 * - 408, 429, 5xx and connection failures are retried with backoff (see `http.ts`); every attempt
 *   has a timeout, and the whole operation a deadline.
 * - Failures become {@link TenantApiError}, {@link TenantTimeoutError},
 *   {@link TenantNetworkError} or {@link TenantAuthError}, never an axios error (which would carry
 *   the Authorization header).
 */
export class TenantApiClient {
  readonly settings: TenantSettings;
  private readonly http: AxiosInstance;
  private readonly tokens: TokenSource;
  private readonly counters: HttpStats = { attempts: 0, retries: 0, rateLimited: 0 };
  private readonly limiter: TenantRateLimiter;

  constructor(
    settings: TenantSettings,
    options: {
      limiter?: TenantRateLimiter;
      retryPolicy?: RetryPolicy;
      /** Told of each retry of a failure that may heal ({@link createApiHttp}). */
      notice?: (line: string) => void;
    } = {},
  ) {
    this.settings = settings;
    const policy = options.retryPolicy ?? DEFAULT_RETRY_POLICY;
    this.limiter = options.limiter ?? new TenantRateLimiter();
    this.http = createApiHttp({
      baseUrl: settings.baseUrl,
      timeoutMs: settings.requestTimeoutMs,
      limiter: this.limiter,
      policy,
      stats: this.counters,
      notice: options.notice,
    });
    const { credentials } = settings;
    this.tokens =
      credentials.kind === "apiToken"
        ? new StaticTokenSource(credentials.token)
        : new ClientCredentialsTokenSource(
            credentials,
            createAuthHttp({
              timeoutMs: settings.requestTimeoutMs,
              policy,
              stats: this.counters,
              notice: options.notice,
            }),
          );
  }

  /**
   * How many more requests to this tenant could leave now without waiting for its rate limiter,
   * at most `upTo` ({@link TenantRateLimiter.turnsNow}): for a caller that can still choose which
   * calls to make.
   */
  turnsNow(upTo: number): number {
    return this.limiter.turnsNow(upTo);
  }

  /**
   * The scopes the credentials' token grants ({@link tokenScopes}), for a preview that must know
   * whether they may see key material (docs/design/decisions.md, "Key material"); undefined when they
   * cannot be read: an opaque token, or no token could be had (the operation that needs one will
   * say why). Takes the cached token, or makes the one token request every call would share.
   */
  async grantedScopes(context: OperationContext): Promise<readonly string[] | undefined> {
    try {
      return tokenScopes(await this.tokens.getToken(context.signal));
    } catch {
      return undefined;
    }
  }

  /** A snapshot of the counters. */
  stats(): TenantClientStats {
    return { ...this.counters, tokenRequests: this.tokens.tokenRequests };
  }

  /**
   * Sends one request and returns its answer.
   *
   * @throws {TenantApiError} for an error status not listed in `accept` (after retries for
   *   429/5xx), {@link TenantTimeoutError} when attempts time out or the operation's deadline
   *   passes, {@link TenantNetworkError} when no answer ever came, {@link TenantAuthError} when no
   *   token could be had. All messages start with `context.resource`.
   */
  async call<T>(context: OperationContext, request: ApiRequest): Promise<ApiResponse<T>> {
    try {
      return await this.send<T>(context, request);
    } catch (error) {
      throw error instanceof TenantError ? error.concerning(context.resource) : error;
    }
  }

  private async send<T>(context: OperationContext, request: ApiRequest): Promise<ApiResponse<T>> {
    const data = encodeBody(request);
    let renewed = false;
    for (;;) {
      const token = await this.token(context);
      try {
        const response = await this.http.request<T>({
          method: request.method,
          url: request.path,
          params: request.params,
          data,
          headers: { authorization: `Bearer ${token}` },
          signal: context.signal,
          deadlineAt: context.deadlineAt,
          validateStatus: (status) =>
            (status >= 200 && status < 300) || (request.accept?.includes(status) ?? false),
        });
        return { status: response.status, data: response.data };
      } catch (error) {
        // A token can expire or be revoked between two requests: one fresh token, one more try.
        if (
          !renewed &&
          isAxiosError(error) &&
          error.response?.status === 401 &&
          this.tokens.invalidate(token)
        ) {
          renewed = true;
          continue;
        }
        throw this.toTenantError(context, request, error);
      }
    }
  }

  private async token(context: OperationContext): Promise<string> {
    try {
      return await this.tokens.getToken(context.signal);
    } catch (error) {
      if (context.signal.aborted) throw this.deadlineError(context, "getting an access token");
      // Every operation waiting for the token shares one token request, so one error object: each
      // gets its own, which call() names after its resource, with the shared one as the cause.
      if (error instanceof TenantAuthError) {
        throw new TenantAuthError(error.message, { cause: error });
      }
      throw error;
    }
  }

  private toTenantError(
    context: OperationContext,
    request: ApiRequest,
    error: unknown,
  ): TenantError {
    const what = `${request.method} ${request.path}`;
    if (error instanceof TenantError) return error;
    const past = waitPastDeadline(error);
    if (past !== undefined) {
      const setting = this.settings.timeoutSettings?.operation ?? STACK_KEYS.operationTimeout;
      const deadline = `the operation deadline of ${Math.round(context.deadlineMs / 1000)} s (set ${setting} to change it)`;
      return new TenantTimeoutError(describeWaitPastDeadline(what, past, deadline));
    }
    if (isAxiosError(error) && error.response) {
      const body = (error.response.data ?? {}) as Record<string, unknown>;
      return new TenantApiError({
        method: request.method,
        path: request.path,
        status: error.response.status,
        errorCode: typeof body.errorCode === "string" ? body.errorCode : undefined,
        apiMessage:
          typeof body.message === "string"
            ? body.message
            : typeof body.error === "string"
              ? body.error
              : undefined,
      });
    }
    const attempts = 1 + retryCount(error);
    if (isCanceled(error) || context.signal.aborted) return this.deadlineError(context, what);
    const { origin, requestTimeoutMs, timeoutSettings } = this.settings;
    if (isTimeout(error)) {
      // Not retried (http.ts): a server that accepted the connection and let one attempt time
      // out is given up on then, rather than at the operation deadline.
      return new TenantTimeoutError(
        `${what} got no answer from ${origin} within ${duration(requestTimeoutMs)} ` +
          `(${plural(attempts, "attempt")}); gave up: is a tenant listening there? ` +
          `(${timeoutSettings?.request ?? STACK_KEYS.requestTimeout} sets the wait)`,
      );
    }
    // A failure that cannot heal had one attempt; one that may heal says how many it had.
    const tries = mayHeal(error) ? ` (${plural(attempts, "attempt")})` : "";
    return new TenantNetworkError(
      `${what} could not reach ${origin}: ${describeTransportFailure(error, origin)}${tries}`,
    );
  }

  private deadlineError(context: OperationContext, what: string): TenantTimeoutError {
    const setting = this.settings.timeoutSettings?.operation ?? STACK_KEYS.operationTimeout;
    return new TenantTimeoutError(
      `${what} did not finish within the operation deadline of ` +
        `${Math.round(context.deadlineMs / 1000)} s (set ${setting} to change it)`,
    );
  }
}

/**
 * The body as JSON text. Serialized here rather than by axios: axios deep-copies object bodies
 * first, which silently drops `constructor`, `prototype` and `__proto__` keys (legal metadata keys)
 * and overflows the stack on deeply nested values.
 */
function encodeBody(request: ApiRequest): string | undefined {
  if (request.body === undefined) return undefined;
  try {
    return JSON.stringify(request.body);
  } catch (error) {
    throw new TenantValidationError({
      subject: `the body of ${request.method} ${request.path}`,
      reason: `cannot be encoded as JSON (${error instanceof Error ? error.message : String(error)})`,
      remedy: "nothing was sent",
    });
  }
}

/** `150 ms`, `30 s`: whole seconds as seconds. */
function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function retryCount(error: unknown): number {
  if (!isAxiosError(error)) return 0;
  const state = (error.config as Record<string, unknown> | undefined)?.["axios-retry"] as
    | { retryCount?: number }
    | undefined;
  return state?.retryCount ?? 0;
}
