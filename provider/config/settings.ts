/**
 * The package's settings and where they come from: the stack config the engine hands to the
 * provider's `configure`, the `TENANT_*` environment and a command's flags ({@link CONFIG_KEYS},
 * one place for the docs and every message), and what the API client needs to reach one tenant
 * ({@link TenantSettings}).
 *
 * @module
 */

import { STACK_KEYS } from "../api/settings.js";

export type { TenantSettings, Timeouts } from "../api/settings.js";

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
