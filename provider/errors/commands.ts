/**
 * The errors of the `pulumi-tenant` commands (`generate`, `snapshot`, `audit`, `local-tenant`,
 * `plugin`) and of the plugin's release build, and the exit status each error gives a command
 * (docs/guides/commands.md, "Exit statuses").
 *
 * @module
 */

import { LocalTenantError, SeedError } from "./local-api.js";
import { ErrorCodes, errorKind, type TenantError } from "./root.js";
import {
  TenantApiError,
  TenantAuthError,
  TenantConfigError,
  TenantNetworkError,
  TenantTimeoutError,
} from "./tenant.js";

/**
 * The command line of `pulumi-tenant generate` is wrong (unknown flag, unknown field name, bad
 * value). The command exits with 2 ({@link exitStatusOf}).
 */
export class GenerateUsageError extends errorKind("GenerateUsageError", ErrorCodes.generateUsage) {}

/** Clients named with `generate --clients` that the tenant does not have (their GET answered 404). */
export class UnknownClientError extends errorKind("UnknownClientError", ErrorCodes.unknownClient) {
  /** The ids the tenant does not know, in the order given. */
  readonly clientIds: readonly string[];

  constructor(clientIds: readonly string[]) {
    super(
      `the tenant has no client with the ${clientIds.length === 1 ? "id" : "ids"} ` +
        `${clientIds.map((id) => JSON.stringify(id)).join(", ")} ` +
        "(GET /clients/{id} answered 404); check the ids given to --clients",
    );
    this.clientIds = clientIds;
  }
}

/** `generate` cannot write its project: a file exists and differs without `--force`, or I/O fails. */
export class GenerateOutputError extends errorKind(
  "GenerateOutputError",
  ErrorCodes.generateOutput,
) {}

/**
 * The command line of `pulumi-tenant local-tenant` or `pulumi-tenant snapshot` is wrong (unknown
 * flag, missing or bad value), or an option of `startLocalTenant` is. Nothing was started or
 * written; the command exits with 2 ({@link exitStatusOf}).
 *
 * @example `--port must be an integer from 0 to 65535, got "http"`
 */
export class CommandUsageError extends errorKind("CommandUsageError", ErrorCodes.commandUsage) {}

/** `snapshot` cannot write its seed: the file exists without `--force`, or I/O fails. */
export class SnapshotOutputError extends errorKind(
  "SnapshotOutputError",
  ErrorCodes.snapshotOutput,
) {}

/**
 * The plugin's release build cannot go on (docs/design/plugin.md, "The self-contained executables"): a
 * Node.js base that `npm ci` did not fetch, a tool it needs missing, an executable it cannot
 * sign, a `PULUMI_TENANT_PLUGIN_DOWNLOAD_URL` that is not a URL Pulumi can download from. Nothing
 * is left half-written in the output folder.
 */
export class PluginBuildError extends errorKind("PluginBuildError", ErrorCodes.pluginBuild) {}

/**
 * The exit statuses of every `pulumi-tenant` command, one per kind of outcome, the same for all
 * of them (docs/guides/commands.md, "Exit statuses"): a pipeline tells a wrong invocation from an
 * unreachable tenant from a tenant that breaks a rule without reading the message.
 */
export const COMMAND_EXIT = {
  /** The command did its work. */
  done: 0,
  /** `audit` only: the tenant breaks a rule at the level that fails the audit. */
  findings: 1,
  /**
   * What the user gave cannot be used, and nothing was read: the command line, an input file
   * (seed, policy config, private key), the settings or credentials, the output (`--out` exists,
   * is not writable, is a file where a folder is wanted), the local tenant's port.
   */
  usage: 2,
  /** The tenant could not be read: unreachable, credentials refused, an API error, a timeout. */
  unreadable: 3,
  /** Anything else: the plugin's build lacks a tool, or a failure this package did not expect. */
  failed: 4,
} as const;

/** The kinds of error that are a usage failure ({@link COMMAND_EXIT}`.usage`). */
const USAGE_ERRORS = [
  GenerateUsageError,
  CommandUsageError,
  SeedError,
  TenantConfigError,
  GenerateOutputError,
  SnapshotOutputError,
  UnknownClientError,
  LocalTenantError,
];

/** The kinds of error of a tenant that could not be read ({@link COMMAND_EXIT}`.unreadable`). */
const UNREADABLE_ERRORS = [TenantApiError, TenantAuthError, TenantNetworkError, TenantTimeoutError];

/** The exit status of a command that failed with `error` ({@link COMMAND_EXIT}). */
export function exitStatusOf(error: TenantError): number {
  if (USAGE_ERRORS.some((kind) => error instanceof kind)) return COMMAND_EXIT.usage;
  if (UNREADABLE_ERRORS.some((kind) => error instanceof kind)) return COMMAND_EXIT.unreadable;
  return COMMAND_EXIT.failed;
}
