/**
 * What the suites of the local tenant API share: its routes as the tests call them, one server per
 * suite (or describe block), and the assertion of the platform's one error shape
 * (docs/design/platform.md, "Errors").
 */

import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import {
  startTenantApi,
  type TenantApi,
  type TenantApiOptions,
} from "../../provider/local-tenant/index.js";
import { type ApiAnswer, fetchToken } from "./test-client.js";

/** The push provider selection route. */
export const PROVIDER = "/api/v2/guardian/factors/push-notification/selected-provider";
/** The route of one client. */
export const clientRoute = (id: string): string => `/api/v2/clients/${id}`;
/** The route of one event stream. */
export const streamRoute = (id: string): string => `/api/v2/event-streams/${id}`;

/**
 * Starts a local tenant API with `options` before the tests of the enclosing suite, hands it (and an
 * admin token, unless `token: false`) to `started`, resets its store before each test (unless
 * `reset: false`) and stops it after the suite.
 */
export function useTenantApi(
  options: TenantApiOptions,
  started: (api: TenantApi, token: string) => void,
  { token = true, reset = true }: { token?: boolean; reset?: boolean } = {},
): void {
  let api: TenantApi | undefined;
  beforeAll(async () => {
    api = await startTenantApi(options);
    started(api, token ? await fetchToken(api) : "");
  });
  afterAll(async () => {
    await api?.stop();
  });
  if (reset) beforeEach(() => api?.store.reset());
}

/** The reason phrases of the statuses the tests meet, as HTTP defines them. */
const REASONS: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  414: "URI Too Long",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
};

/** The platform's error body for `status`, `errorCode` and `message`. */
export function errorBody(status: number, errorCode: string, message: string) {
  return { statusCode: status, error: REASONS[status], message, errorCode };
}

/** Asserts that `answer` is the platform's error answer with `status`, `errorCode` and `message`. */
export function expectErrorAnswer(
  answer: Pick<ApiAnswer, "status" | "body">,
  status: number,
  errorCode: string,
  message: string,
): void {
  expect(answer.status).toBe(status);
  expect(answer.body).toEqual(errorBody(status, errorCode, message));
}
