/**
 * The root of pulumi-tenant's errors: {@link TenantError}, which every error class of the package
 * extends (catch it to catch them all), the stable `code` of each kind ({@link ErrorCodes}:
 * programs and tests match on codes; messages may be reworded, codes may not), and
 * {@link errorKind}, which declares a kind in one line. The kinds themselves are in the files of
 * who sees them: `tenant.ts` (a program's author), `commands.ts` (the commands' users),
 * `local-api.ts` (the local tenant API's).
 *
 * Every message starts with the resource it concerns, in the form `ClientSettings "web": ...`,
 * because the dynamic-provider host reports only the message: without the resource name a user of
 * a 200-resource stack cannot tell which one failed. The name is added in one place,
 * {@link TenantError.concerning}.
 *
 * @module
 */

/** Stable codes of the package's error classes, one per kind. */
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
 * One kind of {@link TenantError}: its `name` and `code`. Each error class of the package extends
 * one of these, so that a kind is declared in one line and `instanceof` works per kind.
 */
export function errorKind<N extends string, C extends ErrorCode>(name: N, code: C) {
  abstract class Kind extends TenantError {
    override readonly name: N = name;
    readonly code: C = code;
  }
  return Kind;
}
