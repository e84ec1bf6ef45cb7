import type { TenantApiClient } from "../api/client.js";
import { type OperationContext, startOperation } from "../api/operation.js";
import { getTenantClient } from "../api/tenants.js";
import { configuredOrigin, settingsFor, type TenantSettings } from "../config.js";
import { operationConnection } from "../connection/change.js";
import { TenantError } from "../errors.js";
import { NAME_KEY, type ResourceKind } from "../schema/index.js";

/** What an operation works with: the resource's name, the client, and the deadline. */
export interface Operation {
  readonly context: OperationContext;
  readonly client: TenantApiClient;
  readonly settings: TenantSettings;
}

/**
 * `ClientSettings "web"`: how every message names a resource, from its {@link NAME_KEY} input.
 * Falls back to the id, then to the kind alone, for states written without the name.
 */
export function describeResource(
  kind: ResourceKind,
  props: Record<string, unknown> | undefined,
  id?: string,
): string {
  const name = props?.[NAME_KEY];
  const shown = typeof name === "string" && name !== "" ? name : id;
  return shown ? `${kind} "${shown}"` : kind;
}

/**
 * Runs `body` and names `resource` on every {@link TenantError} it throws (see
 * {@link TenantError.concerning}), as {@link runOperation} does for an operation. The error is
 * thrown on as it is, stack included. For steps that call no API (diff).
 */
export async function concerning<T>(resource: string, body: () => T | Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    throw error instanceof TenantError ? error.concerning(resource) : error;
  }
}

/**
 * What an operation acts on: a resource of `kind` with these `props` (the inputs of create and
 * update, the stored outputs of read and delete, which carry the connection, so refresh and destroy
 * reach the tenant without the program); `id` names a resource whose state has no name.
 */
export interface Target {
  readonly kind: ResourceKind;
  readonly props: Record<string, unknown>;
  readonly id?: string | undefined;
}

/** The {@link Target} of an operation on a resource of `kind` with these `props`. */
export function target(kind: ResourceKind, props: Record<string, unknown>, id?: string): Target {
  return { kind, props, id };
}

/**
 * Runs `body` with the tenant client and a fresh deadline, naming the resource on its errors (as
 * {@link concerning} does). The tenant is the target's `tenant` input, else the stack config's, or,
 * for stored outputs recorded in another stack config tenant than today's (a move), the recorded
 * one ({@link operationConnection}).
 * Settings are resolved here, not at configure time, so that a preview (check and diff only) needs
 * no credentials; a missing or invalid setting surfaces as a `TenantConfigError` that names the
 * resource.
 */
export async function runOperation<T>(
  { kind, props, id }: Target,
  body: (operation: Operation) => Promise<T>,
): Promise<T> {
  const resource = describeResource(kind, props, id);
  try {
    const settings = settingsFor(operationConnection(props, configuredOrigin()));
    return await body({
      context: startOperation(settings, resource),
      client: getTenantClient(settings, resource),
      settings,
    });
  } catch (error) {
    throw error instanceof TenantError ? error.concerning(resource) : error;
  }
}
