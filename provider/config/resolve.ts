/**
 * The settings resolved, whichever way they are given: a Pulumi program's stack config with the
 * environment after it ({@link resolveSettings}), a command's flags with the environment after
 * them ({@link resolveCommandSettings}), under the rules of every connection
 * (`connection/parse.ts`), each message naming the setting as its user spells it.
 *
 * @module
 */

import type { BudgetNames } from "../api/pacing-report.js";
import { resolveBudget } from "../connection/budget.js";
import { resolveConnection } from "../connection/parse.js";
import { CONNECTION_SETTINGS } from "../connection/schema.js";
import {
  type ConnectionNaming,
  type ConnectionValues,
  STACK_CONFIG_NAMING,
} from "../connection/values.js";
import { TenantConfigError } from "../errors.js";
import {
  CONFIG_KEYS,
  type ConfigSource,
  DEFAULT_OPERATION_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type TenantSettings,
  type Timeouts,
} from "./settings.js";

/** Reads one setting: stack config first, environment second (blank values are not set). */
export function reader(config: ConfigSource | undefined, env: NodeJS.ProcessEnv) {
  return (name: keyof typeof CONFIG_KEYS): string | undefined => {
    const { key, env: envName } = CONFIG_KEYS[name];
    const value = config?.get(key) ?? env[envName];
    return value === undefined || value.trim() === "" ? undefined : value.trim();
  };
}

/**
 * Reads the tenant settings: stack config first, environment second. Empty strings count as
 * unset, so `TENANT_API_TOKEN=` in a CI job does not shadow the client credentials. The rules are
 * those of every connection (`connection/parse.ts`), named as stack config keys.
 *
 * @throws {TenantConfigError} when the domain or the credentials are missing, when the domain is
 *   not a host or an origin, or when it asks for plain `http://` to a host that is not loopback
 *   (a bearer token must never cross a network unencrypted); when a timeout is not a positive
 *   number.
 * @internal
 */
export function resolveSettings(
  config: ConfigSource | undefined,
  env: NodeJS.ProcessEnv = process.env,
): TenantSettings {
  const values = stackValues(config, env);
  return {
    ...resolveConnection(values, STACK_CONFIG_NAMING),
    ...resolveTimeouts(config, env),
    budget: resolveBudget(values, STACK_CONFIG_NAMING),
    ...budgetNamesOf(stackSpelling(config, env)),
  };
}

/** The budget's settings. */
export type BudgetSetting = keyof BudgetNames;

/**
 * The names of the budget's settings for the limiter's reports, each as `spell` gives it; none
 * when every one is its stack config key, the limiter's default (so that settings of a program
 * that sets nothing stay as they were).
 */
export function budgetNamesOf(spell: (setting: BudgetSetting) => string): {
  budgetNames?: BudgetNames;
} {
  const budgetNames: BudgetNames = {
    rateLimitReserve: spell("rateLimitReserve"),
    maxRequestsPerSecond: spell("maxRequestsPerSecond"),
  };
  const keys = Object.entries(budgetNames).every(
    ([setting, name]) => CONFIG_KEYS[setting as BudgetSetting].key === name,
  );
  return keys ? {} : { budgetNames };
}

/** Whether `value` gives a setting: blank values do not. */
function given(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== "";
}

/**
 * How a Pulumi program's user gave a budget setting: the stack config key, or its environment
 * variable when only the environment gives it (the key when neither does: that is where to set it).
 */
export function stackSpelling(config: ConfigSource | undefined, env: NodeJS.ProcessEnv) {
  return (setting: BudgetSetting): string => {
    const { key, env: envName } = CONFIG_KEYS[setting];
    return !given(config?.get(key)) && given(env[envName]) ? envName : key;
  };
}

/**
 * How a command names the settings: the flag when the command line gave the setting, the
 * environment variable when the environment did, else both (`--domain (or TENANT_DOMAIN)`); never
 * the stack config key, which no command reads.
 */
