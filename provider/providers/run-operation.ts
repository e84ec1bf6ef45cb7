import { type OperationContext, startOperation, type TenantApiClient } from "../api/client.js";
import { getTenantClient } from "../api/tenants.js";
import { settingsFor, type TenantSettings } from "../config.js";
import { TenantError } from "../errors.js";
import { describeResource } from "../resource-name.js";
import { type ResourceKind, TENANT_KEY } from "../schema/index.js";

/** What an operation works with: the resource's name, the client, and the deadline. */
export interface Operation {
  readonly context: OperationContext;
  readonly client: TenantApiClient;
  readonly settings: TenantSettings;
}

/**
 * Runs `body` and names `resource` on every {@link TenantError} it throws: the one place where
 * errors get the resource in front of their message (see {@link TenantError.concerning}). The error
 * is thrown on as it is, stack included. For steps that call no API (diff).
 */
export async function concerning<T>(resource: string, body: () => T | Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    throw error instanceof TenantError ? error.concerning(resource) : error;
  }
}

/** What an operation acts on: the resource, as errors name it, and the tenant it is in. */
export interface Target {
  /** `ClientSettings "web"`. */
  readonly resource: string;
  /** The resource's `tenant` input, undefined when it uses the stack config. */
  readonly tenant: unknown;
}

/**
 * The target of an operation on a resource of `kind` with these `props`: the inputs of create and
 * update, the stored outputs of read and delete (which carry the connection, so refresh and
 * destroy reach the tenant without the program). `id` names a resource whose state has no name.
 */
export function target(kind: ResourceKind, props: Record<string, unknown>, id?: string): Target {
  return { resource: describeResource(kind, props, id), tenant: props[TENANT_KEY] };
}

/**
 * Runs `body` with the tenant client and a fresh deadline, naming the resource on its errors. The
 * tenant is the target's `tenant` input, else the stack config's. Settings are resolved here, not
 * at configure time, so that a preview (check and diff only) needs no credentials; a missing or
 * invalid setting surfaces as a `TenantConfigError` that names the resource.
 */
export function runOperation<T>(
  { resource, tenant }: Target,
  body: (operation: Operation) => Promise<T>,
): Promise<T> {
  return concerning(resource, () => {
    const settings = settingsFor(tenant);
    return body({
      context: startOperation(settings, resource),
      client: getTenantClient(settings),
      settings,
    });
  });
}
