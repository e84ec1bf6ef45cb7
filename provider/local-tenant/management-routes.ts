/**
 * The management API routes (docs/design/platform.md, "The three operations"): the push provider selection,
 * client read, list and update, event stream read and delete.
 *
 * Checks run in the platform's order: token (in the onRequest hook), then scope, then the body or
 * path or query against the schema, then existence, then the rules that need the stored client.
 */

import type { FastifyInstance } from "fastify";
import { isPlainObject } from "../json.js";
import type { PathFailure } from "../schema/check-failures.js";
import { hasAnyScope, type Principal, requireScope } from "./auth.js";
import { applyClientPatch, type PatchRules } from "./client-patch.js";
import { matchesFilters, parseClientListQuery, parseClientReadQuery } from "./client-query.js";
import {
  clientAsAnswered,
  type FieldSelection,
  KEY_READ_SCOPES,
  payloadValidationMessage,
  storedClientRuleFailures,
  type WireClient,
} from "./clients.js";
import { principalOf, type ServerContext } from "./context.js";
import { ApiError } from "./errors.js";
import type { PushProvider, TenantStore } from "./store.js";
import { validateWire } from "./wire.js";

/** Path of the push provider selection. */
export const SELECTED_PROVIDER_ROUTE =
  "/api/v2/guardian/factors/push-notification/selected-provider";
/** Route of the client list. */
export const CLIENTS_ROUTE = "/api/v2/clients";
/** Route template of a client. */
export const CLIENT_ROUTE = "/api/v2/clients/:id";
/**
 * Route of the event stream list. The spec has no list; the platform pages it with a checkpoint
 * (`from`, `take`), and this answer's shape is our choice (docs/design/local-tenant.md, "Event stream
 * list"), which `pulumi-tenant snapshot` reads.
 */
export const EVENT_STREAMS_ROUTE = "/api/v2/event-streams";
/** Most event streams in one page of the list. */
const MAX_EVENT_STREAMS_PER_PAGE = 100;
/** Route template of an event stream. */
export const EVENT_STREAM_ROUTE = "/api/v2/event-streams/:id";

/** The management API's routes this server serves, as templates (every method it has on them). */
const SERVED_ROUTES = [
  SELECTED_PROVIDER_ROUTE,
  CLIENTS_ROUTE,
  CLIENT_ROUTE,
  EVENT_STREAMS_ROUTE,
  EVENT_STREAM_ROUTE,
].map((route) => new RegExp(`^${route.replace(/:[a-z]+/g, "[^/]+")}$`));

/**
 * Whether `path` is the path of a route this server serves, whatever the method: a path it does
 * not serve is one of the platform's many other management routes (users, connections, ...),
 * which it answers 501, where a served path with a method it lacks is a 404, as on the platform
 * (docs/design/local-tenant.md, "Routes").
 */
export function isServedPath(path: string): boolean {
  return SERVED_ROUTES.some((route) => route.test(path));
}

/** How a PATCH applies on the tenant of `context`: its model and the paths its quirks keep. */
export function patchRulesOf(context: ServerContext): PatchRules {
  return { model: context.patchModel, keep: context.quirks.kept };
}

/** Client fields that change the client's keys and so also need `update:client_keys`. */
const KEY_FIELDS = ["client_secret", "encryption_key"] as const;

interface IdParams {
  id: string;
}

function invalidBody(failures: readonly PathFailure[]): ApiError {
  return new ApiError(400, "invalid_body", payloadValidationMessage(failures));
}

/**
 * The event stream id of the path, checked by the schema module: a wrong length is 400
 * `invalid_uri`, as the platform answers a path that breaks its schema.
 */
function checkedEventStreamId(id: string): string {
  const failures = validateWire("eventStreamId", id);
  if (failures.length > 0) {
    const parts = failures.map((f) => `${f.path === "" ? "id" : `id.${f.path}`}: ${f.reason}`);
    throw new ApiError(400, "invalid_uri", `Path validation error: ${parts.join("; ")}`);
  }
  return id;
}

