/**
 * Reads and writes the tenant's clients (applications) in the wire's spelling, for the
 * `ClientSettings` resource. The resource depends only on {@link ClientGateway}, so a cache that
 * serves reads from the client list (one call per hundred clients) can stand behind `getClient`
 * without the resource changing.
 *
 * @module
 */

import type { OperationContext, TenantApiClient } from "./client.js";

/** A client as the API spells it: `client_id`, `jwt_configuration`, ... */
export type WireClient = Record<string, unknown>;

/** Client reads and writes, in the wire's spelling. */
export interface ClientGateway {
  /**
   * The client `clientId`, holding at least the wire `fields` asked for (more is allowed).
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
    body: WireClient,
    options?: { readonly ifExists?: boolean },
  ): Promise<WireClient | undefined>;
}

/** The path of one client, relative to the API base. */
export function clientPath(clientId: string): string {
  return `/clients/${encodeURIComponent(clientId)}`;
}

/**
 * The gateway that calls the API directly, one request per read or write, under `context`. A GET
 * of one client always returns the whole client; `fields` only says what the caller relies on.
 */
export function apiClientGateway(
  client: TenantApiClient,
  context: OperationContext,
): ClientGateway {
  const get = async (clientId: string, accept: readonly number[]) => {
    const answer = await client.call<WireClient>(context, {
      method: "GET",
      path: clientPath(clientId),
      accept,
    });
    return answer.status === 200 ? answer.data : undefined;
  };
  return {
    getClient: async (clientId) => (await get(clientId, [])) ?? {},
    findClient: (clientId) => get(clientId, [404]),
    patchClient: async (clientId, body, options) => {
      const answer = await client.call<WireClient>(context, {
        method: "PATCH",
        path: clientPath(clientId),
        body,
        accept: options?.ifExists ? [404] : [],
      });
      return answer.status === 200 ? answer.data : undefined;
    },
  };
}
