/**
 * The error classes of pulumi-tenant (the resources', the commands' and the local tenant's), one per kind
 * of failure, each with a stable `name` and
 * `code` that programs and tests can match on (messages may be reworded, codes may not).
 *
 * Every message starts with the resource it concerns, in the form `ClientSettings "web": ...`,
 * because the dynamic-provider host reports only the message: without the resource name a user of
 * a 200-resource stack cannot tell which one failed. The name is added in one place,
 * {@link TenantError.concerning}.
 *
 * No error built here may carry a credential. {@link TenantApiError} deliberately keeps only the
 * method, path, status and the platform's answer; the axios error it is built from (which holds
 * the request headers, so the bearer token) is never attached as `cause`.
 *
 * @module
 */

/** Stable codes of the error classes below. */
export const ErrorCodes = {
  config: "ERR_TENANT_CONFIG",
  api: "ERR_TENANT_API",
  auth: "ERR_TENANT_AUTH",
  network: "ERR_TENANT_NETWORK",
  timeout: "ERR_TENANT_TIMEOUT",
  answer: "ERR_TENANT_ANSWER",
  validation: "ERR_TENANT_VALIDATION",
  immutable: "ERR_TENANT_IMMUTABLE",
  putBack: "ERR_TENANT_PUT_BACK",
  notHeld: "ERR_TENANT_WRITE_NOT_HELD",
  install: "ERR_TENANT_INSTALL",
  import: "ERR_TENANT_IMPORT",
  generateUsage: "ERR_GENERATE_USAGE",
  unknownClient: "ERR_GENERATE_UNKNOWN_CLIENT",
  generateOutput: "ERR_GENERATE_OUTPUT",
  commandUsage: "ERR_COMMAND_USAGE",
  seed: "ERR_LOCAL_TENANT_SEED",
  localTenant: "ERR_LOCAL_TENANT",
  snapshotOutput: "ERR_SNAPSHOT_OUTPUT",
  pluginBuild: "ERR_PLUGIN_BUILD",
} as const;

/** One of {@link ErrorCodes}. */
export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

/**
 * The base class of every error this package throws. Catch this to catch them all; match on
 * `code` to tell them apart.
 *
 * The resource an error concerns is put in front of its message in one place,
 * {@link TenantError.concerning}, which the operation runner calls for every error of an operation;
 * throw sites state only what went wrong. The error keeps its identity and its stack.
 */
export abstract class TenantError extends Error {
  /** Stable machine-readable code, one of {@link ErrorCodes}. */
  abstract readonly code: ErrorCode;
  // Private, not an own property: errors compare (and print) by their message and public fields.
  #resource: string | undefined;

  /**
   * `cause` is another error of this package that this one stands for (never an axios error: see
   * above). The resource is not a constructor argument: {@link TenantError.concerning} adds it.
   */
  constructor(message: string, options: { cause?: TenantError | undefined } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }

  /** The resource this error concerns (`ClientSettings "web"`), once it is known. */
  get resource(): string | undefined {
    return this.#resource;
  }

