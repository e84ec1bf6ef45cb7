import type * as pulumi from "@pulumi/pulumi";
import {
  getTenantClient,
  type OperationContext,
  startOperation,
  type TenantApiClient,
} from "../api/client.js";
import { currentSettings, type TenantSettings, useStackConfig } from "../config.js";
import { TenantConfigError } from "../errors.js";
import { checkInputs, type ResourceKind } from "../schema/index.js";
import type { TenantProvider } from "../shims/make-shim.js";

/**
 * The hidden input that carries the resource's logical name into the provider (not `__name`,
 * which Pulumi's own Resource class uses). The dynamic
 * provider protocol passes no URN to check/create/update/delete, and an error that says
 * `ClientSettings "web"` is worth a lot more than one that says `ClientSettings`.
 */
export const NAME_KEY = "__resourceName";

/** The property the engine's dynamic-provider host adds to every resource. */
export const PROVIDER_KEY = "__provider";

/** `ClientSettings "web"`: how every message names a resource. */
export function describeResource(
  kind: ResourceKind,
  props: Record<string, unknown> | undefined,
  id?: string,
): string {
  const name = props?.[NAME_KEY];
  const shown = typeof name === "string" && name !== "" ? name : id;
  return shown ? `${kind} "${shown}"` : kind;
}

/** What an operation works with: the resource's name, the client, and the deadline. */
export interface Operation {
  readonly context: OperationContext;
  readonly client: TenantApiClient;
  readonly settings: TenantSettings;
}

/**
 * Runs `body` with the tenant client and a fresh deadline. Settings are resolved here, not at
 * configure time, so that a preview (check and diff only) needs no credentials; a missing setting
 * surfaces as a {@link TenantConfigError} that names the resource.
 */
export async function runOperation<T>(
  resource: string,
  body: (operation: Operation) => Promise<T>,
): Promise<T> {
  let settings: TenantSettings;
  try {
    settings = currentSettings();
  } catch (error) {
    if (error instanceof TenantConfigError) {
      throw new TenantConfigError(`${resource}: ${error.message}`);
    }
    throw error;
  }
  return body({
    context: startOperation(settings, resource),
    client: getTenantClient(settings),
    settings,
  });
}

/**
 * The parts every provider shares: configure stores the stack config, check validates against the
 * schema and reports every failure at once (it never throws, so the engine can print them all).
 */
export abstract class TenantProviderBase {
  protected abstract readonly kind: ResourceKind;

  configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
    useStackConfig(req.config);
    return Promise.resolve();
  }

  check(_olds: unknown, news: Record<string, unknown>): Promise<pulumi.dynamic.CheckResult> {
    const { inputs, failures } = checkInputs(this.kind, news);
    return Promise.resolve({ inputs, failures });
  }
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
 * from the installed package, a linked checkout or the test runner.
 */
export function shimFor(kind: ResourceKind): TenantProvider {
  return require(SHIM_MODULES[kind]) as TenantProvider;
}