/** A client as `principal` may read it: key material only with a key-reading scope. */
function answeredClient(
  principal: Principal,
  client: WireClient,
  selection: FieldSelection | undefined,
): Record<string, unknown> {
  return clientAsAnswered(client, { selection, showKeys: hasAnyScope(principal, KEY_READ_SCOPES) });
}

/**
 * The `from` (an opaque checkpoint: here the position of the next stream) and `take` (1 to
 * {@link MAX_EVENT_STREAMS_PER_PAGE}, default 50) of the event stream list; every problem at once.
 */
function eventStreamListQuery(query: Record<string, unknown>): { from: number; take: number } {
  const problems: string[] = [];
  const number = (name: string, fallback: number, min: number, max: number): number => {
    const value = query[name];
    if (value === undefined) return fallback;
    if (typeof value !== "string" || !/^\d+$/.test(value)) {
      problems.push(`${name}: must be an integer (got ${JSON.stringify(value)})`);
      return fallback;
    }
    const parsed = Number(value);
    if (parsed < min || parsed > max) {
      problems.push(`${name}: must be from ${min} to ${max} (got "${value}")`);
    }
    return parsed;
  };
  for (const name of Object.keys(query)) {
    if (name !== "from" && name !== "take") problems.push(`${name}: unknown parameter`);
  }
  const from = number("from", 0, 0, Number.MAX_SAFE_INTEGER);
  const take = number("take", 50, 1, MAX_EVENT_STREAMS_PER_PAGE);
  if (problems.length > 0) {
    throw new ApiError(
      400,
      "invalid_query_string",
      `Query validation error: ${problems.join("; ")}`,
    );
  }
  return { from, take };
}

/**
 * The 404 of a missing event stream, as the platform answers it: no `errorCode` in the body
 * (docs/design/local-tenant.md, "Errors").
 */
function noSuchEventStream(): ApiError {
  return new ApiError(404, undefined, "The requested stream does not exist.");
}

/**
 * Selects the push provider as `PUT .../selected-provider` does, with its checks in the platform's
 * order (scope, then body): the route and the console's edit share it, so that the console's
 * change gets exactly the answer, the 400 included, that the API gives.
 *
 * @throws {ApiError} 403 without `update:guardian_factors`, 400 for a body the schema refuses.
 */
export function selectProvider(
  store: TenantStore,
  principal: Principal,
  requestBody: unknown,
): { provider: PushProvider } {
  requireScope(principal, "update:guardian_factors");
  // No body at all is a body without `provider`, which the schema reports as such.
  const body: unknown = requestBody ?? {};
  const failures = validateWire("pushProviderSelection", body);
  if (failures.length > 0) throw invalidBody(failures);
  const provider = (body as { provider: PushProvider }).provider;
  store.setProvider(provider);
  return { provider };
}

/**
 * Applies a PATCH body to a client as `PATCH /api/v2/clients/{id}` does: scopes, the schema, the
 * client's existence, then the stored-client rules; returns the whole updated client, applied by
 * the tenant's `rules` (its PATCH model and kept paths). The route and the console's edit share
 * it, so a change made on the console is refused with the same 400.
 *
 * @throws {ApiError} 403 without `update:clients` (or `update:client_keys` for key fields), 400
 *   for a body the schema or the stored-client rules refuse, 404 for an unknown client.
 */
export function updateClient(
  store: TenantStore,
  principal: Principal,
  clientId: string,
  requestBody: unknown,
  rules: PatchRules,
): WireClient {
  requireScope(principal, "update:clients");
  const body: unknown = requestBody ?? {};
  if (isPlainObject(body) && KEY_FIELDS.some((field) => field in body)) {
    requireScope(principal, "update:client_keys");
  }
  const failures = validateWire("clientUpdate", body);
  if (failures.length > 0) throw invalidBody(failures);
  const patch = body as Record<string, unknown>;
  const stored = store.getClient(clientId);
  if (stored === undefined) {
    throw new ApiError(404, "inexistent_client", "The client does not exist");
  }
  const updated = applyClientPatch(stored, patch, rules);
  const ruleFailures = storedClientRuleFailures(stored, patch, updated);
  if (ruleFailures.length > 0) throw invalidBody(ruleFailures);
  store.putClient(updated);
  return updated;
}

