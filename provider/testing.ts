/**
 * `pulumi-tenant/testing`: the local tenant (docs/design/local-tenant.md) for a user's own tests. It runs
 * in the caller's process, on loopback, on a free port, and is the same server this package's own
 * tests, demo and benchmarks use. docs/guides/testing-your-program.md has the recipe, a whole
 * test file.
 *
 * Nothing of this module is loaded by `require("pulumi-tenant")` or by the provider host: only a
 * test that imports `pulumi-tenant/testing` pays for the server.
 *
 * @module
 */

import type { WireClient } from "./local-tenant/clients.js";
import { type DashboardEdit, editAsDashboard } from "./local-tenant/dashboard-edit.js";
import { endEngineProcesses } from "./local-tenant/engine-processes.js";
import { kitApiOptions, type LocalTenantOptions } from "./local-tenant/kit-options.js";
import { requireServerPeers } from "./local-tenant/peers.js";
import { SEED_FORMAT_VERSION, type TenantSeed } from "./local-tenant/seed.js";
import type { BackgroundStats } from "./local-tenant/stats.js";
import type { PushProvider, WireEventStream } from "./local-tenant/store.js";

export {
  CommandUsageError,
  LocalTenantError,
  SeedError,
} from "./errors.js";
export type { BackgroundLoadOptions } from "./local-tenant/background-load.js";
export type { PatchModel } from "./local-tenant/client-patch.js";
export type { WireClient } from "./local-tenant/clients.js";
export type { DashboardEdit } from "./local-tenant/dashboard-edit.js";
export type { FaultOptions } from "./local-tenant/faults.js";
export type { LocalTenantOptions } from "./local-tenant/kit-options.js";
export type { NetworkDelayOptions } from "./local-tenant/network-delay.js";
export type { QuirkOptions } from "./local-tenant/quirks.js";
export type { RateLimitOptions } from "./local-tenant/rate-limit.js";
export type { SeedClient, TenantSeed } from "./local-tenant/seed.js";
export type { BackgroundStats } from "./local-tenant/stats.js";
export type { PushProvider, WireEventStream } from "./local-tenant/store.js";

/** Credentials of a machine-to-machine client of the local tenant. */
export interface LocalTenantCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
  /** The scopes granted to it. */
  readonly scopes: readonly string[];
}

/** One stack config value, as Pulumi's Automation API `setAllConfig` takes it. */
export interface StackConfigValue {
  readonly value: string;
  readonly secret?: boolean;
}

/** The calls the local tenant received, keyed `"METHOD /route"` (`"PATCH /api/v2/clients/:id"`). */
export interface LocalTenantRequests {
  /** Every call to the management API and the token endpoint. */
  readonly total: number;
  /** Management API reads (GET). */
  readonly reads: Readonly<Record<string, number>>;
  /** Management API writes (PUT, PATCH, DELETE, POST). */
  readonly writes: Readonly<Record<string, number>>;
  /** Token requests. */
  readonly tokens: number;
  /** Count per status (`"200"`, `"429"`, `"dropped"`). */
  readonly byStatus: Readonly<Record<string, number>>;
}

/** A running local tenant. Stop it with `stop()`, or let `await using` do it. */
export interface LocalTenant extends AsyncDisposable {
  /** What goes into `tenant:domain`: `http://127.0.0.1:PORT` (`https://localhost:PORT` with TLS). */
  readonly domain: string;
  /** The machine-to-machine client granted every scope the resources need. */
  readonly clientId: string;
  /** Its secret. */
  readonly clientSecret: string;
  /**
   * With `privateKeyJwt`: its private key (PKCS #8 PEM), for `tenant:clientAssertionPrivateKey`,
   * signing with RS256; else undefined.
   */
  readonly clientAssertionPrivateKey: string | undefined;
  /** Its scopes. */
  readonly scopes: readonly string[];
  /** A client granted the read scopes only, as `pulumi-tenant snapshot` and `generate` need. */
  readonly readOnly: LocalTenantCredentials;
  /** With TLS: the CA certificate file to trust (deleted by `stop()`). */
  readonly caFile: string | undefined;
  /**
   * The console, `${domain}/__tenant-api/console`: open it in a browser to watch what the test's
   * program does to the tenant, live (docs/design/local-tenant.md, "The console").
   */
  readonly consoleUrl: string;
  /**
   * The `tenant:*` stack config that points a stack at this tenant with the admin client, its
   * secret (or, with `privateKeyJwt`, its private key) marked as a secret:
   * `await stack.setAllConfig(tenant.stackConfig())`.
   */
  stackConfig(): Record<string, StackConfigValue>;
  /** The client as the API answers a reader with every scope (key material included), or undefined. */
  client(clientId: string): WireClient | undefined;
  /** Every client, in the tenant's order. */
  clients(): WireClient[];
  /** The selected push provider. */
  pushProvider(): PushProvider;
  /** The event stream, or undefined when it does not exist (deleted, or never seeded). */
  eventStream(id: string): WireEventStream | undefined;
  /** Every event stream. */
  eventStreams(): WireEventStream[];
  /**
   * The calls received since start (or the last `reset()`), reads and writes apart; the
   * background load's requests are not among them.
   */
  requests(): LocalTenantRequests;
  /**
   * The background load's requests since start (or the last `reset()`): `{total, allowed,
   * refused}`, `refused` being its 429s, so that a test asserts "my deployment left production
   * without a 429": `expect(tenant.background().refused).toBe(0)`. All zero without
   * `backgroundLoad`.
   */
  background(): BackgroundStats;
  /**
   * The lowest level the rate limit's bucket reached since start (or the last `reset()`), in
   * tokens with fractions, just after any request took one, the background's included; null
   * without a rate limit or before a request. With the default reserve of a quarter of the bucket,
   * a run beside production should keep it near that quarter: `expect(tenant.bucketLowest()).
   * toBeGreaterThanOrEqual(3)` for a bucket of 20.
   */
  bucketLowest(): number | null;
  /**
   * Puts the tenant back to its seed (same ids and secrets), the call counters (the background's
   * included) to zero, and the background load's schedule back to its start. The rate limit's
   * bucket is left as it is.
   */
  reset(): void;
  /** What the tenant holds now, as a seed that `startLocalTenant` loads (secrets included). */
  exportSeed(): TenantSeed;
  /**
   * Changes a client as a person would in the tenant's dashboard, outside the program under test
   * (the console's Save: its name, description, callbacks, logout URLs), so that a drift test has
   * drift to find: through the API's checks, not counted in `requests()`. Resolves to the client
   * as the console shows it; rejects with a {@link LocalTenantError} naming what was refused.
   */
  editClient(clientId: string, edit: DashboardEdit): Promise<WireClient>;
  /**
   * Stops the server, and ends the Pulumi engine's processes this process started that still run
   * (the pulumi CLI, its plugins, the dynamic-provider host: a test that timed out in `up`
   * leaves them), so a failed test leaves no process behind; calling it again does nothing. Also
   * done when the process exits without it.
   */
  stop(): Promise<void>;
}

