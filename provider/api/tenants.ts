/**
 * What the process keeps per tenant, in one place: Pulumi runs every dynamic resource of a stack
 * in one provider host process, so this is where the resources come to share one rate limiter per
 * tenant, one API client (with its token cache) per tenant and credentials, and one client
 * directory per API client. Nothing here is shared between two tenants (docs/decisions.md,
 * "Several tenants").
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { TenantSettings } from "../config.js";
import { type OperationContext, TenantApiClient } from "./client.js";
import { ClientDirectory } from "./client-directory.js";
import { directoryTransport } from "./client-requests.js";
import { TenantRateLimiter } from "./rate-limiter.js";

/** One rate limiter per tenant (origin); one API client, with its token cache, per credentials. */
const limiters = new Map<string, TenantRateLimiter>();
const clients = new Map<string, TenantApiClient>();

/**
 * The shared client for these settings: one per tenant and credentials, created on first use.
 * The credentials enter the key only as a hash, so the registry holds no second copy of a secret.
 */
export function getTenantClient(settings: TenantSettings): TenantApiClient {
  const { credentials } = settings;
  const identity =
    credentials.kind === "apiToken"
      ? `token:${createHash("sha256").update(credentials.token).digest("hex")}`
      : `client:${credentials.clientId}:${createHash("sha256").update(credentials.clientSecret).digest("hex")}:${credentials.audience}`;
  const key = `${settings.origin} ${identity} ${settings.requestTimeoutMs}`;
  let client = clients.get(key);
  if (!client) {
    let limiter = limiters.get(settings.origin);
    if (!limiter) {
      limiter = new TenantRateLimiter();
      limiters.set(settings.origin, limiter);
    }
    client = new TenantApiClient(settings, { limiter });
    clients.set(key, client);
  }
  return client;
}

/**
 * One directory per API client, i.e. per tenant and credentials (what a read may see depends on
 * the credentials' scopes), for the life of the process: Pulumi starts a provider process per
 * command, and {@link startClientReadPass} scopes what it serves to the current command.
 */
const directories = new Map<TenantApiClient, ClientDirectory<OperationContext>>();

/** The directory that answers the client reads of `api`'s tenant in this process. */
export function clientDirectoryOf(api: TenantApiClient): ClientDirectory<OperationContext> {
  let directory = directories.get(api);
  if (directory === undefined) {
    directory = new ClientDirectory(directoryTransport(api));
    directories.set(api, directory);
  }
  return directory;
}

/**
 * Starts a new read pass in every directory: nothing fetched before is served again. The
 * ClientSettings provider calls it from `configure`, which the provider host runs once when a
 * command first uses the resource kind; tests that play several commands in one process call it
 * between them, as a new provider process would start afresh.
 */
export function startClientReadPass(): void {
  for (const directory of directories.values()) directory.startPass();
}
