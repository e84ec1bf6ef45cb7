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

export type { TenantConnection } from "../connection/schema.js";
export { isUnknown } from "../unknown.js";
export { checkInputs } from "./check.js";
export { addonsSchema } from "./client-addons.js";
export {
  APP_TYPES,
  CLIENT_SETTINGS_FIELDS,
  type ClientSettingsField,
  type ClientSettingsInputs,
  SENSITIVE_CLIENT_FIELDS,
  secretDescription,
  sensitiveMemberNames,
} from "./client-settings.js";
export { POST_LOGIN_PROMPT_FIELDS, postLoginPromptReason } from "./cross-field.js";
export type { EventStreamDeletionInputs } from "./event-stream-deletion.js";
export { NAME_KEY, type ResourceKind } from "./kinds.js";
export { PUSH_PROVIDERS, type PushProviderSelectionInputs } from "./push-provider-selection.js";
export { fieldFromWire, fieldToWire, wireName } from "./wire.js";
