/**
 * The command line of `pulumi-tenant generate`, parsed with Node's own `util.parseArgs` into
 * {@link GenerateOptions}, with the options of every command that reads a tenant
 * (`command/options.ts`). The environment is read later, by the package's settings.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { closest } from "fastest-levenshtein";
import { DEFAULT_FIELDS } from "../clients/catalogue.js";
import type { ClientQuery } from "../clients/reads.js";
import { commandLineProblem } from "../command/line.js";
import {
  CREDENTIAL_OPTIONS,
  CREDENTIAL_USAGE,
  credentialConfig,
  PACING_USAGE,
  QUIET_USAGE,
} from "../command/options.js";
import type { ConfigSource } from "../config.js";
import { docAddress } from "../docs-address.js";
import { GenerateUsageError } from "../errors.js";
import { APP_TYPES, CLIENT_SETTINGS_FIELDS, type ClientSettingsField } from "../schema/index.js";
import { PROJECT_NAME } from "./project.js";

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

/** `a, b,,c` → `["a", "b", "c"]`. */
function list(text: string): string[] {
  return text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/**
 * Parses `--fields`: camelCase names separated by commas (blanks and repeats ignored), returned in
 * the schema's order so that the program does not depend on how the list was typed.
 *
 * @throws {GenerateUsageError} naming each unknown name with the nearest field, or when the list
 *   is empty or names `clientId` (always declared).
 * @internal
 */
export function parseFields(text: string): ClientSettingsField[] {
  const names = text
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  const known = new Set<string>(CLIENT_SETTINGS_FIELDS);
  const problems: string[] = [];
  for (const name of names) {
    if (name === "clientId") {
      problems.push('"clientId" is always declared; leave it out of --fields');
    } else if (!known.has(name)) {
      problems.push(
        `"${name}" is not a client field; did you mean "${closest(name, [...CLIENT_SETTINGS_FIELDS])}"?`,
      );
    }
  }
  if (problems.length > 0) throw new GenerateUsageError(`--fields: ${problems.join("; ")}`);
  if (names.length === 0) throw new GenerateUsageError("--fields: name at least one field");
  return inSchemaOrder(names as ClientSettingsField[]);
}

/** `fields` deduplicated, in the schema's order. */
function inSchemaOrder(fields: readonly ClientSettingsField[]): ClientSettingsField[] {
  const wanted = new Set(fields);
  return CLIENT_SETTINGS_FIELDS.filter((field) => wanted.has(field));
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
