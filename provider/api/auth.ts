import { type AxiosInstance, isAxiosError } from "axios";
import { TenantAuthError, TenantTimeoutError } from "../errors.js";
import { isPlainObject } from "../json.js";
import { CLIENT_ASSERTION_TYPE, signClientAssertion } from "./client-assertion.js";
import { describeWaitPastDeadline, waitPastDeadline } from "./http.js";
import type { Credentials } from "./settings.js";
import { abortable, describeTransportFailure, isTimeout } from "./transport-failures.js";

/** Supplies bearer tokens for the management API. */
export interface TokenSource {
  /** A token valid for at least the next request. */
  getToken(signal?: AbortSignal): Promise<string>;
  /**
   * Forgets `token` after the API refused it (401), so that the next {@link getToken} fetches a
   * new one. Returns false when there is nothing better to try (a static API token), in which case
   * the 401 stands.
   */
  invalidate(token: string): boolean;
  /** How many token requests were made, for the benchmarks. */
  readonly tokenRequests: number;
}

/** A fixed API token from the stack config. It cannot be renewed. */
export class StaticTokenSource implements TokenSource {
  readonly tokenRequests = 0;
  constructor(private readonly token: string) {}
  getToken(): Promise<string> {
    return Promise.resolve(this.token);
  }
  invalidate(): boolean {
    return false;
  }
}

/**
 * The scopes a bearer token grants, from the `scope` claim of its payload (the management API's
 * token is a JWT: space-separated scopes, or a list of them); undefined when they cannot be read:
 * a token that is not a JWT (an opaque API token) or has no such claim. The signature is not
 * checked: the scopes only let a preview refuse early what the tenant would refuse anyway, never
 * allow anything (docs/design/decisions.md, "Key material"). Nothing of the token is kept or shown.
 */
export function tokenScopes(token: string): readonly string[] | undefined {
  const parts = token.split(".");
  const payload = parts[1];
  if (parts.length !== 3 || payload === undefined) return undefined;
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  const scope = isPlainObject(claims) ? claims.scope : undefined;
  if (typeof scope === "string") return scope.split(" ").filter((each) => each !== "");
  if (Array.isArray(scope) && scope.every((each) => typeof each === "string")) return scope;
  return undefined;
}

interface CachedToken {
  readonly token: string;
  /** Epoch ms after which the token is no longer handed out. */
  readonly renewAt: number;
}

/** Credentials a token is fetched for: a client id with its secret, or with its private key. */
type ClientCredentials = Extract<Credentials, { kind: "clientCredentials" | "privateKeyJwt" }>;

/**
 * How the client proves itself in a token request: its secret, or a client assertion (RFC 7523)
 * signed at `nowMs` with a fresh `jti`, so that each request carries its own.
 *
 * @internal
 */
export function clientAuthentication(
  credentials: ClientCredentials,
  nowMs: number,
): Record<string, string> {
  if (credentials.kind === "clientCredentials") {
    return { client_id: credentials.clientId, client_secret: credentials.clientSecret };
  }
  return {
    client_id: credentials.clientId,
    client_assertion_type: CLIENT_ASSERTION_TYPE,
    client_assertion: signClientAssertion(
      {
        clientId: credentials.clientId,
        audience: credentials.assertionAudience,
        alg: credentials.alg,
        key: credentials.privateKey,
      },
      nowMs,
    ),
  };
}

/**
 * The sentence of a token request the token endpoint refused with `status` and `answer` (its
 * `{error, error_description}`): the client id, the platform's words, and for a refused client
 * assertion (`invalid_client`) the settings to check. Never a secret nor the key: neither is in
 * what the endpoint answers.
 *
 * @internal
 */
export function tokenRefusal(
  credentials: ClientCredentials,
  status: number,
  answer: Record<string, unknown>,
): string {
  const { clientId, tokenUrl } = credentials;
  const code = typeof answer.error === "string" ? ` ${answer.error}` : "";
  const detail = answer.error_description ?? answer.message;
  const said = `${status}${code}${typeof detail === "string" ? `: ${detail}` : ""}`;
  if (
    credentials.kind === "privateKeyJwt" &&
    (status === 401 || answer.error === "invalid_client")
  ) {
    const { key, alg } = credentials.settings;
    return (
      `the token endpoint ${tokenUrl} refused the client assertion of client ${clientId} ` +
      `(${said}); check that ${key} is the private key of a public key registered on client ` +
      `${clientId} for private_key_jwt, with the algorithm of ${alg} (${credentials.alg})`
    );
  }
  // A refused secret is the usual 401: say what to check, not only what the endpoint said.
  const hint =
    status === 401 || answer.error === "invalid_client"
      ? `; check the client secret given for client ${clientId}`
      : "";
  return `getting an access token for client ${clientId} from ${tokenUrl} failed with ${said}${hint}`;
}

