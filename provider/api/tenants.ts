/**
 * What the process keeps per tenant, in one place: Pulumi runs every dynamic resource of a stack
 * in one provider host process, so this is where the resources come to share one rate limiter per
 * tenant, one API client (with its token cache) per tenant and credentials, and one client read
 * pass per API client. Nothing here is shared between two tenants (docs/design/decisions.md,
 * "Several tenants").
 *
 * @module
 */

import { createHash, createPublicKey } from "node:crypto";
import { writeLine } from "../stderr-lines.js";
import { TenantApiClient } from "./client.js";
import { ClientReadPass } from "./client-read-pass.js";
import { clientReadTransport } from "./client-requests.js";
import type { OperationContext } from "./operation.js";
import { type RateLimiterState, TenantRateLimiter } from "./rate-limiter.js";
import type { TenantSettings } from "./settings.js";

/** One rate limiter per tenant (origin); one API client, with its token cache, per credentials. */
const limiters = new Map<string, TenantRateLimiter>();
const clients = new Map<string, TenantApiClient>();

/**
 * Where the run's info lines go, the limiter's reports of long waits and the budget that gave way
 * alike: stderr, which the engine shows as info of the run in both faces (the provider's stdout is
 * the engine's channel) and the commands use for progress.
 */
function report(line: string): void {
  writeLine(line);
}

/**
 * The shared client for these settings: one per tenant and credentials, created on first use.
 * The credentials enter the key only as a hash, so the registry holds no second copy of a secret.
 * The settings' budget joins the tenant's limiter; when it, or one asked before, gives way to a more
 * polite one, the run is told once per tenant, naming `who` asked for less (`ClientSettings "web"`;
 * `a resource` when not given).
 */
export function getTenantClient(settings: TenantSettings, who?: string): TenantApiClient {
  const { credentials } = settings;
  const key = `${settings.origin} ${identityOf(credentials)} ${settings.requestTimeoutMs}`;
  const limiter = limiterOf(settings);
  limiter.useBudget(settings.budget, who);
  let client = clients.get(key);
  if (!client) {
    // A failure that may heal is retried with a line saying so (docs/guides/commands.md).
    client = new TenantApiClient(settings, { limiter, notice: report });
    clients.set(key, client);
  }
  return client;
}

/**
 * The pace of the tenant `settings` reach, as its limiter has learned it (the shared bucket), or
 * undefined before any request: for a command's progress, which estimates the time left from it.
 */
export function tenantPaceOf(settings: TenantSettings): RateLimiterState | undefined {
  return limiters.get(settings.origin)?.state();
}

/**
 * Who the credentials make the caller, as a registry key: a secret enters only as a hash, a private
 * key only by its public half's hash (which tells two keys apart without a copy of the key).
 */
function identityOf(credentials: TenantSettings["credentials"]): string {
  const hash = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
  switch (credentials.kind) {
    case "apiToken":
      return `token:${hash(credentials.token)}`;
    case "clientCredentials":
      return `client:${credentials.clientId}:${hash(credentials.clientSecret)}:${credentials.audience}`;
    case "privateKeyJwt": {
      const publicKey = createPublicKey(credentials.privateKey).export({
        type: "spki",
        format: "der",
      });
      return `key:${credentials.clientId}:${hash(publicKey)}:${credentials.alg}:${credentials.audience}`;
    }
  }
}

/**
 * The tenant's limiter, with the budget of the settings that first reached it; later settings
 * tighten it ({@link TenantRateLimiter.useBudget}). Its reports of long waits go to
 * {@link report}.
 */
function limiterOf(settings: TenantSettings): TenantRateLimiter {
  let limiter = limiters.get(settings.origin);
  if (!limiter) {
    limiter = new TenantRateLimiter({
      budget: settings.budget,
      origin: settings.origin,
      report,
      // The settings as the first user of the tenant spelled them: a command's flags, a program's keys.
      ...(settings.budgetNames === undefined ? {} : { budgetNames: settings.budgetNames }),
    });
    if (limiters.size === 0) {
      // The long waits of the run's last stretch (fewer than 30 s since the last report) are
      // said as the process ends; stderr is a pipe there, written synchronously.
      process.once("exit", () => {
        for (const each of limiters.values()) each.end();
      });
    }
    limiters.set(settings.origin, limiter);
  }
  return limiter;
}

/**
 * The current read pass of each API client, i.e. of each tenant and credentials (what a read may
 * see depends on the credentials' scopes).
 */
const passes = new Map<TenantApiClient, ClientReadPass<OperationContext>>();

/**
 * The pass that answers the client reads of `api`'s tenant in the current command. An operation
 * takes it once, at its start: reads of an operation that began before a new pass are answered by
 * the pass they began in, from its own fetches.
 */
export function clientReadPassOf(api: TenantApiClient): ClientReadPass<OperationContext> {
  let pass = passes.get(api);
  if (pass === undefined) {
    pass = new ClientReadPass(clientReadTransport(api));
    passes.set(api, pass);
  }
  return pass;
}

/**
 * Starts a new read pass for every tenant: nothing fetched before is served again. The
 * ClientSettings provider calls it from `configure`, which the provider host runs once when a
 * command first uses the resource kind (Pulumi starts a provider process per command, and this
 * scopes what the process serves to the current one).
 */
export function startClientReadPass(): void {
  passes.clear();
}
