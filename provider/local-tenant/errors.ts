/**
 * Error bodies of the local tenant API.
 *
 * The management API answers every failure with one JSON shape (docs/design/platform.md); the
 * authentication API (`/oauth/token`) uses the OAuth 2.0 shape of RFC 6749 section 5.2 instead,
 * as the platform's authentication API does. Both live here so every route answers alike.
 */

/** The `errorCode` values the management API of this server can answer with. */
export type ManagementErrorCode =
  | "invalid_body"
  | "invalid_uri"
  | "invalid_query_string"
  | "invalid_token"
  | "insufficient_scope"
  | "inexistent_client"
  | "too_many_requests"
  | "internal_error"
  | "service_unavailable"
  | "not_found"
  | "not_implemented"
  | "forbidden"
  | "payload_too_large"
  | "unsupported_media_type";

/** The body of every management API error: `{statusCode, error, message, errorCode}`. */
export interface ManagementErrorBody {
  /** The HTTP status, repeated in the body as the platform does. */
  statusCode: number;
  /** The HTTP reason phrase of `statusCode` ("Bad Request"). */
  error: string;
  /** A sentence for humans; for 400 it lists every validation failure. */
  message: string;
  /**
   * A stable machine-readable code; left out where the platform sends none (a missing event
   * stream's 404, docs/design/local-tenant.md, "Errors").
   */
  errorCode?: ManagementErrorCode;
}

/** The `error` values of the authentication API (RFC 6749 section 5.2, plus the 5xx ones). */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "access_denied"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "server_error"
  | "temporarily_unavailable";

/** The body of an authentication API error: `{error, error_description}`. */
export interface OAuthErrorBody {
  /** The OAuth error code. */
  error: OAuthErrorCode;
  /** A sentence for humans. */
  error_description: string;
}

const REASON_PHRASES: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  408: "Request Timeout",
  409: "Conflict",
  413: "Payload Too Large",
  414: "URI Too Long",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** The HTTP reason phrase of a status code ("Error" when the code is not a common one). */
export function reasonPhrase(statusCode: number): string {
  return REASON_PHRASES[statusCode] ?? (statusCode >= 500 ? "Internal Server Error" : "Error");
}

/**
 * The errorCode this server uses for a status when no more precise one is known, which is the case
 * for Fastify's own failures (unparsable JSON, unsupported content type, unknown route).
 */
export function defaultErrorCode(statusCode: number): ManagementErrorCode {
  switch (statusCode) {
    case 401:
      return "invalid_token";
    case 403:
      return "forbidden";
    case 404:
      return "not_found";
    case 413:
      return "payload_too_large";
    case 414:
      return "invalid_uri";
    case 415:
      return "unsupported_media_type";
    case 429:
      return "too_many_requests";
    case 503:
      return "service_unavailable";
    default:
      return statusCode >= 500 ? "internal_error" : "invalid_body";
  }
}

/** A failure of a management API route, turned into {@link ManagementErrorBody} by the server. */
export class ApiError extends Error {
  /** The HTTP status to answer with. */
  readonly statusCode: number;
  /** The body's errorCode; undefined where the platform's body has none. */
  readonly errorCode: ManagementErrorCode | undefined;
  /** Extra response headers (`Retry-After` on 429, `WWW-Authenticate` on 401). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    statusCode: number,
    errorCode: ManagementErrorCode | undefined,
    message: string,
    headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.statusCode = statusCode;
    this.errorCode = errorCode;
    this.headers = headers;
  }

  /** The JSON body the platform would send for this failure. */
  toBody(): ManagementErrorBody {
    const body: ManagementErrorBody = {
      statusCode: this.statusCode,
      error: reasonPhrase(this.statusCode),
      message: this.message,
    };
    if (this.errorCode !== undefined) body.errorCode = this.errorCode;
    return body;
  }
}

/** A failure of the authentication API, turned into {@link OAuthErrorBody} by the server. */
export class OAuthError extends Error {
  /** The HTTP status to answer with. */
  readonly statusCode: number;
  /** The body's `error`. */
  readonly error: OAuthErrorCode;

  constructor(statusCode: number, error: OAuthErrorCode, description: string) {
    super(description);
    this.name = "OAuthError";
    this.statusCode = statusCode;
    this.error = error;
  }

  /** The JSON body the platform's authentication API would send for this failure. */
  toBody(): OAuthErrorBody {
    return { error: this.error, error_description: this.message };
  }
}
