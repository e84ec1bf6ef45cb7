/**
 * pulumi-tenant: Pulumi dynamic resources for the configuration of an identity-platform tenant.
 *
 * ```ts
 * import { ClientSettings, EventStreamDeletion, PushProviderSelection } from "pulumi-tenant";
 * ```
 *
 * Configure the tenant with stack config (`tenant:domain`, and `tenant:clientId` with
 * `tenant:clientAssertionPrivateKey` or `tenant:clientSecret`, or `tenant:apiToken`; secrets with
 * `--secret`) or the `TENANT_*`
 * environment variables; or give a resource its own tenant with its `tenant` input
 * ({@link TenantConnectionArgs}), so that one program manages several tenants.
 *
 * @module
 */
// First: on a Node.js the package does not run on, one sentence instead of a crash further in.
import "./node-check.js";

export { CONFIG_KEYS } from "./config.js";
export {
  type ApiFailure,
  type ErrorCode,
  ErrorCodes,
  type FixedFieldChange,
  GenerateOutputError,
  GenerateUsageError,
  ImmutableFieldError,
  type InvalidInput,
  TenantApiError,
  TenantAuthError,
  TenantConfigError,
  TenantError,
  TenantInstallError,
  TenantNetworkError,
  TenantTimeoutError,
  TenantValidationError,
  UnknownClientError,
} from "./errors.js";
export {
  ClientSettings,
  type ClientSettingsArgs,
  type ClientSettingsOutputs,
} from "./resources/client-settings.js";
export {
  EventStreamDeletion,
  type EventStreamDeletionArgs,
} from "./resources/event-stream-deletion.js";
export {
  type PushProvider,
  PushProviderSelection,
  type PushProviderSelectionArgs,
} from "./resources/push-provider-selection.js";
export type { TenantConnectionArgs } from "./resources/registration.js";
export type {
  ClientSettingsField,
  ClientSettingsInputs,
  EventStreamDeletionInputs,
  PushProviderSelectionInputs,
  TenantConnection,
} from "./schema/index.js";
