/**
 * A small HTTP client for tests of (and against) the local tenant API: one call, the parsed JSON
 * body, the status and the headers, without throwing on 4xx/5xx so tests can assert them.
 */

import type { TenantApi } from "../../provider/local-tenant/tenant-api.js";

/** An answer of the server. */
export interface ApiAnswer<T = unknown> {
  /** HTTP status. */
  status: number;
  /** Response headers (lowercase names). */
  headers: Headers;
  /** The body as text. */
  text: string;
  /** The body parsed as JSON, or undefined when empty or not JSON. */
  body: T;
}

/** Options of {@link callApi}. */
export interface CallOptions {
  /** Bearer token for the `Authorization` header. */
  token?: string | undefined;
  /** JSON body (sent with `content-type: application/json`). */
  json?: unknown;
  /** Form body (sent as `application/x-www-form-urlencoded`). */
  form?: Record<string, string> | undefined;
  /** A raw body, sent as is with the given headers. */
  raw?: string | undefined;
  /** Extra headers. */
  headers?: Record<string, string> | undefined;
}

/** Sends one request to `url` (absolute, or a path relative to the server's domain). */
export async function callApi<T = unknown>(
  api: Pick<TenantApi, "domain">,
  method: string,
  url: string,
  options: CallOptions = {},
): Promise<ApiAnswer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.json !== undefined) {
    headers["content-type"] ??= "application/json";
    body = JSON.stringify(options.json);
  } else if (options.form !== undefined) {
    headers["content-type"] ??= "application/x-www-form-urlencoded";
    body = new URLSearchParams(options.form).toString();
  } else if (options.raw !== undefined) {
    body = options.raw;
  }
  const target = url.startsWith("http") ? url : `${api.domain}${url}`;
  const response = await fetch(target, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: parsed as T };
}

/** Gets a token from the real token endpoint with the admin client (or the given credentials). */
export async function fetchToken(
  api: Pick<TenantApi, "domain" | "tokenUrl" | "audience" | "clientId" | "clientSecret">,
  credentials: { clientId: string; clientSecret: string; scope?: string } = api,
): Promise<string> {
  const form: Record<string, string> = {
    grant_type: "client_credentials",
    client_id: credentials.clientId,
    client_secret: credentials.clientSecret,
    audience: api.audience,
  };
  if (credentials.scope !== undefined) form.scope = credentials.scope;
  const answer = await callApi<{ access_token: string }>(api, "POST", api.tokenUrl, { form });
  if (answer.status !== 200)
    throw new Error(`token endpoint answered ${answer.status}: ${answer.text}`);
  return answer.body.access_token;
}
