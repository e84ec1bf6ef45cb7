/**
 * The reads of a tenant that `generate`, `audit` and `snapshot` make, through the package's own
 * API client (one token, the tenant's pace learned from its rate-limit headers, retries of 429,
 * 5xx and lost connections, a timeout per attempt): the push provider, and the clients, either every page of the list or
 * the named ones through the tenant's client read pass, which chooses between single GETs and pages
 * (docs/design/client-reads.md). Only `read:clients` and `read:guardian_factors` are needed.
 *
 * @module
 */

import type { TenantApiClient } from "../api/client.js";
import type { WireClient } from "../api/client-read-policy.js";
import { type ClientListProgress, listEveryClient } from "../api/client-requests.js";
import { type OperationContext, startOperation } from "../api/operation.js";
import { clientReadPassOf, getTenantClient } from "../api/tenants.js";
import type { TenantSettings } from "../config.js";
import { UnknownClientError } from "../errors.js";

/** How errors of the command's calls name their origin. */
const RESOURCE = "reading the tenant";

/** Which clients to read. */
export type ClientQuery =
  | { readonly kind: "all"; readonly appTypes?: readonly string[] | undefined }
  | { readonly kind: "ids"; readonly ids: readonly string[] };

/**
 * Told after each list page: pages answered so far, pages in all, clients in all, and the clients
 * the page brought (`ClientListProgress`).
 */
export type Progress = ClientListProgress;

/** What the tenant answered. */
export interface TenantReads {
  /** The clients, with the fields asked for, in the tenant's order (or the order of the ids). */
  readonly clients: WireClient[];
  /** The `provider` of the selected-provider answer, as answered. */
  readonly pushProvider: unknown;
}

/** The tenant's API client, and the context of each call. */
interface Connection {
  readonly api: TenantApiClient;
  /**
   * A new operation per call: every call gets its own deadline, since a large tenant is many
   * calls, each bounded.
   */
  readonly context: () => OperationContext;
}

function connect(settings: TenantSettings): Connection {
  return { api: getTenantClient(settings), context: () => startOperation(settings, RESOURCE) };
}

/**
 * The named clients, through the tenant's read pass: a few ids cost a few single GETs, many ids the
 * list pages (docs/design/client-reads.md). Every id is confirmed: an id the tenant does not know fails
 * the command, naming every such id.
 *
 * @throws {UnknownClientError} when some id answered 404.
 */
async function readIds(
  { api, context }: Connection,
  ids: readonly string[],
  fields: readonly string[],
): Promise<WireClient[]> {
  const pass = clientReadPassOf(api);
  const unique = [...new Set(ids)];
  const answers = await Promise.all(unique.map((id) => pass.read(id, fields, context())));
  const missing = unique.filter((_, index) => answers[index] === undefined);
  if (missing.length > 0) throw new UnknownClientError(missing);
  return answers.filter((client): client is WireClient => client !== undefined);
}

/** Event streams asked for per page: the most the local tenant's list answers (docs/design/local-tenant.md). */
const EVENT_STREAMS_PER_PAGE = 100;

/**
 * Every event stream id, page by page through `GET /event-streams` (`take`, and `from` the
 * checkpoint each page names as `next`). The spec has no list; its shape is the one
 * docs/design/local-tenant.md ("Event stream list") documents. Only `read:event_streams` is needed.
 */
export async function readEventStreamIds(settings: TenantSettings): Promise<string[]> {
  const { api, context } = connect(settings);
  const ids: string[] = [];
  let from: string | undefined;
  // Each page either names a further checkpoint or ends the list; a tenant that repeated one
  // would loop, so a checkpoint already seen ends it too.
  const seen = new Set<string>();
  for (;;) {
    const answer = await api.call<{ eventStreams?: { id?: unknown }[]; next?: unknown }>(
      context(),
      {
        method: "GET",
        path: "/event-streams",
        params: { take: String(EVENT_STREAMS_PER_PAGE), ...(from === undefined ? {} : { from }) },
      },
    );
    for (const stream of answer.data?.eventStreams ?? []) {
      if (typeof stream.id === "string") ids.push(stream.id);
    }
    const next = answer.data?.next;
    if (typeof next !== "string" || next === "" || seen.has(next)) return ids;
    seen.add(next);
    from = next;
  }
}

/** The selected push provider (`GET /guardian/factors/push-notification/selected-provider`). */
async function readPushProvider({ api, context }: Connection): Promise<unknown> {
  const answer = await api.call<{ provider?: unknown }>(context(), {
    method: "GET",
    path: "/guardian/factors/push-notification/selected-provider",
  });
  return answer.data?.provider;
}

/**
 * Reads what a generated program declares: the push provider and the clients of `query`, with
 * the wire `fields` (plus `client_id`). Both reads run together under the tenant's pace.
 *
 * @throws {TenantError} from the API client (a 403 names the missing scope);
 *   {@link UnknownClientError} for ids the tenant does not know.
 */
export async function readTenant(
  settings: TenantSettings,
  query: ClientQuery,
  fields: readonly string[],
  progress: Progress = () => undefined,
): Promise<TenantReads> {
  const [clients, pushProvider] = await Promise.all([
    readClients(settings, query, fields, progress),
    readPushProvider(connect(settings)),
  ]);
  return { clients, pushProvider };
}

/**
 * Reads the clients of `query` alone, with the wire `fields` (plus `client_id`): every page of the
 * list, asked for at once after page 0 and paced at the tenant's rate, or the named ids. Needs
 * `read:clients` only, which is all `pulumi-tenant audit` asks of its credentials.
 *
 * @throws {TenantError} from the API client (a 403 names the missing scope);
 *   {@link UnknownClientError} for ids the tenant does not know.
 */
export function readClients(
  settings: TenantSettings,
  query: ClientQuery,
  fields: readonly string[],
  progress: Progress = () => undefined,
): Promise<WireClient[]> {
  const connection = connect(settings);
  return query.kind === "all"
    ? listEveryClient(connection.api, connection.context, fields, query.appTypes, progress)
    : readIds(connection, query.ids, fields);
}
