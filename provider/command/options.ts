/**
 * The options every command that reads a tenant takes (`generate`, `audit`, `snapshot`): the
 * connection's credentials, the pacing flags and `--quiet`, their usage lines, their `parseArgs`
 * options, and the flags given as stack config keys. The environment is read later, by the
 * package's settings; a private key file is read here, as the value of its flag.
 *
 * @module
 */

import { readFileSync } from "node:fs";
import { CLIENT_ASSERTION_ALGS, DEFAULT_CLIENT_ASSERTION_ALG } from "../api/client-assertion.js";
import type { ConfigSource } from "../config.js";
import { CommandUsageError } from "../errors.js";

/**
 * The usage lines of the pacing flags, which every command that reads a tenant takes
 * (docs/guides/sharing-the-rate-limit.md).
 */
export const PACING_USAGE = `  --rate-limit-reserve SHARE
                          the share of the tenant's rate limit left to its other callers, 0 to
                            below 1 (default: TENANT_RATE_LIMIT_RESERVE, else 0.25)
  --max-requests-per-second N
                          a ceiling on this command's own rate (default:
                            TENANT_MAX_REQUESTS_PER_SECOND, else none)`;

/** The usage line of `--quiet`, which every command that reads a tenant takes. */
export const QUIET_USAGE = `  -q, --quiet             no progress (default: a bar on a terminal, else a line every 5 s)`;

/**
 * The usage lines of the connection's flags, which every command that reads a tenant takes
 * (docs/installation-configuration.md, "Configuration"): one way of authenticating, a private key
 * first.
 */
export const CREDENTIAL_USAGE = `  --domain DOMAIN         the tenant (default: TENANT_DOMAIN)
  --client-id ID          the client to log in as (default: TENANT_CLIENT_ID), with one of:
  --client-assertion-private-key-file FILE
                          its PEM private key, to log in by private key JWT (default: the key in
                            TENANT_CLIENT_ASSERTION_PRIVATE_KEY)
  --client-assertion-signing-alg ALG
                          ${CLIENT_ASSERTION_ALGS.join(", ")} (default:
                            TENANT_CLIENT_ASSERTION_SIGNING_ALG, else ${DEFAULT_CLIENT_ASSERTION_ALG})
  --client-secret SECRET  its secret (default: TENANT_CLIENT_SECRET; prefer the environment
                            variable to a flag for the secret)
  --api-token TOKEN       a management API token instead (default: TENANT_API_TOKEN)
  --audience AUDIENCE     token audience (default: TENANT_AUDIENCE, else https://DOMAIN/api/v2/)`;

/** The flags that give the connection, shared by `generate` and `snapshot`, and their config keys. */
const CREDENTIAL_FLAGS = {
  domain: "tenant:domain",
  "client-id": "tenant:clientId",
  "client-secret": "tenant:clientSecret",
  "client-assertion-private-key-file": "tenant:clientAssertionPrivateKey",
  "client-assertion-signing-alg": "tenant:clientAssertionSigningAlg",
  "api-token": "tenant:apiToken",
  audience: "tenant:audience",
  "rate-limit-reserve": "tenant:rateLimitReserve",
  "max-requests-per-second": "tenant:maxRequestsPerSecond",
} as const;

/** `parseArgs` options of the credential flags, for every command that reads a tenant. */
export const CREDENTIAL_OPTIONS = Object.fromEntries(
  Object.keys(CREDENTIAL_FLAGS).map((flag) => [flag, { type: "string" }]),
) as Record<keyof typeof CREDENTIAL_FLAGS, { type: "string" }>;

/** The flag that names a file whose content is the setting, not the setting itself. */
const KEY_FILE_FLAG = "client-assertion-private-key-file";

/**
 * The credential flags given, as stack config keys (`--domain` → `tenant:domain`); the private
 * key is read from the file `--client-assertion-private-key-file` names, so that it is never on
 * a command line.
 *
 * @throws {CommandUsageError} when the key file cannot be read, naming the flag and the file (the
 *   key never: nothing of it is read into a message).
 */
export function credentialConfig(
  values: Partial<Record<keyof typeof CREDENTIAL_FLAGS, string | boolean | undefined>>,
): ConfigSource {
  const flags = new Map<string, string>();
  for (const [flag, key] of Object.entries(CREDENTIAL_FLAGS)) {
    const value = values[flag as keyof typeof CREDENTIAL_FLAGS];
    if (typeof value !== "string") continue;
    flags.set(key, flag === KEY_FILE_FLAG ? keyFile(value) : value);
  }
  return { get: (key) => flags.get(key) };
}

/** The text of the key file `file`. */
function keyFile(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "an error";
    throw new CommandUsageError(`--${KEY_FILE_FLAG} ${file}: cannot read the file (${code})`);
  }
}