function commandNaming(flags: ConfigSource): ConnectionNaming {
  const flagOf = (name: keyof typeof CONFIG_KEYS): string | undefined => {
    const entry = CONFIG_KEYS[name];
    return "flag" in entry ? entry.flag : undefined;
  };
  const both = (name: keyof typeof CONFIG_KEYS) =>
    `${flagOf(name) ?? ""} (or ${CONFIG_KEYS[name].env})`;
  const names = Object.fromEntries(
    CONNECTION_SETTINGS.map((setting) => {
      const flag = flagOf(setting);
      const given = flags.get(CONFIG_KEYS[setting].key) !== undefined;
      return [setting, given && flag !== undefined ? flag : CONFIG_KEYS[setting].env];
    }),
  ) as ConnectionNaming["names"];
  return {
    names,
    howTo:
      `give ${both("domain")} and ${both("clientId")} with either ` +
      `${both("clientAssertionPrivateKey")} or ${both("clientSecret")}, or ` +
      `${both("apiToken")} alone (see --help)`,
  };
}

/**
 * The tenant settings of a command (`generate`, `snapshot`, `audit`): its flags (`flags`, keyed
 * like the stack config: `tenant:domain`, ...) first, the `TENANT_*` environment second, under
 * the rules of every connection; every message names the flag or the variable the user gave
 * ({@link commandNaming}), and the timeouts their variables.
 *
 * @throws {TenantConfigError} as {@link resolveSettings}, naming flags and variables.
 */
export function resolveCommandSettings(
  flags: ConfigSource,
  env: NodeJS.ProcessEnv = process.env,
): TenantSettings {
  const values = stackValues(flags, env);
  const naming = commandNaming(flags);
  // The flag, or the variable when only the environment gives the setting (the flag when neither
  // does: that is what a user of the command would type).
  const spelling = (setting: BudgetSetting): string => {
    const { key, env: envName, flag } = CONFIG_KEYS[setting];
    return !given(flags.get(key)) && given(env[envName]) ? envName : flag;
  };
  return {
    ...resolveConnection(values, naming),
    ...resolveTimeouts(undefined, env, "env"),
    budget: resolveBudget(values, naming),
    budgetNames: {
      rateLimitReserve: spelling("rateLimitReserve"),
      maxRequestsPerSecond: spelling("maxRequestsPerSecond"),
    },
  };
}

/** The connection's members as the stack config (and environment) give them. */
export function stackValues(
  config: ConfigSource | undefined,
  env: NodeJS.ProcessEnv,
): ConnectionValues {
  const read = reader(config, env);
  return Object.fromEntries(CONNECTION_SETTINGS.map((setting) => [setting, read(setting)]));
}

/**
 * The timeouts from stack config and environment, defaults where unset.
 *
 * @throws {TenantConfigError} when one is not a positive number of seconds.
 */
export function resolveTimeouts(
  config: ConfigSource | undefined,
  env: NodeJS.ProcessEnv = process.env,
  spelling: "key" | "env" = "key",
): Timeouts {
  const read = reader(config, env);
  const name = (setting: "requestTimeout" | "operationTimeout") => CONFIG_KEYS[setting][spelling];
  return {
    requestTimeoutMs: readSeconds(
      "requestTimeout",
      read("requestTimeout"),
      DEFAULT_REQUEST_TIMEOUT_MS,
      spelling,
    ),
    operationTimeoutMs: readSeconds(
      "operationTimeout",
      read("operationTimeout"),
      DEFAULT_OPERATION_TIMEOUT_MS,
      spelling,
    ),
    // The stack config's keys are the messages' default (api/client.ts): named only otherwise.
    ...(spelling === "key"
      ? {}
      : {
          timeoutSettings: { request: name("requestTimeout"), operation: name("operationTimeout") },
        }),
  };
}

/**
 * The milliseconds of the timeout `name` given as `value` seconds, `fallbackMs` when unset.
 *
 * @throws {TenantConfigError} when `value` is not a positive number, naming the setting as
 *   `spelling` says (its key or its variable).
 */
export function readSeconds(
  name: keyof typeof CONFIG_KEYS,
  value: string | undefined,
  fallbackMs: number,
  spelling: "key" | "env" = "key",
): number {
  if (value === undefined) return fallbackMs;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new TenantConfigError(
      `${CONFIG_KEYS[name][spelling]} must be a positive number of seconds (got "${value}")`,
    );
  }
  return Math.round(seconds * 1000);
}
