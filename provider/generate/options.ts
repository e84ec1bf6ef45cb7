/**
 * The command line of `pulumi-tenant generate`, parsed with Node's own `util.parseArgs` into
 * {@link GenerateOptions}. The environment is read later, by the package's settings; a private key
 * file is read here, as the value of its flag.
 *
 * @module
 */

import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { CLIENT_ASSERTION_ALGS, DEFAULT_CLIENT_ASSERTION_ALG } from "../api/client-assertion.js";
import { commandLineProblem } from "../command-line.js";
import type { ConfigSource } from "../config.js";
import { docAddress } from "../docs-address.js";
import { CommandUsageError, GenerateUsageError } from "../errors.js";
import { APP_TYPES, type ClientSettingsField } from "../schema/index.js";
import { DEFAULT_FIELDS, parseFields } from "./fields.js";
import { PROJECT_NAME } from "./project.js";
import type { ClientQuery } from "./reads.js";

/** What the command was asked to do. */
export interface GenerateOptions {
  /** Where to write the project. */
  readonly out: string;
  readonly query: ClientQuery;
  /** The fields to declare, in the schema's order. */
  readonly fields: readonly ClientSettingsField[];
  readonly includeGlobal: boolean;
  readonly includeSelf: boolean;
  /** The Pulumi project name. */
  readonly projectName: string;
  /** Overwrite files of the output folder that differ. */
  readonly force: boolean;
  /** Also write `import.json`, for `pulumi import --file` with the provider plugin. */
  readonly importFile: boolean;
  /** `--quiet`: no progress. */
  readonly quiet: boolean;
  /** Credentials and domain given as flags, as stack config keys (`tenant:domain`, ...). */
  readonly config: ConfigSource;
}

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

/** `--help`. */
export const USAGE = `Usage: pulumi-tenant generate --out DIR [options]

Reads the live tenant and writes a Pulumi TypeScript project (Pulumi.yaml, package.json, index.ts)
that declares it as it is: one ClientSettings per client, one PushProviderSelection.

Options:
  --out DIR               folder to write the project to (created if missing)
  --clients ID,...        only these clients, by id
  --app-type TYPE,...     only clients of these types (${APP_TYPES.join(", ")})
  --fields NAME,...       the fields to declare, camelCase (default: ${DEFAULT_FIELDS.join(", ")})
  --include-global        also adopt the global client
  --include-self          also adopt the client whose credentials are used
  --name NAME             Pulumi project name (default: tenant-settings)
  --force                 overwrite files in DIR that differ from the generated ones
  --import-file           also write DIR/import.json, for \`pulumi import --file\` with the
                            provider plugin, in a program of any language:
                            ${docAddress("docs/guides/languages.md")}
${CREDENTIAL_USAGE}
${PACING_USAGE}
${QUIET_USAGE}
  -h, --help              this text

Scopes needed: read:clients, read:guardian_factors. Progress and notes go to stderr.
`;

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

/** `a, b,,c` → `["a", "b", "c"]`. */
function list(text: string): string[] {
  return text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/**
 * Parses the arguments after `generate`. Returns `"help"` for `-h`/`--help`.
 *
 * @throws {GenerateUsageError} for an unknown flag, a missing value, `--out` missing, an unknown
 *   app type or field name, `--clients` with `--app-type`, or a project name Pulumi refuses.
 */
export function parseGenerateArgs(args: readonly string[]): GenerateOptions | "help" {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    throw new GenerateUsageError(commandLineProblem(error, USAGE));
  }
  const { values } = parsed;
  if (values.help) return "help";
  if (values.out === undefined || values.out.trim() === "") {
    throw new GenerateUsageError("--out DIR is required: the folder to write the project to");
  }
  if (values.clients !== undefined && values["app-type"] !== undefined) {
    throw new GenerateUsageError("--clients and --app-type cannot be combined");
  }
  let query: ClientQuery = { kind: "all" };
  if (values.clients !== undefined) {
    const ids = list(values.clients);
    if (ids.length === 0) throw new GenerateUsageError("--clients: name at least one client id");
    query = { kind: "ids", ids };
  } else if (values["app-type"] !== undefined) {
    const appTypes = list(values["app-type"]);
    const unknown = appTypes.filter((type) => !(APP_TYPES as readonly string[]).includes(type));
    if (appTypes.length === 0 || unknown.length > 0) {
      throw new GenerateUsageError(
        `--app-type: ${unknown.length > 0 ? `unknown ${unknown.map((t) => `"${t}"`).join(", ")}; ` : ""}` +
          `accepted: ${APP_TYPES.join(", ")}`,
      );
    }
    query = { kind: "all", appTypes };
  }
  const projectName = values.name ?? "tenant-settings";
  if (!PROJECT_NAME.test(projectName)) {
    throw new GenerateUsageError(
      `--name "${projectName}": a Pulumi project name is letters, digits, "-", "_" and "."`,
    );
  }
  return {
    out: values.out,
    query,
    fields: values.fields === undefined ? DEFAULT_FIELDS : parseFields(values.fields),
    includeGlobal: values["include-global"] === true,
    includeSelf: values["include-self"] === true,
    projectName,
    force: values.force === true,
    importFile: values["import-file"] === true,
    quiet: values.quiet === true,
    config: credentialConfig(values),
  };
}

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

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: false,
    options: {
      out: { type: "string" },
      clients: { type: "string" },
      "app-type": { type: "string" },
      fields: { type: "string" },
      "include-global": { type: "boolean" },
      "include-self": { type: "boolean" },
      name: { type: "string" },
      force: { type: "boolean" },
      "import-file": { type: "boolean" },
      quiet: { type: "boolean", short: "q" },
      ...CREDENTIAL_OPTIONS,
      help: { type: "boolean", short: "h" },
    },
  });
}
