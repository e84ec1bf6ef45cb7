/**
 * pulumi-tenant: Pulumi dynamic resources for the configuration of an identity-platform tenant.
 *
 * ```ts
 * import { ClientSettings, EventStreamDeletion, PushProviderSelection } from "pulumi-tenant";
 * ```
 *
 * Configure the tenant with stack config (`tenant:domain`, and `tenant:apiToken` or
 * `tenant:clientId` + `tenant:clientSecret`, secrets with `--secret`) or the `TENANT_*`
 * environment variables; or give a resource its own tenant with its `tenant` input
 * ({@link TenantConnectionArgs}), so that one program manages several tenants.
 *
 * @module
 */
export { TenantApiClient, type TenantClientStats } from "./api/client.js";
export { CONFIG_KEYS, type TenantSettings } from "./config.js";
export {
  type ApiFailure,
  type ErrorCode,
  ErrorCodes,
  ImmutableFieldError,
  TenantApiError,
  TenantAuthError,
  TenantConfigError,
  TenantError,
  TenantNetworkError,
  TenantTimeoutError,
  TenantValidationError,
} from "./errors.js";
export {
  ClientSettings,
  type ClientSettingsArgs,
  type ClientSettingsOutputs,
  ClientSettingsProvider,
} from "./resources/client-settings.js";
export {
  EventStreamDeletion,
  type EventStreamDeletionArgs,
  EventStreamDeletionProvider,
} from "./resources/event-stream-deletion.js";
export {
  type PushProvider,
  PushProviderSelection,
  type PushProviderSelectionArgs,
  PushProviderSelectionProvider,
} from "./resources/push-provider-selection.js";
export type { TenantConnectionArgs } from "./resources/registration.js";
export type {
  ClientSettingsField,
  ClientSettingsInputs,
  EventStreamDeletionInputs,
  PushProviderSelectionInputs,
  TenantConnection,
} from "./schema/index.js";
