/**
 * The command line of `pulumi-tenant audit`, parsed with Node's own `util.parseArgs` into
 * {@link AuditOptions}, with the credential flags of `generate` and `snapshot`. Pure: the
 * environment is read later, by the package's settings, and only for a live audit.
 *
 * @module
 */

import { parseArgs } from "node:util";
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
import { CommandUsageError } from "../errors.js";
import type { FindingLevel } from "./policy-config.js";

/** The output formats, the default first. */
const FORMATS = ["text", "json", "sarif"] as const;

/** One of {@link FORMATS}. */
type Format = (typeof FORMATS)[number];

/** The levels `--fail-on` takes, the default first. */
const FAIL_ON: readonly FindingLevel[] = ["mandatory", "advisory"];

/** What the command was asked to do. */
export interface AuditOptions {
  /** A seed file to judge instead of the live tenant. */
  readonly seed: string | undefined;
  readonly format: Format;
  /** The file to write the report to; stdout when undefined. */
  readonly out: string | undefined;
  /** A policy config file, as `pulumi preview --policy-pack-config` takes it. */
  readonly config: string | undefined;
  /** The stack the rules' `allowedStacks` are matched against. */
  readonly stack: string | undefined;
  /** The lowest level of finding that fails the audit. */
  readonly failOn: FindingLevel;
  /** Credentials and domain given as flags, as stack config keys (`tenant:domain`, ...). */
  readonly connection: ConfigSource;
  /** `--quiet`: no progress. */
  readonly quiet: boolean;
}

/** `--help`. */
export const USAGE = `Usage: pulumi-tenant audit [options]

Judges every client of the tenant by the policy pack's rules, live with read-only credentials or
from a seed that pulumi-tenant snapshot wrote, and reports the findings. Exits 0 with no mandatory
finding, 1 with one, 2 for a wrong command line or input file, 3 when the tenant cannot be read.
The rules and the reports: ${docAddress("docs/design/policy.md")}

Options:
  --seed FILE             judge this seed (pulumi-tenant snapshot output) instead; no network
  --format FORMAT         ${FORMATS.join(", ")} (default: text)
  --out FILE              write the report to FILE (replaced if it exists) instead of stdout
  --config FILE           the rules' configuration: the JSON file of --policy-pack-config
  --stack NAME            the stack the rules' allowedStacks are matched against (default: none)
  --fail-on LEVEL         ${FAIL_ON.join(", ")}: also fail on advisory findings (default: mandatory)
${CREDENTIAL_USAGE}
${PACING_USAGE}
${QUIET_USAGE}
  -h, --help              this text

Scope needed: read:clients. Progress goes to stderr.
`;

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: false,
    options: {
      seed: { type: "string" },
      format: { type: "string" },
      out: { type: "string" },
      config: { type: "string" },
      stack: { type: "string" },
      "fail-on": { type: "string" },
      quiet: { type: "boolean", short: "q" },
      ...CREDENTIAL_OPTIONS,
      help: { type: "boolean", short: "h" },
    },
  });
}

/** One of `accepted`, or the usage error naming the option and what it accepts. */
function oneOf<T extends string>(option: string, value: string, accepted: readonly T[]): T {
  if ((accepted as readonly string[]).includes(value)) return value as T;
  throw new CommandUsageError(
    `--${option} ${JSON.stringify(value)}: accepted: ${accepted.join(", ")}`,
  );
}

/** A file option's value, or the usage error for an empty one. */
function file(option: string, value: string | undefined): string | undefined {
  if (value !== undefined && value.trim() === "") {
    throw new CommandUsageError(`--${option} needs a file name`);
  }
  return value;
}

/**
 * Parses the arguments after `audit`. Returns `"help"` for `-h`/`--help`.
 *
 * @throws {CommandUsageError} for an unknown flag, a missing value, a format or level it does not
 *   know, an empty file name, or `--seed` with a credential flag (a seed is judged with no
 *   network, so a credential would be ignored).
 */
export function parseAuditArgs(args: readonly string[]): AuditOptions | "help" {
  let values: ReturnType<typeof parse>["values"];
  try {
    ({ values } = parse(args));
  } catch (error) {
    throw new CommandUsageError(commandLineProblem(error, USAGE));
  }
  if (values.help === true) return "help";
  const seed = file("seed", values.seed);
  const credentialFlags = Object.keys(CREDENTIAL_OPTIONS).filter(
    (flag) => values[flag as keyof typeof CREDENTIAL_OPTIONS] !== undefined,
  );
  if (seed !== undefined && credentialFlags.length > 0) {
    throw new CommandUsageError(
      `--seed cannot be combined with --${credentialFlags[0]}: a seed is judged with no network`,
    );
  }
  if (values.stack !== undefined && values.stack.trim() === "") {
    throw new CommandUsageError("--stack needs a stack name");
  }
  return {
    seed,
    format: values.format === undefined ? "text" : oneOf("format", values.format, FORMATS),
    out: file("out", values.out),
    config: file("config", values.config),
    stack: values.stack,
    failOn:
      values["fail-on"] === undefined ? "mandatory" : oneOf("fail-on", values["fail-on"], FAIL_ON),
    connection: credentialConfig(values),
    quiet: values.quiet === true,
  };
}
