/**
 * Reads and writes the tenant's clients (applications) in the wire's spelling, for the
 * `ClientSettings` resource. Reads go through the tenant's current {@link ClientReadPass}, which
 * answers them from single GETs or from list pages, whichever costs fewer calls
 * (docs/design/client-reads.md); every PATCH answer is handed back to it, so a read after a write sees the
 * write. The resource depends only on {@link ClientGateway}.
 *
 * @module
 */

import type { TenantApiClient } from "./client.js";
import type { WireClient } from "./client-read-policy.js";
import { clientPath, clientReadRequest } from "./client-requests.js";
import type { OperationContext } from "./operation.js";
import { clientReadPassOf } from "./tenants.js";

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
   * undefined when the answer carried no client. An empty body changes nothing: nothing is sent,
   * and the answer is undefined. With `ifExists`, a client that does not exist (404) is no failure
   * and also gives undefined.
   */
  patchClient(
    clientId: string,
    body: Readonly<Record<string, unknown>>,
    options?: { readonly ifExists?: boolean },
  ): Promise<WireClient | undefined>;
}

/**
 * The gateway of `api`'s tenant for one operation: reads through the tenant's read pass, writes
 * straight to the API, and every write's answer (the whole client) goes back to the pass.
 */
export function apiClientGateway(api: TenantApiClient, context: OperationContext): ClientGateway {
  const pass = clientReadPassOf(api);
  const find = (clientId: string, fields: readonly string[]) =>
    pass.read(clientId, fields, context);
  return {
    findClient: find,
    getClient: async (clientId, fields) => {
      const found = await find(clientId, fields);
      if (found !== undefined) return found;
      // Only a single GET's 404 makes the pass answer "no such client"; asking once more
      // without accepting 404 turns the tenant's own answer into the error, exactly as it reads.
      return (await api.call<WireClient>(context, clientReadRequest(clientId, fields))).data;
    },
    patchClient: async (clientId, body, options) => {
      if (Object.keys(body).length === 0) return undefined;
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
        pass.forget(clientId);
        throw error;
      }
      if (answer.status !== 200) {
        pass.forget(clientId);
        return undefined;
      }
      if (typeof answer.data?.client_id === "string") {
        pass.remember(answer.data as WireClient);
      } else {
        pass.forget(clientId);
      }
      return answer.data;
    },
  };
}
