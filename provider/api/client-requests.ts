/**
 * The requests that read and write clients, as pure values, and the two calls a read pass makes
 * with them.
 *
 * @module
 */

import { TenantAnswerError } from "../errors.js";
import type { ApiRequest, ApiResponse, OperationContext, TenantApiClient } from "./client.js";
import {
  CLIENT_PAGE_SIZE,
  type ClientListPage,
  type ClientReadTransport,
  listPageProblem,
  type WireClient,
} from "./client-read-policy.js";

/** The path of one client, relative to the API base. */
export function clientPath(clientId: string): string {
  return `/clients/${encodeURIComponent(clientId)}`;
}

/** The path of the client list, relative to the API base. */
const CLIENTS_PATH = "/clients";

/** The query that asks for exactly `fields` (wire names). */
function fieldsQuery(fields: readonly string[]): Record<string, string> {
  return { fields: fields.join(","), include_fields: "true" };
}

/** `GET /clients/{id}` asking for exactly the wire `fields`. */
export function clientReadRequest(clientId: string, fields: readonly string[]): ApiRequest {
  return { method: "GET", path: clientPath(clientId), params: fieldsQuery(fields) };
}

/**
 * `GET /clients`, page `page` of `perPage` (the platform's maximum, 100, unless said otherwise)
 * with the tenant's total, asking for exactly the wire `fields`; `filters` are the list's own
 * (`app_type`, `is_global`, `is_first_party`).
 */
export function clientListRequest(
  page: number,
  fields: readonly string[],
  options: { readonly perPage?: number; readonly filters?: Readonly<Record<string, string>> } = {},
): ApiRequest {
  return {
    method: "GET",
    path: CLIENTS_PATH,
    params: {
      ...fieldsQuery(fields),
      page: String(page),
      per_page: String(options.perPage ?? CLIENT_PAGE_SIZE),
      include_totals: "true",
      ...options.filters,
    },
  };
}

/**
 * The list page `page` as answered, checked: a body without a `clients` array of clients with ids
 * or without a finite `total` is not read as a page (see {@link listPageProblem}).
 *
 * @throws {TenantAnswerError} naming the request and what the body lacks.
 */
export function listPageOf(page: number, answer: ApiResponse<unknown>): ClientListPage {
  const missing = listPageProblem(answer.data);
  if (missing === undefined) return answer.data as ClientListPage;
  throw new TenantAnswerError(`GET ${CLIENTS_PATH} (page ${page})`, answer.status, missing);
}

/**
 * A read pass's two calls, made by `api` under the context of the read that caused them, so
 * their errors name that resource and count against its deadline.
 */
export function clientReadTransport(api: TenantApiClient): ClientReadTransport<OperationContext> {
  return {
    getOne: async (id, fields, context) => {
      const answer = await api.call<WireClient>(context, {
        ...clientReadRequest(id, fields),
        accept: [404],
      });
      return answer.status === 200 ? answer.data : undefined;
    },
    listPage: async (page, perPage, fields, context) =>
      listPageOf(
        page,
        await api.call<unknown>(context, clientListRequest(page, fields, { perPage })),
      ),
    turnsNow: (upTo) => api.turnsNow(upTo),
  };
}
