import { createHash } from "node:crypto";
import type { BudgetNames } from "./api/pacing-report.js";
import { STACK_KEYS, type TenantSettings, type Timeouts } from "./api/settings.js";
import { budgetProblems, resolveBudget } from "./connection/budget.js";
import {
  type ConnectionNaming,
  type ConnectionProblem,
  type ConnectionValues,
  connectionValues,
  givenCredentialProblems,
  originOf,
  originOfValues,
  resolveConnection,
  STACK_CONFIG_NAMING,
  TENANT_INPUT_NAMING,
} from "./connection/parse.js";
import { CONNECTION_SETTINGS } from "./connection/schema.js";
import { TenantConfigError } from "./errors.js";

export type { Credentials, TenantSettings } from "./api/settings.js";

/**
 * Where settings come from: the stack config the engine hands to the provider's `configure`
 * (keys `tenant:domain`, ...), then the `TENANT_*` environment variables.
 */
export interface ConfigSource {
  /** The value of a namespaced stack config key (`tenant:domain`), or undefined. */
  get(key: string): string | undefined;
}

/**
 * The settings, in one place for the docs and every message: each one's stack config key, its
 * environment variable, and the flag the commands (`generate`, `snapshot`, `audit`) take for it
 * (the timeouts have none: a command reads them from the environment). A Pulumi program's messages
 * name the key (and the variable), a command's the flag and the variable ({@link COMMAND_NAMING}).
 */
export const CONFIG_KEYS = {
  domain: { key: "tenant:domain", env: "TENANT_DOMAIN", flag: "--domain" },
  apiToken: { key: "tenant:apiToken", env: "TENANT_API_TOKEN", flag: "--api-token" },
  clientId: { key: "tenant:clientId", env: "TENANT_CLIENT_ID", flag: "--client-id" },
  clientSecret: {
    key: "tenant:clientSecret",
    env: "TENANT_CLIENT_SECRET",
    flag: "--client-secret",
  },
  clientAssertionPrivateKey: {
    key: "tenant:clientAssertionPrivateKey",
    env: "TENANT_CLIENT_ASSERTION_PRIVATE_KEY",
    flag: "--client-assertion-private-key-file",
  },
  clientAssertionSigningAlg: {
    key: "tenant:clientAssertionSigningAlg",
    env: "TENANT_CLIENT_ASSERTION_SIGNING_ALG",
    flag: "--client-assertion-signing-alg",
  },
  audience: { key: "tenant:audience", env: "TENANT_AUDIENCE", flag: "--audience" },
  rateLimitReserve: {
    key: STACK_KEYS.rateLimitReserve,
    env: "TENANT_RATE_LIMIT_RESERVE",
    flag: "--rate-limit-reserve",
  },
  maxRequestsPerSecond: {
    key: STACK_KEYS.maxRequestsPerSecond,
    env: "TENANT_MAX_REQUESTS_PER_SECOND",
    flag: "--max-requests-per-second",
  },
  requestTimeout: {
    key: STACK_KEYS.requestTimeout,
    env: "TENANT_REQUEST_TIMEOUT_SECONDS",
    description:
      "Seconds one HTTP attempt may take before it is abandoned and retried. Default 30.",
  },
  operationTimeout: {
    key: STACK_KEYS.operationTimeout,
    env: "TENANT_OPERATION_TIMEOUT_SECONDS",
    description:
      "Seconds one resource operation may take, retries and rate-limit waits included. Default 600.",
  },
} as const;

/**
 * 30 s per attempt: the platform answers in well under a second; anything longer is stuck.
 *
 * @internal
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/**
 * 10 min per operation: long enough for a resource that waits its turn behind hundreds of others
 * at a free tenant's 2 requests per second, short enough that a pipeline never hangs.
 *
 * @internal
 */
export const DEFAULT_OPERATION_TIMEOUT_MS = 600_000;

/** Reads one setting: stack config first, environment second (blank values are not set). */
function reader(config: ConfigSource | undefined, env: NodeJS.ProcessEnv) {
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
type BudgetSetting = keyof BudgetNames;

/**
 * The names of the budget's settings for the limiter's reports, each as `spell` gives it; none
 * when every one is its stack config key, the limiter's default (so that settings of a program
 * that sets nothing stay as they were).
 */
function budgetNamesOf(spell: (setting: BudgetSetting) => string): {
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
function stackSpelling(config: ConfigSource | undefined, env: NodeJS.ProcessEnv) {
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
function stackValues(config: ConfigSource | undefined, env: NodeJS.ProcessEnv): ConnectionValues {
  const read = reader(config, env);
  return Object.fromEntries(CONNECTION_SETTINGS.map((setting) => [setting, read(setting)]));
}

/**
 * The timeouts from stack config and environment, defaults where unset.
 *
 * @throws {TenantConfigError} when one is not a positive number of seconds.
 */
function resolveTimeouts(
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

function readSeconds(
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

/**
 * What is wrong with the settings `config` gives, one problem per setting, ignoring the
 * environment: a domain that is not a host or an origin, a timeout that is not a positive number,
 * a reserve or a ceiling out of its range, more than one way of authenticating, a signing
 * algorithm the platform does not accept or a private key that does not fit it.
 * A missing setting is not a problem here (it may come from the environment, and a preview needs
 * no credentials); an operation without it fails naming it ({@link settingsFor}).
 */
export function givenSettingProblems(
  config: ConfigSource,
): { readonly name: keyof typeof CONFIG_KEYS; readonly message: string }[] {
  const read = reader(config, {});
  const problems: { name: keyof typeof CONFIG_KEYS; message: string }[] = [];
  const domain = read("domain");
  if (domain !== undefined) {
    const parsed = originOf(domain, CONFIG_KEYS.domain.key);
    if ("message" in parsed) problems.push({ name: "domain", message: parsed.message });
  }
  for (const name of ["requestTimeout", "operationTimeout"] as const) {
    try {
      readSeconds(name, read(name), 0);
    } catch (error) {
      problems.push({ name, message: (error as Error).message });
    }
  }
  for (const { setting, message } of stackSettingProblems(stackValues(config, {}))) {
    if (setting !== undefined) problems.push({ name: setting, message });
  }
  return problems;
}

/**
 * The problems of the credentials and the budget that the stack config and the environment give
 * together (a setting of the stack config hides its environment variable), one per setting: what
 * `check` judges of them before any operation, as {@link stackSettingFailuresOnce} says.
 */
function stackSettingProblems(values: ConnectionValues): ConnectionProblem[] {
  return [
    ...givenCredentialProblems(values, STACK_CONFIG_NAMING),
    ...budgetProblems(values, STACK_CONFIG_NAMING),
  ];
}

/**
 * What the environment adds to the problems of the settings `config` gives (a
 * `TENANT_RATE_LIMIT_RESERVE` out of range, a `TENANT_API_TOKEN` beside the client secret `config`
 * gives), each naming its setting: the plugin's `CheckConfig` reports them beside
 * {@link givenSettingProblems}, so that a plugin process reports its settings in one place.
 */
export function environmentSettingProblems(
  config: ConfigSource,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  const given = new Set(stackSettingProblems(stackValues(config, {})).map((p) => p.message));
  return stackSettingProblems(stackValues(config, env))
    .map(({ message }) => message)
    .filter((message) => !given.has(message));
}

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
