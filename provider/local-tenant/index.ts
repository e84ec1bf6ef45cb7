/**
 * The local tenant API: a faithful HTTP implementation of the tenant management API's operations
 * used by this project (docs/design/platform.md), for tests, the demo and the benchmarks. See
 * docs/design/local-tenant.md for the routes, the command and the seed file format.
 */

export { buildApp, type TlsOptions } from "./app.js";
export {
  hasAnyScope,
  type JWTPayload,
  loadJose,
  type MintOptions,
  type Principal,
  requireScope,
  TokenAuthority,
} from "./auth.js";
export {
  BackgroundLoad,
  type BackgroundLoadOptions,
  type BackgroundLoadParts,
  type BackgroundTimer,
  burstDueAt,
  burstsDueBy,
  MAX_BACKGROUND_BURST,
  MAX_BACKGROUND_RATE,
  normalizeBackgroundLoad,
  type ResolvedBackgroundLoad,
} from "./background-load.js";
export {
  applyClientPatch,
  DEFAULT_PATCH_MODEL,
  type PatchModel,
  type PatchRules,
} from "./client-patch.js";
export {
  type ClientListFilters,
  type ClientListQuery,
  type ClientReadQuery,
  DEFAULT_PER_PAGE,
  MAX_PER_PAGE,
  matchesFilters,
  parseClientListQuery,
  parseClientReadQuery,
} from "./client-query.js";
export {
  clientAsAnswered,
  clientResponseDefaults,
  type FieldSelection,
  KEY_MATERIAL_FIELDS,
  KEY_READ_SCOPES,
  RESPONSE_ONLY_FIELDS,
  type WireClient,
} from "./clients.js";
export { backgroundSummary, type CliReadyLine, parseCliArgs } from "./command.js";
export { areaOf, isLoopback, type ServerContext, type TenantApiRequest } from "./context.js";
export {
  ApiError,
  type ManagementErrorBody,
  type ManagementErrorCode,
  OAuthError,
  type OAuthErrorBody,
  type OAuthErrorCode,
} from "./errors.js";
export {
  createRandom,
  type FaultOptions,
  type FaultPlan,
  parseFaultSpec,
  type ResolvedFaults,
} from "./faults.js";
export {
  CLIENT_ROUTE,
  CLIENTS_ROUTE,
  EVENT_STREAM_ROUTE,
  EVENT_STREAMS_ROUTE,
  SELECTED_PROVIDER_ROUTE,
} from "./management-routes.js";
export {
  deliveryAt,
  type NetworkDelayOptions,
  normalizeNetworkDelay,
  parseNetworkDelayFlag,
  type ResolvedNetworkDelay,
  startNetworkDelayRelay,
} from "./network-delay.js";
export { JWKS_ROUTE, TOKEN_ROUTE, type TokenResponse } from "./oauth-routes.js";
export {
  type RateLimitDecision,
  type RateLimitOptions,
  type ResolvedRateLimit,
  TokenBucket,
} from "./rate-limit.js";
export {
  ADMIN_SCOPES,
  DEFAULT_SEED,
  DEFAULT_SEED_IDS,
  generatedClients,
  type LoadedSeed,
  loadSeed,
  newClientId,
  newEventStreamId,
  READ_ONLY_SCOPES,
  SECRET_PLACEHOLDER,
  SEED_FORMAT_VERSION,
  type SeedClient,
  type SeedExtras,
  type TenantSeed,
} from "./seed.js";
export {
  type ClientCredentials,
  createServerContext,
  startTenantApi,
  type TenantApi,
  type TenantApiOptions,
} from "./server.js";
export { type BackgroundStats, RequestStats, type TenantApiStats } from "./stats.js";
export {
  type ClientGrant,
  type PushProvider,
  type TenantState,
  TenantStore,
  type WireEventStream,
} from "./store.js";
export { fromWire, toWire, validateWire, wireSchema } from "./wire.js";