/**
 * How long one token request may take, its retries and the waits the token endpoint asks for
 * included: a minute. Every operation that needs a token waits for the one request (which is not
 * tied to any one operation's deadline), so without a bound of its own a token endpoint that
 * answered 429 with a long `Retry-After` held every operation until its deadline, each then
 * failing with "timeout" and not why (docs/design/decisions.md, "A tenant we did not write").
 */
const TOKEN_REQUEST_LIMIT_MS = 60_000;

/**
 * Exchanges client credentials (a secret, or a client assertion signed with a private key) for an
 * access token at the tenant's token endpoint (`grant_type=client_credentials`) and caches it for
 * the process.
 *
 * The token is renewed shortly before it expires (a tenth of its lifetime, at most a minute
 * early), so a request never leaves with a token that dies on the way. Concurrent callers share one
 * in-flight token request: a 200-resource stack asks for one token, not 200.
 */
export class ClientCredentialsTokenSource implements TokenSource {
  private cached: CachedToken | undefined;
  private pending: Promise<string> | undefined;
  private requests = 0;

  constructor(
    private readonly credentials: ClientCredentials,
    private readonly http: AxiosInstance,
    private readonly now: () => number = Date.now,
    /** How long one token request may take in all ({@link TOKEN_REQUEST_LIMIT_MS}). */
    private readonly limitMs: number = TOKEN_REQUEST_LIMIT_MS,
  ) {
    // The body is made for each attempt, the first and every retry (the retries go through the
    // request interceptors again): a client assertion's jti is accepted once, so a retry of a
    // request the endpoint may have seen must carry a new assertion. A string, because a retry
    // sends the body as it is, untransformed.
    http.interceptors.request.use((config) => {
      config.data = JSON.stringify({
        grant_type: "client_credentials",
        ...clientAuthentication(this.credentials, this.now()),
        audience: this.credentials.audience,
      });
      config.headers.set("Content-Type", "application/json");
      return config;
    });
  }

  get tokenRequests(): number {
    return this.requests;
  }

  getToken(signal?: AbortSignal): Promise<string> {
    if (this.cached && this.now() < this.cached.renewAt) return Promise.resolve(this.cached.token);
    if (!this.pending) {
      // Not tied to the caller's signal: other callers share this request, and one caller's
      // deadline must not fail theirs. The request is bounded by its own timeout and retries.
      this.pending = this.fetchToken().finally(() => {
        this.pending = undefined;
      });
    }
    return abortable(this.pending, signal);
  }

  invalidate(token: string): boolean {
    // Another request may already have replaced the token; dropping the new one would cost an
    // extra token request for nothing.
    if (this.cached?.token === token) this.cached = undefined;
    return true;
  }

  private async fetchToken(): Promise<string> {
    const { clientId, tokenUrl } = this.credentials;
    this.requests += 1;
    let body: Record<string, unknown>;
    const limit = AbortSignal.timeout(this.limitMs);
    const { limitMs } = this;
    const ownLimit = `the token request's own limit of ${limitMs % 1000 === 0 ? `${limitMs / 1000} s` : `${limitMs} ms`}`;
    try {
      // The body is the interceptor's (see the constructor).
      const response = await this.http.request({
        method: "POST",
        url: tokenUrl,
        signal: limit,
        deadlineAt: Date.now() + this.limitMs,
      });
      body = (response.data ?? {}) as Record<string, unknown>;
    } catch (error) {
      const past = waitPastDeadline(error);
      if (past !== undefined) {
        const what = `the token request for client ${clientId} to ${tokenUrl}`;
        throw new TenantTimeoutError(describeWaitPastDeadline(what, past, ownLimit));
      }
      if (limit.aborted) {
        throw new TenantTimeoutError(
          `getting an access token for client ${clientId} from ${tokenUrl} did not finish within ${ownLimit}`,
        );
      }
      if (!isAxiosError(error) || !error.response) {
        // A token endpoint that does not answer in time is a timeout like any other request's
        // (one class per kind of failure, docs/design/decisions.md); what refused is an auth failure.
        const Kind = isTimeout(error) ? TenantTimeoutError : TenantAuthError;
        throw new Kind(
          `getting an access token from ${tokenUrl} failed: ` +
            describeTransportFailure(error, new URL(tokenUrl).origin),
        );
      }
      const answer = (error.response.data ?? {}) as Record<string, unknown>;
      throw new TenantAuthError(tokenRefusal(this.credentials, error.response.status, answer));
    }
    if (typeof body.access_token !== "string") {
      throw new TenantAuthError(
        `the token endpoint ${tokenUrl} answered without an access_token for client ${clientId}`,
      );
    }
    const lifetimeMs =
      typeof body.expires_in === "number" && body.expires_in > 0 ? body.expires_in * 1000 : 60_000;
    const margin = Math.min(60_000, lifetimeMs / 10);
    this.cached = { token: body.access_token, renewAt: this.now() + lifetimeMs - margin };
    return body.access_token;
  }
}
