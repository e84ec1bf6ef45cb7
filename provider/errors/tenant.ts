/**
 * The errors a program's author sees, through `pulumi preview`, `up`, `refresh`, `import` and
 * `destroy`: settings that cannot be used, what the tenant API answered, inputs that cannot be
 * sent, an install that cannot work. The commands that read a tenant meet the same ones
 * (`commands.ts` says which exit status each gives).
 *
 * No error built here may carry a credential. {@link TenantApiError} deliberately keeps only the
 * method, path, status and the platform's answer; the axios error it is built from (which holds
 * the request headers, so the bearer token) is never attached as `cause`.
 *
 * @module
 */

import { ErrorCodes, errorKind, type TenantError } from "./root.js";

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
  /**
   * The outputs the operation would have reported, the priors it remembered included, for the
   * client as the answer holds it; set by the report (`plan/outputs.ts`).
   */
  outputs: Readonly<Record<string, unknown>> | undefined;
  /**
   * Set only when a create failed so (`providers/created-not-held.ts`): the id and the outputs
   * the engine records for a resource created with initialization errors, under the names
   * Pulumi's dynamic-provider host reads from a thrown error (docs/design/decisions.md, "Every
   * write checked by its answer").
   */
  id: string | undefined;
  properties: Readonly<Record<string, unknown>> | undefined;

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
    this.outputs = undefined;
    this.id = undefined;
    this.properties = undefined;
  }

  /** The initialization errors recorded with a create's partial state: this message, once named. */
  get reasons(): string[] | undefined {
    return this.id === undefined ? undefined : [this.message];
  }
}

/**
 * `pulumi import` found nothing to adopt under the id it was given: no such client, no push
 * provider selected, an event stream that still exists. Nothing was written.
 *
 * @example `ClientSettings "web": cannot import client abc: the tenant has no client with that id`
 */
export class TenantImportError extends errorKind("TenantImportError", ErrorCodes.import) {}

/**
 * The program's install cannot work (`installLayoutProblem`, resources/install-layout.ts): a
 * {@link TenantError} like every error of the package, which Pulumi's program runner also takes for
 * one of its `RunError`s (the mark below is how `RunError.isInstance` knows one), so that it prints
 * the message alone, without a stack trace.
 */
export class TenantInstallError extends errorKind("TenantInstallError", ErrorCodes.install) {
  /** The mark of Pulumi's `RunError` (`RunError.isInstance`): printed without a stack. */
  readonly __pulumiRunError = true;
}
