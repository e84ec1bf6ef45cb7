/**
 * The one place where `pulumi-tenant generate` imports the rest of the package: the settings,
 * the paced and retried API client, the client directory, the schema and the error base class.
 * Every other file of `provider/generate/` imports these names from here, so that a move or a
 * rename elsewhere in `provider/` is repointed in this file alone.
 *
 * Nothing here may import `@pulumi/pulumi` (the resources do): the command must start fast, and it
 * never runs inside Pulumi.
 *
 * @module
 */

export {
  getTenantClient,
  type OperationContext,
  startOperation,
  type TenantApiClient,
} from "../api/client.js";
export {
  CLIENT_PAGE_SIZE,
  ClientDirectory,
  type ClientDirectoryTransport,
  type DirectoryClient,
  type DirectoryPage,
  pageCountOf,
} from "../api/client-directory.js";
export {
  CONFIG_KEYS,
  type ConfigSource,
  type Credentials,
  resolveSettings,
  type TenantSettings,
} from "../config.js";
export { TenantApiError, TenantError } from "../errors.js";
export {
  APP_TYPES,
  CLIENT_SETTINGS_FIELDS,
  type ClientSettingsField,
  checkInputs,
  fieldFromWire,
  PUSH_PROVIDERS,
  wireName,
} from "../schema/index.js";
export {
  itemSchema,
  memberSchema,
  propertiesOf,
  SCHEMAS,
  type SchemaNode,
} from "../schema/kinds.js";