  /**
   * Names the resource this error concerns, once: the message becomes `<resource>: <message>`
   * (and so does the first line of the stack). An error that already names one is left as it is,
   * so an error passing through several layers is named by the innermost that knew the resource.
   */
  concerning(resource: string): this {
    if (this.#resource !== undefined) return this;
    const before = `${this.name}: ${this.message}`;
    this.#resource = resource;
    this.message = `${resource}: ${this.message}`;
    if (this.stack?.startsWith(before)) {
      this.stack = `${this.name}: ${this.message}${this.stack.slice(before.length)}`;
    }
    return this;
  }
}

/**
 * One kind of {@link TenantError}: its `name` and `code`. Each exported class below extends one of
 * these, so that a kind is declared in one line and `instanceof` works per kind.
 */
function errorKind<N extends string, C extends ErrorCode>(name: N, code: C) {
  abstract class Kind extends TenantError {
    override readonly name: N = name;
    readonly code: C = code;
  }
  return Kind;
}

/**
 * The provider's settings are missing or unusable (no domain, no credentials, `http://` to a
 * non-loopback host). Raised before any request is sent.
 */
export class TenantConfigError extends errorKind("TenantConfigError", ErrorCodes.config) {}

/** What the tenant API answered, as far as it is safe to keep. */
export interface ApiFailure {
  /** HTTP method of the failed request. */
  readonly method: string;
  /** Path relative to the API base, e.g. `/clients/abc`. Never includes a query string. */
  readonly path: string;
  /** HTTP status of the final answer (after retries). */
  readonly status: number;
  /** The platform's `errorCode`, when its error body had one. */
  readonly errorCode?: string | undefined;
  /** The platform's `message`, when its error body had one. */
  readonly apiMessage?: string | undefined;
}

/**
 * The tenant API answered with an error status that was not retried (4xx) or kept failing after
 * the retries (429, 5xx). The message names the resource, the request, the status, the platform's
 * `errorCode` and message; for 403 it says which scope the credentials lack.
 *
 * @example `ClientSettings "web": PATCH /clients/abc failed with 403 insufficient_scope: needs update:client_keys`
 */
export class TenantApiError
  extends errorKind("TenantApiError", ErrorCodes.api)
  implements ApiFailure
{
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly errorCode: string | undefined;
  readonly apiMessage: string | undefined;
  /** For a 403: the scopes the platform said it expected (any one of them would do). */
  readonly missingScopes: readonly string[];

  constructor(failure: ApiFailure) {
    const missingScopes = failure.status === 403 ? parseExpectedScopes(failure.apiMessage) : [];
    const detail =
      missingScopes.length > 0
        ? `needs ${missingScopes.join(" or ")}`
        : (failure.apiMessage ?? "no error message in the answer");
    const code = failure.errorCode ? `${failure.errorCode}: ` : "";
    super(`${failure.method} ${failure.path} failed with ${failure.status} ${code}${detail}`);
    this.method = failure.method;
    this.path = failure.path;
    this.status = failure.status;
    this.errorCode = failure.errorCode;
    this.apiMessage = failure.apiMessage;
    this.missingScopes = missingScopes;
  }
}

/**
 * The platform words a missing scope as `Insufficient scope, expected any of: a:b,c:d`. Anything
 * else yields no scopes, and the message falls back to the platform's own text.
 */
function parseExpectedScopes(message: string | undefined): string[] {
  const match = message?.match(/expected any of:\s*(.+)$/i);
  if (!match?.[1]) return [];
  return match[1]
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * Getting an access token failed: the token endpoint refused the client credentials, or kept
 * failing. The client secret is never part of the message.
 */
export class TenantAuthError extends errorKind("TenantAuthError", ErrorCodes.auth) {}

/**
 * The request never got an HTTP answer (connection refused or reset, DNS failure, TLS failure)
 * even after the retries. `cause` holds the low-level error code (e.g. `ECONNREFUSED`), not the
 * request.
 */
export class TenantNetworkError extends errorKind("TenantNetworkError", ErrorCodes.network) {}

/**
 * A request exceeded its timeout and the retries ran out, or the whole operation exceeded its
 * deadline. Nothing is ever left waiting without bound.
 */
export class TenantTimeoutError extends errorKind("TenantTimeoutError", ErrorCodes.timeout) {}

/**
 * The tenant answered a request with a success status but a body that is not what the request
 * asks for (a list page without `total`, or whose `clients` is not an array), as a tenant we did
 * not write or a proxy in front of it may (docs/design/client-reads.md, "Pages that are not pages").
 *
 * @example `GET /clients (page 1) answered 200 without a finite numeric \`total\``
 */
export class TenantAnswerError extends errorKind("TenantAnswerError", ErrorCodes.answer) {
  /**
   * @param request - the request as errors name it: method, path and which page (`GET /clients (page 1)`).
   * @param missing - what the body lacks, worded to follow "without" (`a \`clients\` array`).
   */
  constructor(request: string, status: number, missing: string) {
    super(`${request} answered ${status} without ${missing}`);
  }
}

/** Why inputs that passed `check` cannot be sent. */
export interface InvalidInput {
  /** What is wrong: a declared field (`organizationRequireBehavior`), or `the body of PATCH /clients/abc`. */
  readonly subject: string;
  /** Why, as `check` and the local tenant API word the rule where they share it. */
  readonly reason: string;
  /** What the user can do, and that nothing was sent. */
  readonly remedy: string;
}

/**
 * Inputs that passed `check` but cannot be sent: a rule that depends on the live tenant (for
 * example `organizationRequireBehavior: "post_login_prompt"` on a client that is not OIDC
 * conformant), or a body that cannot be encoded. Raised before anything is sent.
 *
 * @example `ClientSettings "web": organizationRequireBehavior "post_login_prompt" requires oidcConformant to be true, and client abc is not OIDC conformant; declare oidcConformant: true. Nothing was sent.`
 */
export class TenantValidationError
  extends errorKind("TenantValidationError", ErrorCodes.validation)
  implements InvalidInput
{
  readonly subject: string;
  readonly reason: string;
  readonly remedy: string;

  constructor(input: InvalidInput) {
    super(`${input.subject} ${input.reason}; ${input.remedy}`);
    this.subject = input.subject;
    this.reason = input.reason;
    this.remedy = input.remedy;
  }
}

/** A change of a field that the platform fixes when a client is created. */
export interface FixedFieldChange {
  /** The field, as the user spells it (`thirdPartySecurityMode`). */
  readonly field: string;
  readonly clientId: string;
  /** The value the client has (null: none), as the API spells it. */
  readonly live: unknown;
  /** The value the program declares. */
  readonly declared: unknown;
}

/**
 * A change to a field that the platform fixes at creation (`thirdPartySecurityMode`). Raised by
 * diff (so the preview fails) and by create (before any PATCH).
 *
 * @example `ClientSettings "partner": thirdPartySecurityMode of client abc cannot change from "strict" to "permissive": the platform fixes it when the client is created. Declare "strict" or remove the property; nothing was sent.`
 */
export class ImmutableFieldError
  extends errorKind("ImmutableFieldError", ErrorCodes.immutable)
  implements FixedFieldChange
{
  readonly field: string;
  readonly clientId: string;
  readonly live: unknown;
  readonly declared: unknown;

  constructor(change: FixedFieldChange) {
    const subject = `${change.field} of client ${change.clientId}`;
    const why = "the platform fixes it when the client is created";
    const declared = JSON.stringify(change.declared);
    const live = JSON.stringify(change.live);
    super(
      change.live === null
        ? `${subject} cannot be set to ${declared}: the client has none and ${why}. ` +
            "Remove the property; nothing was sent."
        : `${subject} cannot change from ${live} to ${declared}: ${why}. ` +
            `Declare ${live} or remove the property; nothing was sent.`,
    );
    this.field = change.field;
    this.clientId = change.clientId;
    this.live = change.live;
    this.declared = change.declared;
  }
}

/** One path a put-back sends, as a {@link PutBackRefusedError} names it. */
export interface PutBackPath {
  /** The path, the field as the user spells it and the keys inside as the wire does. */
  readonly path: string;
  /** The prior as shown: JSON, shortened, or a note that it is sensitive or absent. */
  readonly prior: string;
}

/**
 * The tenant refused a PATCH that puts paths the program no longer sets back to their priors
 * (a removal, or delete): the message names each path and its prior, then the tenant's answer,
 * so that the failure is never read as one of a field the program declares (docs/design/decisions.md,
 * "What a resource owns").
 *
 * @example `ClientSettings "web": putting description back to its prior ("dd…", 200 characters) was refused: PATCH /clients/abc failed with 400 invalid_body: ...`
 */
export class PutBackRefusedError extends errorKind("PutBackRefusedError", ErrorCodes.putBack) {
  readonly paths: readonly PutBackPath[];

  constructor(paths: readonly PutBackPath[], cause: TenantApiError) {
    const list = paths.map(({ path, prior }) => `${path} back to its prior (${prior})`).join(", ");
    const one = paths.length === 1;
    // The tenant's answer without the resource the request already named: this error names it.
    const answer =
      cause.resource === undefined ? cause.message : cause.message.slice(cause.resource.length + 2);
    super(
      `putting ${list} was refused: ${answer}. The program does not set ${one ? "it" : "them"}: ` +
        `${one ? "it goes" : "they go"} back to what the client held before the resource managed ` +
        `${one ? "it" : "them"}. To let the resource go without putting ${one ? "it" : "them"} back, ` +
        "remove it from the state (pulumi state delete).",
      { cause },
    );
    this.paths = paths;
  }
}

/** One path a write set or put back that the tenant's answer holds otherwise. */
export interface PathNotHeld {
  /** The path in the user's spelling (`mobile.ios`). */
  readonly path: string;
  /** What was sent there, shown as JSON ("none" for a removal, never a sensitive value). */
  readonly sent: string;
  /** What the answer holds there, shown the same way. */
  readonly held: string;
}

/**
 * A PATCH the tenant accepted whose answer (the whole client) holds something else at a path it
 * set or put back: the platform kept a member it was told to remove, or took another value
 * (docs/design/decisions.md, "Every write checked by its answer"). The operation fails so that
 * the state does not call the resource done; the next preview shows the remaining difference.
 *
 * @example `ClientSettings "web": client abc does not hold what was sent: mobile.ios sent none, the tenant holds {"team_id":"T1"}. ...`
 */
export class WriteNotHeldError extends errorKind("WriteNotHeldError", ErrorCodes.notHeld) {
  readonly clientId: string;
  readonly paths: readonly PathNotHeld[];

  constructor(clientId: string, paths: readonly PathNotHeld[]) {
    const list = paths
      .map(({ path, sent, held }) => `${path} sent ${sent}, the tenant holds ${held}`)
      .join("; ");
    super(
      `client ${clientId} does not hold what was sent: ${list}. The tenant accepted the PATCH ` +
        "but kept another value there; the next preview shows the difference, and `up` tries again.",
    );
    this.clientId = clientId;
    this.paths = paths;
  }
}

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

/**
 * A seed of the local tenant cannot be used: unreadable, not JSON, of a newer format version, or
 * holding what the platform would refuse (a client twice, an event stream id that is not 26
 * characters, ...). The message names the file (when there is one), the JSON path of every
 * problem and the problem; the local tenant does not start (docs/design/local-tenant.md, "Seed file
 * format").
 *
 * @example `invalid seed tenant-seed.json: clients[1].client_id: "D" is already the id of clients[0]`
 */
export class SeedError extends errorKind("SeedError", ErrorCodes.seed) {}

/**
 * The local tenant could not start for a reason other than its seed or its options: the port is
 * in use, the address cannot be listened on. Nothing is left listening.
 */
export class LocalTenantError extends errorKind("LocalTenantError", ErrorCodes.localTenant) {}

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
 * `pulumi import` found nothing to adopt under the id it was given: no such client, no push
 * provider selected, an event stream that still exists. Nothing was written.
 *
 * @example `ClientSettings "web": cannot import client abc: the tenant has no client with that id`
 */
export class TenantImportError extends errorKind("TenantImportError", ErrorCodes.import) {}

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