/** Management API writes: every method but GET. */
const READ_METHODS = new Set(["GET", "HEAD"]);

/**
 * Starts the local tenant in this process, on loopback, on a free port (or `options.port`).
 *
 * @throws {CommandUsageError} for an unknown or bad option; {@link SeedError} for a seed it cannot
 *   use (naming the file, the JSON path and the problem); {@link LocalTenantError} when the port is
 *   in use or a package the server needs is not installed (naming it). Nothing is left running
 *   when it throws.
 */
export async function startLocalTenant(options: LocalTenantOptions = {}): Promise<LocalTenant> {
  const apiOptions = kitApiOptions(options);
  requireServerPeers({ tls: apiOptions.tls });
  // Loaded now, after the check: the server's modules require Fastify at their top.
  const { startTenantApi } = await import("./local-tenant/server.js");
  const api = await startTenantApi(apiOptions);
  const { store } = api;
  let stopped = false;
  const stop = async () => {
    stopped = true;
    process.off("exit", endEngineProcesses);
    endEngineProcesses();
    await api.stop();
  };
  process.once("exit", endEngineProcesses);
  return {
    domain: api.domain,
    clientId: api.clientId,
    clientSecret: api.clientSecret,
    clientAssertionPrivateKey: api.clientAssertionPrivateKey,
    scopes: api.scopes,
    readOnly: api.readOnly,
    caFile: api.caFile,
    consoleUrl: api.consoleUrl,
    stackConfig: () => ({
      "tenant:domain": { value: api.domain },
      "tenant:clientId": { value: api.clientId },
      ...(api.clientAssertionPrivateKey === undefined
        ? { "tenant:clientSecret": { value: api.clientSecret, secret: true } }
        : {
            "tenant:clientAssertionPrivateKey": {
              value: api.clientAssertionPrivateKey,
              secret: true,
            },
          }),
    }),
    client: (clientId) => store.getClient(clientId),
    clients: () => store.snapshot().clients,
    pushProvider: () => store.getProvider(),
    eventStream: (id) => store.getEventStream(id),
    eventStreams: () => store.snapshot().eventStreams,
    requests: () => {
      const stats = api.stats();
      const reads: Record<string, number> = {};
      const writes: Record<string, number> = {};
      for (const [route, count] of Object.entries(stats.byRoute)) {
        if (!route.includes(" /api/v2")) continue;
        const method = route.slice(0, route.indexOf(" "));
        const into = READ_METHODS.has(method) ? reads : writes;
        into[route] = count;
      }
      return { total: stats.total, reads, writes, tokens: stats.token, byStatus: stats.byStatus };
    },
    background: () => api.stats().background,
    bucketLowest: () => api.stats().bucketLowest,
    reset: () => {
      store.reset();
      api.resetStats();
      // A stopped tenant has no schedule to start again (and refuses to start one).
      if (!stopped) api.setBackgroundLoad(api.backgroundLoad());
    },
    exportSeed: () => {
      const state = store.snapshot();
      return {
        version: SEED_FORMAT_VERSION,
        tenant: state.tenant,
        pushProvider: state.pushProvider,
        clients: state.clients,
        eventStreams: state.eventStreams,
        grants: state.grants,
        admin: api.clientId,
        readOnly: api.readOnly.clientId,
      };
    },
    editClient: (clientId, edit) => editAsDashboard(api, clientId, edit),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
