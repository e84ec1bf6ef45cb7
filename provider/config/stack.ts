/**
 * The settings of this process: the stack config the engine passed to the providers'
 * `configure` ({@link useStackConfig}), the problems of it reported once per run
 * ({@link stackSettingFailuresOnce}), and the settings of each operation, from a resource's
 * `tenant` input or from the stack config ({@link settingsFor}), resolved on first use.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { resolveBudget } from "../connection/budget.js";
import { originOfValues } from "../connection/origin.js";
import { connectionValues, resolveConnection } from "../connection/parse.js";
import { CONNECTION_SETTINGS } from "../connection/schema.js";
import {
  type ConnectionValues,
  STACK_CONFIG_NAMING,
  TENANT_INPUT_NAMING,
} from "../connection/values.js";
import { stackSettingProblems } from "./problems.js";
import {
  budgetNamesOf,
  reader,
  resolveSettings,
  resolveTimeouts,
  stackSpelling,
  stackValues,
} from "./resolve.js";
import type { ConfigSource, TenantSettings, Timeouts } from "./settings.js";

let configSource: ConfigSource | undefined;
let cachedSettings: TenantSettings | undefined;
let cachedTimeouts: Timeouts | undefined;
let cachedStackValues: ConnectionValues | undefined;
/** A hash of the stack values {@link useStackConfig} was last given: no second copy of a secret. */
let stackFingerprint: string | undefined;
/** Whether {@link stackSettingFailuresOnce} has reported the problems of those values. */
let stackFailuresReported = false;

/** A hash of `values`, which tells two stack configs apart without holding their secrets. */
function fingerprintOf(values: ConnectionValues): string {
  const text = JSON.stringify(CONNECTION_SETTINGS.map((setting) => values[setting] ?? null));
  return createHash("sha256").update(text).digest("hex");
}

/**
 * Remembers the stack config the engine passed to a provider's `configure`. Synchronous on
 * purpose: the dynamic-provider host starts `configure` and may run another call of the same
 * provider before that promise settles, so nothing may happen after an `await` here.
 *
 * The host configures each resource kind's provider with the stack config, each time as a new
 * object: only a config whose values differ from the last one's is a new run of checks, whose
 * problems {@link stackSettingFailuresOnce} reports again.
 */
export function useStackConfig(config: ConfigSource | undefined): void {
  cachedStackValues = stackValues(config, process.env);
  const fingerprint = fingerprintOf(cachedStackValues);
  if (fingerprint !== stackFingerprint) {
    stackFingerprint = fingerprint;
    stackFailuresReported = false;
  }
  configSource = config;
  cachedSettings = undefined;
  cachedTimeouts = undefined;
}

/**
 * The settings of the stack config and the environment that break their rules (a bad
 * `tenant:rateLimitReserve`, two ways of authenticating, a private key that does not fit its
 * algorithm), as check failures, once per process and stack config: the first resource's `check`
 * after {@link useStackConfig} gets them, every later one none. So they fail `pulumi preview` in the
 * dynamic face too, naming the setting, without the credentials a preview does not need, and the
 * provider says each once per run, not in the check of every one of 200 resources.
 *
 * The other resources' checks pass, and the run still fails before any request is sent and
 * applies nothing: the engine stops the deployment at the first resource whose check fails,
 * before it creates, updates or deletes anything; and an operation that reaches the provider all
 * the same (an engine that went on past a failed check) resolves its settings first
 * ({@link settingsFor}), which throws a `TenantConfigError` naming the same setting before any
 * request, for every resource that uses it (one whose `tenant` input gives the setting itself
 * does not use the stack config's).
 *
 * A failure's `property` is empty: Pulumi prints a named property with the resource's input of
 * that name (`property tenant:rateLimitReserve value {<nil>} has a problem`), and the setting is
 * not an input; an empty one reads `resource 'web' has a problem: tenant:rateLimitReserve must
 * be ...`, the reason naming the setting.
 */
export function stackSettingFailuresOnce(): { property: string; reason: string }[] {
  if (stackFailuresReported) return [];
  cachedStackValues ??= stackValues(configSource, process.env);
  const failures = stackSettingProblems(cachedStackValues).map(({ message }) => ({
    property: "",
    reason: message,
  }));
  stackFailuresReported = failures.length > 0;
  return failures;
}

/**
 * The settings for this process, resolved on first use (so that `check` and `diff`, which never
 * call the API, work in a preview without credentials).
 *
 * @throws {TenantConfigError} as {@link resolveSettings}.
 */
function currentSettings(): TenantSettings {
  cachedSettings ??= resolveSettings(configSource);
  return cachedSettings;
}

/**
 * The settings of an operation on a resource whose `tenant` input is `tenant`: that connection
 * with the timeouts of the stack config, and its budget where it gives one, else the stack
 * config's; or, when the resource has no `tenant` input, the settings of the stack config
 * ({@link currentSettings}).
 *
 * @throws {TenantConfigError} when the connection breaks a rule (naming `tenant.domain`, ...) or
 *   the stack config is incomplete.
 */
export function settingsFor(tenant: unknown): TenantSettings {
  const values = connectionValues(tenant);
  if (values === undefined) return currentSettings();
  cachedTimeouts ??= resolveTimeouts(configSource);
  cachedStackValues ??= stackValues(configSource, process.env);
  const stackSpelled = stackSpelling(configSource, process.env);
  return {
    ...resolveConnection(values, TENANT_INPUT_NAMING),
    ...cachedTimeouts,
    budget: resolveBudget(values, TENANT_INPUT_NAMING, {
      values: cachedStackValues,
      naming: STACK_CONFIG_NAMING,
    }),
    // The `tenant` input's member where it gives the setting, else the stack config's spelling.
    ...budgetNamesOf((setting) =>
      values[setting] === undefined ? stackSpelled(setting) : TENANT_INPUT_NAMING.names[setting],
    ),
  };
}

/**
 * The origin of the stack config's domain, or undefined when it is not set or not valid. Needs no
 * credentials: diff uses it to tell whether a resource moves between the stack config's tenant
 * and a `tenant` input.
 */
export function configuredOrigin(): string | undefined {
  return originOfValues({ domain: reader(configSource, process.env)("domain") });
}

/**
 * The stack config's connection as the stack config and the environment give it, its members
 * spelled as a `tenant` input's (`domain`, `clientSecret`, ...), the unset ones left out; undefined
 * without a domain. What a resource records to reach its tenant again once the stack config names
 * another (`connection/change.ts`, `STACK_TENANT_KEY`).
 */
export function configuredConnection(): Record<string, unknown> | undefined {
  cachedStackValues ??= stackValues(configSource, process.env);
  const given = Object.entries(cachedStackValues).filter(([, value]) => value !== undefined);
  return given.some(([setting]) => setting === "domain") ? Object.fromEntries(given) : undefined;
}
