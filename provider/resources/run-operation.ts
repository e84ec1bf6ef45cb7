import {
  getTenantClient,
  type OperationContext,
  startOperation,
  type TenantApiClient,
} from "../api/client.js";
import { currentSettings, type TenantSettings } from "../config.js";
import { TenantError } from "../errors.js";

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

/**
 * Runs `body` with the tenant client and a fresh deadline, naming `resource` on its errors.
 * Settings are resolved here, not at configure time, so that a preview (check and diff only) needs
 * no credentials; a missing setting surfaces as a `TenantConfigError` that names the resource.
 */
export function runOperation<T>(
  resource: string,
  body: (operation: Operation) => Promise<T>,
): Promise<T> {
  return concerning(resource, () => {
    const settings = currentSettings();
    return body({
      context: startOperation(settings, resource),
      client: getTenantClient(settings),
      settings,
    });
  });
}
