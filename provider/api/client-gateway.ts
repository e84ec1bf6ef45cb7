/**
 * Reads and writes the tenant's clients (applications) in the wire's spelling, for the
 * `ClientSettings` resource. Reads go through the tenant's {@link ClientDirectory}, which answers
 * them from single GETs or from list pages, whichever costs fewer calls (docs/client-reads.md);
 * every PATCH answer is handed back to it, so a read after a write sees the write. The resource
 * depends only on {@link ClientGateway}.
 *
 * @module
 */

import type { ApiRequest, OperationContext, TenantApiClient } from "./client.js";
import { ClientDirectory } from "./client-directory.js";
import {
  CLIENT_PAGE_SIZE,
  type ClientDirectoryTransport,
  type DirectoryPage,
  type WireClient,
} from "./client-read-policy.js";

export type { WireClient } from "./client-read-policy.js";

/** Client reads and writes, in the wire's spelling. */
export interface ClientGateway {
  /**
   * The client `clientId`, holding the wire `fields` asked for as the tenant answers them (a field
   * the client lacks, or key material the credentials may not read, is absent).
   *
   * @throws {TenantApiError} when the tenant has no such client (404), as for any error answer.
   */
  getClient(clientId: string, fields: readonly string[]): Promise<WireClient>;
  /** As {@link getClient}, but undefined when the tenant has no such client. */
  findClient(clientId: string, fields: readonly string[]): Promise<WireClient | undefined>;
  /**
   * PATCHes `body` (wire names, sent as it is) and returns the client as the tenant answered, or
   * undefined when the answer carried no client. With `ifExists`, a client that does not exist
   * (404) is no failure and also gives undefined.
   */
  patchClient(
    clientId: string,
    body: Readonly<Record<string, unknown>>,
    options?: { readonly ifExists?: boolean },
  ): Promise<WireClient | undefined>;
}

/** The path of one client, relative to the API base. */
function clientPath(clientId: string): string {
  return `/clients/${encodeURIComponent(clientId)}`;
}

/** The path of the client list, relative to the API base. */
const CLIENTS_PATH = "/clients";

/** The query that asks for exactly `fields` (wire names). */
function fieldsQuery(fields: readonly string[]): Record<string, string> {
  return { fields: fields.join(","), include_fields: "true" };
}

/**
 * `GET /clients/{id}` asking for exactly the wire `fields`.
 *
 * @internal
 */
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
 * The directory's two calls, made by `api` under the context of the read that caused them, so
 * their errors name that resource and count against its deadline.
 */
function directoryTransport(api: TenantApiClient): ClientDirectoryTransport<OperationContext> {
  return {
    getOne: async (id, fields, context) => {
      const answer = await api.call<WireClient>(context, {
        ...clientReadRequest(id, fields),
        accept: [404],
      });
      return answer.status === 200 ? answer.data : undefined;
    },
    listPage: async (page, perPage, fields, context) =>
      (await api.call<DirectoryPage>(context, clientListRequest(page, fields, { perPage }))).data,
  };
}

/**
 * One directory per API client, i.e. per tenant and credentials (what a read may see depends on
 * the credentials' scopes), for the life of the process: Pulumi starts a provider process per
 * command, and {@link startClientReadPass} scopes what it serves to the current command.
 */
const directories = new Map<TenantApiClient, ClientDirectory<OperationContext>>();

/** The directory that answers the client reads of `api`'s tenant in this process. */
export function clientDirectoryOf(api: TenantApiClient): ClientDirectory<OperationContext> {
  let directory = directories.get(api);
  if (directory === undefined) {
    directory = new ClientDirectory(directoryTransport(api));
    directories.set(api, directory);
  }
  return directory;
}

/**
 * Starts a new read pass in every directory: nothing fetched before is served again. The
 * ClientSettings provider calls it from `configure`, which the provider host runs once when a
 * command first uses the resource kind; tests that play several commands in one process call it
 * between them, as a new provider process would start afresh.
 */
export function startClientReadPass(): void {
  for (const directory of directories.values()) directory.startPass();
}

/**
 * The gateway of `api`'s tenant for one operation: reads through the tenant's directory, writes
 * straight to the API, and every write's answer (the whole client) goes back to the directory.
 */
export function apiClientGateway(api: TenantApiClient, context: OperationContext): ClientGateway {
  const directory = clientDirectoryOf(api);
  const find = (clientId: string, fields: readonly string[]) =>
    directory.get(clientId, fields, context);
  return {
    findClient: find,
    getClient: async (clientId, fields) => {
      const found = await find(clientId, fields);
      if (found !== undefined) return found;
      // Only a single GET's 404 makes the directory answer "no such client"; asking once more
      // without accepting 404 turns the tenant's own answer into the error, exactly as it reads.
      return (await api.call<WireClient>(context, clientReadRequest(clientId, fields))).data;
    },
    patchClient: async (clientId, body, options) => {
      let answer: { status: number; data: WireClient };
      try {
        answer = await api.call<WireClient>(context, {
          method: "PATCH",
          path: clientPath(clientId),
          body,
          accept: options?.ifExists ? [404] : [],
        });
      } catch (error) {
        // The write may or may not have landed: the next read of this client asks the tenant.
        directory.forget(clientId);
        throw error;
      }
      if (answer.status !== 200) {
        directory.forget(clientId);
        return undefined;
      }
      if (typeof answer.data?.client_id === "string") {
        directory.remember(answer.data as WireClient);
      } else {
        directory.forget(clientId);
      }
      return answer.data;
    },
  };
}
