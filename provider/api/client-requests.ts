/**
 * The requests that read and write clients, as pure values, the two calls a read pass makes with
 * them, and the listing of every client page by page.
 *
 * @module
 */

import { TenantAnswerError } from "../errors.js";
import type { ApiRequest, ApiResponse, TenantApiClient } from "./client.js";
import {
  CLIENT_PAGE_SIZE,
  type ClientListPage,
  type ClientReadTransport,
  listPageProblem,
  pageCountOf,
  type WireClient,
} from "./client-read-policy.js";
import type { OperationContext } from "./operation.js";

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
 *
 * @internal
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
 * @internal
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

/**
 * Told after each list page: pages answered so far, pages in all, clients in all, and the clients
 * the page brought (all of them, whatever the page's place in the listing).
 */
export type ClientListProgress = (
  pagesDone: number,
  pageCount: number,
  total: number,
  clients: readonly WireClient[],
) => void;

/**
 * Every client (of `appTypes`, when given), through `api`, each call under a context of its own
 * (`context`: a large tenant is many calls, each bounded): page 0 tells how many there are, then
 * the other pages are asked for at once and the API client paces them at the tenant's rate.
 *
 * @throws {TenantAnswerError} for a page whose body is not a page ({@link listPageOf}).
 */
export async function listEveryClient(
  api: TenantApiClient,
  context: () => OperationContext,
  fields: readonly string[],
  appTypes: readonly string[] | undefined,
  progress: ClientListProgress,
): Promise<WireClient[]> {
  const filters =
    appTypes !== undefined && appTypes.length > 0 ? { app_type: appTypes.join(",") } : {};
  const getPage = async (page: number): Promise<ClientListPage> =>
    listPageOf(
      page,
      await api.call<unknown>(context(), clientListRequest(page, fields, { filters })),
    );
  const first = await getPage(0);
  const pageCount = Math.max(1, pageCountOf(first.total));
  let done = 1;
  progress(done, pageCount, first.total, first.clients);
  const rest = await Promise.all(
    Array.from({ length: pageCount - 1 }, async (_, index) => {
      const page = await getPage(index + 1);
      done += 1;
      progress(done, pageCount, first.total, page.clients);
      return page.clients;
    }),
  );
  return [first.clients, ...rest].flat();
}
