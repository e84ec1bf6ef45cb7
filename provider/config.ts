/**
 * The package's settings (docs/installation-configuration.md, "Configuration"), in one place to
 * import them from: what they are and where they come from (`config/settings.ts`), how they are
 * resolved for a program or a command (`config/resolve.ts`), what is wrong with them before any
 * operation (`config/problems.ts`), and this process's stack config and each operation's settings
 * (`config/stack.ts`).
 *
 * @module
 */

export type { Credentials } from "./api/settings.js";
export { environmentSettingProblems, givenSettingProblems } from "./config/problems.js";
export {
  resolveCommandSettings,
  /** @internal */
  resolveSettings,
} from "./config/resolve.js";
export {
  CONFIG_KEYS,
  type ConfigSource,
  /** @internal */
  DEFAULT_OPERATION_TIMEOUT_MS,
  /** @internal */
  DEFAULT_REQUEST_TIMEOUT_MS,
  type TenantSettings,
} from "./config/settings.js";
export {
  configuredConnection,
  configuredOrigin,
  settingsFor,
  stackSettingFailuresOnce,
  useStackConfig,
} from "./config/stack.js";
