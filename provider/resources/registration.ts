/**
 * What a resource class hands to `dynamic.Resource`, in one place ({@link registration}): the
 * provider shim, the inputs with the `tenant` input (its credentials secret) and the resource's
 * name, the options that keep some outputs secret, and the type token.
 *
 * @module
 */

import * as pulumi from "@pulumi/pulumi";
import {
  type ConnectionSetting,
  SENSITIVE_CONNECTION_SETTINGS,
  TENANT_KEY,
  type TenantConnection,
} from "../connection/schema.js";
import type { TenantProvider } from "../providers/provider-base.js";
import { SECRET_OUTPUTS } from "../providers/secret-outputs.js";
import { NAME_KEY } from "../schema/index.js";
import type { ResourceKind } from "../schema/kinds.js";
import { assertInstallCanWork } from "./install-layout.js";

/**
 * The `tenant` input of every resource: `{ domain, apiToken }` or
 * `{ domain, clientId, clientSecret, audience? }`, each member a `pulumi.Input<string>`, derived
 * from the connection's schema. One object can be shared by many resources. Without it, a
 * resource uses the stack config (`tenant:domain`, ...).
 */
export type TenantConnectionArgs = TenantConnection extends infer C
  ? C extends unknown
    ? { [K in keyof C]: pulumi.Input<Exclude<C[K], undefined>> }
    : never
  : never;

/**
 * The arguments of a resource whose inputs are `Inputs`: each input may be an Output, and the
 * `tenant` it acts in (default: the stack config's).
 */
export type ResourceArgs<Inputs> = {
  [K in keyof Inputs]: pulumi.Input<Inputs[K]>;
} & { readonly tenant?: TenantConnectionArgs };

/**
 * The `tenant` input as the resource registers it: the credentials (`apiToken`, `clientSecret`,
 * marked sensitive in the schema) wrapped as secrets, the other members as given, so the domain
 * shows in previews. Pulumi stores a secret input encrypted, and the engine makes the matching
 * output member secret too (a provider host that does not accept secrets gets its outputs marked
 * from its inputs, member by member), so the stored connection is encrypted in the outputs that
 * refresh and destroy use. Each member is wrapped alone: a secret around the whole object would
 * hide the domain.
 *
 * @internal
 */
export function connectionInput(
  tenant: TenantConnectionArgs | undefined,
): Record<string, pulumi.Input<string>> | undefined {
  if (tenant === undefined) return undefined;
  const registered: Record<string, pulumi.Input<string>> = {};
  for (const [member, value] of Object.entries(tenant) as [string, pulumi.Input<string>][]) {
    if (value === undefined) continue;
    registered[member] = SENSITIVE_CONNECTION_SETTINGS.includes(member as ConnectionSetting)
      ? pulumi.secret(value)
      : value;
  }
  return registered;
}

/**
 * The module part of every resource's type token: `dynamic.Resource` registers a resource of kind
 * `ClientSettings` as `pulumi-nodejs:dynamic/tenant:ClientSettings` (see {@link resourceType}).
 * Part of every URN in users' states: changing it would replace every resource.
 */
const TYPE_MODULE = "tenant";

/**
 * The type token Pulumi gives a resource of `kind`, as the engine, a policy pack and
 * `pulumi stack export` show it.
 */
export function resourceType(kind: ResourceKind): string {
  return `pulumi-nodejs:dynamic/${TYPE_MODULE}:${kind}`;
}

const SHIM_MODULES: Readonly<Record<ResourceKind, string>> = {
  PushProviderSelection: "pulumi-tenant/shims/push-provider-selection",
  ClientSettings: "pulumi-tenant/shims/client-settings",
  EventStreamDeletion: "pulumi-tenant/shims/event-stream-deletion",
};

/**
 * The provider object to hand to `dynamic.Resource` for `kind`: the shim module's own exports
 * object, loaded through the package's name. That identity matters: Pulumi's serializer writes a
 * module's exports object as a `require` of its package path (a few hundred bytes) instead of
 * serializing its functions, and resolving by name gives the same module whether this code runs
 * from the installed package, a linked checkout or the test runner (docs/design/provider-closure.md).
 */
function shimFor(kind: ResourceKind): TenantProvider {
  return require(SHIM_MODULES[kind]) as TenantProvider;
}

/** What {@link pauseStackTraces} returns: the way back to the program's stack traces. */
export interface PausedStackTraces {
  /** Puts the program's limit back; may be called more than once. */
  resume(): void;
  /**
   * `error` (thrown while paused) with the program's limit back and a stack taken here, so that
   * it still points at the program's line that constructed the resource. Returns it, to rethrow.
   */
  failed(error: unknown): unknown;
}

/**
 * Turns V8's stack traces off while a resource's constructor runs: each constructor calls it
 * first, rethrows what it throws through {@link PausedStackTraces.failed}, and resumes in a
 * `finally`.
 *
 * Why: `@pulumi/pulumi` takes a stack trace (`new Error().stack`) for every promise it makes for a
 * resource, one per registered output, to print should the promise leak at exit. A
 * `ClientSettings` registers one output per client field, and under ts-node, how Pulumi runs a
 * TypeScript program, every trace is mapped through source maps: constructing 1,000 resources took
 * 6.2 s with the traces and 0.9 s without (docs/design/decisions.md, "Stack traces while a resource is
 * constructed"). A leak report still names the promise's context. The resource's source position
 * is unaffected: Pulumi takes that trace with its own limit.
 */
export function pauseStackTraces(): PausedStackTraces {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  const resume = () => {
    Error.stackTraceLimit = limit;
  };
  const failed = (error: unknown): unknown => {
    resume();
    // The trace starts at the resource's constructor, `failed` itself left out.
    if (error instanceof Error) Error.captureStackTrace(error, failed);
    return error;
  };
  return { resume, failed };
}

/**
 * The arguments of `dynamic.Resource`'s constructor for a resource of `kind` named `name`:
 * - its shim ({@link shimFor});
 * - `inputs` (the resource's own, and the outputs it registers as undefined), with the `tenant`
 *   input as {@link connectionInput} registers it (absent without one: the stack config's tenant)
 *   and the resource's name, which the provider puts on every error it reports
 *   (`NAME_KEY`, provider/schema/kinds.ts);
 * - the user's options plus the outputs the resource always keeps secret
 *   (providers/secret-outputs.ts): Pulumi encrypts them in the state and shows them as `[secret]`;
 * - the module and kind of its type token ({@link resourceType}).
 *
 * Throws `TenantInstallError` first when the program's install cannot work (install-layout.ts).
 */
export function registration(
  kind: ResourceKind,
  name: string,
  inputs: pulumi.Inputs,
  tenant: TenantConnectionArgs | undefined,
  opts: pulumi.CustomResourceOptions | undefined,
): [TenantProvider, string, pulumi.Inputs, pulumi.CustomResourceOptions, string, string] {
  assertInstallCanWork();
  const registered: pulumi.Inputs = { ...inputs, [NAME_KEY]: name };
  delete registered[TENANT_KEY];
  const connection = connectionInput(tenant);
  if (connection !== undefined) registered[TENANT_KEY] = connection;
  return [
    shimFor(kind),
    name,
    registered,
    {
      ...opts,
      additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...SECRET_OUTPUTS[kind]],
    },
    TYPE_MODULE,
    kind,
  ];
}
