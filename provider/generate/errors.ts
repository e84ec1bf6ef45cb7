/**
 * The errors of `pulumi-tenant generate` itself (the API's own failures are the package's
 * `TenantError`s). Each has a stable `code` and the exit status the command ends with; the
 * command prints the message alone, without a stack trace, because each one is an expected
 * outcome with its remedy in the message.
 *
 * @module
 */

/** Stable codes of {@link GenerateError}. */
export const GenerateErrorCodes = {
  usage: "ERR_GENERATE_USAGE",
  unknownClient: "ERR_GENERATE_UNKNOWN_CLIENT",
  output: "ERR_GENERATE_OUTPUT",
} as const;

/** One of {@link GenerateErrorCodes}. */
export type GenerateErrorCode = (typeof GenerateErrorCodes)[keyof typeof GenerateErrorCodes];

/** Base class: an expected failure of the command, reported by its message alone. */
export abstract class GenerateError extends Error {
  /** Stable machine-readable code. */
  abstract readonly code: GenerateErrorCode;
  /** The process exit status for this failure. */
  abstract readonly exitCode: number;
}

/** The command line is wrong (unknown flag, unknown field name, bad value). Exit status 2. */
export class GenerateUsageError extends GenerateError {
  override readonly name = "GenerateUsageError";
  readonly code = GenerateErrorCodes.usage;
  readonly exitCode = 2;
}

/** A client named with `--clients` does not exist in the tenant (its GET answered 404). */
export class UnknownClientError extends GenerateError {
  override readonly name = "UnknownClientError";
  readonly code = GenerateErrorCodes.unknownClient;
  readonly exitCode = 1;
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

/** The project cannot be written (a file exists and differs without `--force`, or I/O fails). */
export class GenerateOutputError extends GenerateError {
  override readonly name = "GenerateOutputError";
  readonly code = GenerateErrorCodes.output;
  readonly exitCode = 1;
}
