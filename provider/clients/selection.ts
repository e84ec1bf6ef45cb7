/**
 * Which clients a generated program adopts when no ids are named: every client of the tenant, but
 * not the global client (the legacy all-applications client, docs/design/platform.md) nor the client whose
 * credentials run the command, unless asked for. A program managing the credentials' own client
 * could lock itself out with one edit. The audit takes the same selection with every client kept,
 * for each client once.
 *
 * @module
 */

import type { WireClient } from "../api/client-read-policy.js";
import type { Credentials } from "../config.js";

/** What {@link selectClients} leaves out unless told otherwise. */
export interface SelectionOptions {
  /** Keep the global client. */
  readonly includeGlobal: boolean;
  /** Keep the client whose credentials are used. */
  readonly includeSelf: boolean;
  /** That client's id, when it is known. */
  readonly ownClientId: string | undefined;
}

/** What {@link selectClients} returns: the kept clients in the tenant's order, and who was left out. */
export interface Selection {
  readonly clients: WireClient[];
  readonly leftOut: { readonly clientId: string; readonly why: string }[];
}

/**
 * The clients to adopt, in the order given (the tenant's listing order), each id once: a client
 * listed twice (offset paging across a deletion can repeat one) is kept once.
 */
export function selectClients(
  clients: readonly WireClient[],
  options: SelectionOptions,
): Selection {
  const seen = new Set<string>();
  const kept: WireClient[] = [];
  const leftOut: { clientId: string; why: string }[] = [];
  for (const client of clients) {
    if (seen.has(client.client_id)) continue;
    seen.add(client.client_id);
    if (client.global === true && !options.includeGlobal) {
      leftOut.push({ clientId: client.client_id, why: "the global client (--include-global)" });
    } else if (client.client_id === options.ownClientId && !options.includeSelf) {
      leftOut.push({
        clientId: client.client_id,
        why: "the client of the credentials used (--include-self)",
      });
    } else {
      kept.push(client);
    }
  }
  return { clients: kept, leftOut };
}

/**
 * The id of the client the credentials belong to: the client id of client credentials (a secret or
 * a private key), or, for an
 * API token, the `azp` claim of the JWT (else its `sub` without `@clients`). Undefined when the
 * token is not a readable JWT: the token is not verified here, only read, to leave a client out.
 */
export function ownClientIdOf(credentials: Credentials): string | undefined {
  if (credentials.kind !== "apiToken") return credentials.clientId;
  const payload = credentials.token.split(".")[1];
  if (payload === undefined) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as unknown;
    if (typeof claims !== "object" || claims === null) return undefined;
    const { azp, sub } = claims as { azp?: unknown; sub?: unknown };
    if (typeof azp === "string" && azp !== "") return azp;
    if (typeof sub === "string" && sub.endsWith("@clients"))
      return sub.slice(0, -"@clients".length);
    return undefined;
  } catch {
    return undefined;
  }
}
