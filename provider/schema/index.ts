/**
 * The single source of truth for the inputs of the three resources: JSON Schemas in the user's
 * camelCase (each resource's settings, and the `tenant` connection every resource accepts), the
 * TypeScript types derived from them, validation for `check`, and the mapping of
 * client fields to and from the API's wire names.
 *
 * Importing this module creates nothing: the Ajv instance and the validators are built on the
 * first validation and then reused for the life of the process.
 *
 * @module
 */

export { checkInputs, type InputCheck, MAX_DEPTH } from "./check.js";
export type { PathFailure } from "./check-failures.js";
export { addonsSchema } from "./client-addons.js";
export {
  APP_TYPES,
  CLIENT_SETTINGS_FIELDS,
  type ClientSettingsField,
  type ClientSettingsInputs,
  clientSettingsSchema,
  GRANT_TYPES,
  SENSITIVE_CLIENT_FIELDS,
  secretDescription,
  sensitiveMemberNames,
} from "./client-settings.js";
export { POST_LOGIN_PROMPT_FIELDS, postLoginPromptReason } from "./cross-field.js";
export {
  type EventStreamDeletionInputs,
  eventStreamDeletionSchema,
} from "./event-stream-deletion.js";
export { FORMATS, type FormatName } from "./formats.js";
export type { ResourceKind } from "./kinds.js";
export {
  PUSH_PROVIDERS,
  type PushProviderSelectionInputs,
  pushProviderSelectionSchema,
} from "./push-provider-selection.js";
export {
  CONNECTION_SETTINGS,
  type ConnectionSetting,
  SENSITIVE_CONNECTION_SETTINGS,
  TENANT_KEY,
  type TenantConnection,
  tenantConnectionSchema,
} from "./tenant-connection.js";
export { isUnknown, UNKNOWN } from "./unknown.js";
export { fieldFromWire, fieldToWire, wireName } from "./wire.js";