/** The push provider selection: read and set (docs/design/platform.md). */
function registerPushProviderRoutes(app: FastifyInstance, store: TenantStore): void {
  app.get(SELECTED_PROVIDER_ROUTE, async (request) => {
    requireScope(principalOf(request), "read:guardian_factors");
    return { provider: store.getProvider() };
  });

  app.put(SELECTED_PROVIDER_ROUTE, async (request) => {
    return selectProvider(store, principalOf(request), request.body);
  });
}

/** The clients: the list, one client, and the PATCH that changes it (docs/design/platform.md). */
function registerClientRoutes(app: FastifyInstance, context: ServerContext): void {
  const { store } = context;
  app.get(CLIENTS_ROUTE, async (request) => {
    const principal = principalOf(request);
    requireScope(principal, "read:clients");
    const query = parseClientListQuery(request.query as Record<string, unknown>);
    const start = query.page * query.perPage;
    const { clients, total } = store.listClients(
      (client) => matchesFilters(client, query.filters),
      start,
      query.perPage,
    );
    const answered = clients.map((client) => answeredClient(principal, client, query.selection));
    if (!query.includeTotals) return answered;
    return { clients: answered, start, limit: query.perPage, total };
  });

  app.get<{ Params: IdParams }>(CLIENT_ROUTE, async (request) => {
    const principal = principalOf(request);
    requireScope(principal, "read:clients");
    const query = parseClientReadQuery(request.query as Record<string, unknown>);
    const client = store.getClient(request.params.id);
    if (client === undefined) {
      throw new ApiError(404, "inexistent_client", "The client does not exist");
    }
    return answeredClient(principal, client, query.selection);
  });

  // A PATCH answers the whole client, key material included, as the platform does.
  app.patch<{ Params: IdParams }>(CLIENT_ROUTE, async (request) => {
    const principal = principalOf(request);
    const rules = patchRulesOf(context);
    const updated = updateClient(store, principal, request.params.id, request.body, rules);
    return clientAsAnswered(updated, { selection: undefined, showKeys: true });
  });
}

/** The event streams: the list, one stream, and its deletion (docs/design/platform.md). */
function registerEventStreamRoutes(app: FastifyInstance, store: TenantStore): void {
  app.get(EVENT_STREAMS_ROUTE, async (request) => {
    requireScope(principalOf(request), "read:event_streams");
    const { from, take } = eventStreamListQuery(request.query as Record<string, unknown>);
    const ids = store.eventStreamIds();
    const eventStreams = ids.slice(from, from + take).map((id) => store.getEventStream(id));
    return from + take < ids.length
      ? { eventStreams, next: String(from + take) }
      : { eventStreams };
  });

  app.get<{ Params: IdParams }>(EVENT_STREAM_ROUTE, async (request) => {
    requireScope(principalOf(request), "read:event_streams");
    const stream = store.getEventStream(checkedEventStreamId(request.params.id));
    if (stream === undefined) throw noSuchEventStream();
    return stream;
  });

  // Idempotent, as on the platform: a stream already deleted (or never there) answers 204 too.
  app.delete<{ Params: IdParams }>(EVENT_STREAM_ROUTE, async (request, reply) => {
    requireScope(principalOf(request), "delete:event_streams");
    store.deleteEventStream(checkedEventStreamId(request.params.id));
    reply.code(204);
    return reply.send();
  });
}

/** Registers the management API routes. */
export function registerManagementRoutes(app: FastifyInstance, context: ServerContext): void {
  registerPushProviderRoutes(app, context.store);
  registerClientRoutes(app, context);
  registerEventStreamRoutes(app, context.store);
}
