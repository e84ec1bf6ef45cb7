/**
 * The error classes of pulumi-tenant, one per kind of failure, each with a stable `name` and
 * `code`, in one place to import them from. They are declared by who sees them: the root
 * ({@link TenantError}, which every one of them extends, and the codes) in `errors/root.ts`, a
 * program's author's in `errors/tenant.ts`, the commands' (and their exit statuses) in
 * `errors/commands.ts`, the local tenant API's in `errors/local-api.ts`.
 *
 * @module
 */

export {
  COMMAND_EXIT,
  CommandUsageError,
  exitStatusOf,
  GenerateOutputError,
  GenerateUsageError,
  PluginBuildError,
  SnapshotOutputError,
  UnknownClientError,
} from "./errors/commands.js";
export { LocalTenantError, SeedError } from "./errors/local-api.js";
export { type ErrorCode, ErrorCodes, TenantError } from "./errors/root.js";
export {
  type ApiFailure,
  type FixedFieldChange,
  ImmutableFieldError,
  type InvalidInput,
  PutBackRefusedError,
  TenantAnswerError,
  TenantApiError,
  TenantAuthError,
  TenantConfigError,
  TenantImportError,
  TenantInstallError,
  TenantNetworkError,
  TenantTimeoutError,
  TenantValidationError,
  WriteNotHeldError,
} from "./errors/tenant.js";
