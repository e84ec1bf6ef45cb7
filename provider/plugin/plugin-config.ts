/**
 * How the plugin gets its configuration (docs/design/plugin.md, "Configuration"): the engine's
 * `Configure` call carries the provider's inputs, keyed as the schema's config variables
 * (`domain`, `clientSecret`, ...), secrets still wrapped. These become the same {@link ConfigSource}
 * the dynamic face gets from the stack config, keyed `tenant:domain`, so one resolution
 * (`config.ts`) serves both faces, with the same `TENANT_*` environment fallbacks.
 *
 * @module
 */

import type * as pulumi from "@pulumi/pulumi";
import {
  CONFIG_KEYS,
  type ConfigSource,
  environmentSettingProblems,
  givenSettingProblems,
} from "../config.js";
import { SENSITIVE_CONNECTION_SETTINGS } from "../connection/schema.js";
import type { Props } from "../json.js";
import { isUnknown } from "../unknown.js";
import { PACKAGE_NAME } from "./package-schema.js";

/** The provider input (`domain`) a config key (`tenant:domain`) is given as. */
function inputName(key: string): string {
  return key.slice(PACKAGE_NAME.length + 1);
}

/**
 * The config source of a provider whose (unwrapped) inputs are `args`. A value that is not text
 * (a number for a timeout, as YAML writes it) is read as its text; a value still unknown during a
 * preview counts as not set.
 */
export function configSource(args: Props): ConfigSource {
  return {
    get(key: string): string | undefined {
      if (!key.startsWith(`${PACKAGE_NAME}:`)) return undefined;
      const value = args[inputName(key)];
      if (value === undefined || value === null || isUnknown(value)) return undefined;
      return typeof value === "string" ? value : JSON.stringify(value);
    },
  };
}

/** Whether the setting `name` is a credential (`"x-sensitive"` in the connection's schema). */
function isSensitiveSetting(name: string): boolean {
  return (SENSITIVE_CONNECTION_SETTINGS as readonly string[]).includes(name);
}

/**
 * What is wrong with the settings a provider was given (`CheckConfig`), one failure per setting,
 * named as the provider's input (`domain`), a credential's with no property; see {@link givenSettingProblems} for what is judged.
 * What the `TENANT_*` environment adds to them (a `TENANT_RATE_LIMIT_RESERVE` out of range, a second
 * way of authenticating) is reported here too, with no property: it is not an input, and Pulumi
 * prints a named property with the input's value. So a plugin process reports its settings once,
 * here, and the engine stops before any resource's check or operation; the resources' checks
 * would otherwise report the environment's at the first of them
 * (`config.ts`'s `stackSettingFailuresOnce`).
 */
export function configFailures(args: Props): pulumi.dynamic.CheckFailure[] {
  const source = configSource(args);
  return [
    ...givenSettingProblems(source).map(({ name, message }) => ({
      // Pulumi prints a named property with its value in clear, a secret's too: a credential's
      // problem names none (its message names the setting).
      property: isSensitiveSetting(name) ? "" : inputName(CONFIG_KEYS[name].key),
      reason: message,
    })),
    ...environmentSettingProblems(source).map((reason) => ({ property: "", reason })),
  ];
}
