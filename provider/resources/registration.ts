import type * as pulumi from "@pulumi/pulumi";
import type { ResourceKind } from "../schema/index.js";
import type { TenantProvider } from "./provider-base.js";

/**
 * What a resource class hands to `dynamic.Resource` besides its inputs: the provider shim and the
 * options that keep some outputs secret.
 *
 * @module
 */

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
