import * as pulumi from "@pulumi/pulumi";
import {
  type ConnectionSetting,
  SENSITIVE_CONNECTION_SETTINGS,
  type TenantConnection,
} from "../connection/schema.js";
import type { TenantProvider } from "../providers/provider-base.js";
import type { ResourceKind } from "../schema/kinds.js";

/**
 * What a resource class hands to `dynamic.Resource` besides its inputs: the provider shim, the
 * options that keep some outputs secret, and the `tenant` input with its credentials secret.
 *
 * @module
 */

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
 * The `tenant` input as the resource registers it: the credentials (`apiToken`, `clientSecret`,
 * marked sensitive in the schema) wrapped as secrets, the other members as given, so the domain
 * shows in previews. Pulumi stores a secret input encrypted, and the engine makes the matching
 * output member secret too (a provider host that does not accept secrets gets its outputs marked
 * from its inputs, member by member), so the stored connection is encrypted in the outputs that
 * refresh and destroy use. Each member is wrapped alone: a secret around the whole object would
 * hide the domain.
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
export const TYPE_MODULE = "tenant";

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
 * from the installed package, a linked checkout or the test runner (docs/provider-closure.md).
 */
export function shimFor(kind: ResourceKind): TenantProvider {
  return require(SHIM_MODULES[kind]) as TenantProvider;
}

/**
 * The user's options plus the outputs this resource always keeps secret. Pulumi encrypts them in
 * the state and shows them as `[secret]`.
 */
export function withSecretOutputs(
  opts: pulumi.CustomResourceOptions | undefined,
  names: readonly string[],
): pulumi.CustomResourceOptions {
  return {
    ...opts,
    additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...names],
  };
}
