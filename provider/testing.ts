/**
 * `pulumi-tenant/testing`: the local tenant (docs/design/local-tenant.md) for a user's own tests. It runs
 * in the caller's process, on loopback, on a free port, and is the same server this package's own
 * tests, demo and benchmarks use. docs/guides/testing-your-program.md has the recipe.
 *
 * Nothing of this module is loaded by `require("pulumi-tenant")` or by the provider host: only a
 * test that imports `pulumi-tenant/testing` pays for the server.
 *
 * @example
 * ```ts
 * await using tenant = await startLocalTenant({ seed: "tenant-seed.json" });
 * await stack.setAllConfig(tenant.stackConfig());
 * await stack.up();
 * expect(tenant.client(id)?.callbacks).toEqual([...]);
 * ```
 *
 * @module
 */

import { CommandUsageError } from "./errors.js";
import type { BackgroundLoadOptions } from "./local-tenant/background-load.js";
import type { PatchModel } from "./local-tenant/client-patch.js";
import type { WireClient } from "./local-tenant/clients.js";
import type { FaultOptions } from "./local-tenant/faults.js";
import type { NetworkDelayOptions } from "./local-tenant/network-delay.js";
import { requireServerPeers } from "./local-tenant/peers.js";
import type { QuirkOptions } from "./local-tenant/quirks.js";
import type { RateLimitOptions } from "./local-tenant/rate-limit.js";
import { SEED_FORMAT_VERSION, type TenantSeed } from "./local-tenant/seed.js";
import type { TenantApiOptions } from "./local-tenant/server.js";
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
export type { FaultOptions } from "./local-tenant/faults.js";
export type { NetworkDelayOptions } from "./local-tenant/network-delay.js";
export type { QuirkOptions } from "./local-tenant/quirks.js";
export type { RateLimitOptions } from "./local-tenant/rate-limit.js";
export type { SeedClient, TenantSeed } from "./local-tenant/seed.js";
export type { BackgroundStats } from "./local-tenant/stats.js";
export type { PushProvider, WireEventStream } from "./local-tenant/store.js";

/** Options of {@link startLocalTenant}; every one is optional. */
export interface LocalTenantOptions {
  /**
   * The tenant to start with: the path of a seed file (as `pulumi-tenant snapshot` writes it) or a
   * seed object; default a small built-in tenant (docs/design/local-tenant.md, "Seed file format").
   */
  seed?: TenantSeed | string | undefined;
  /** Rate limit of the management API, `{ rate, burst }` per second; default none. */
  rateLimit?: RateLimitOptions | undefined;
  /**
   * The tenant's other callers, as a production back end: `rate` reads a second taking tokens
   * from the same bucket as the program, `burst` of them together (default 1, evenly spaced);
   * their 429s are counted apart, in `background()`. Default none (docs/design/local-tenant.md,
   * "Background load").
   */
  backgroundLoad?: BackgroundLoadOptions | undefined;
  /**
   * A tenant a network away: `{ minMs, maxMs }`, every request and every answer held that long
   * each way (one draw per chunk), so that a round trip and the age of the rate-limit headers are
   * what a pipeline sees of a tenant in another region; the background load comes through it too.
   * Default none, loopback (docs/design/local-tenant.md, "A tenant a network away").
   */
  networkDelay?: NetworkDelayOptions | undefined;
  /**
   * Faults to inject: `{ error, drop, latency: { min, max } }` or `"error=0.2,drop=0.05,latency=0-300"`
   * (shares from 0 to 1, milliseconds); default none.
   */
  faults?: FaultOptions | string | undefined;
  /**
   * Answer as a tenant we did not write may (its clock off, reset rounded down, a write bucket of
   * its own, a per-minute limit, answers without rate-limit headers, a gateway's 502/503, repeated
   * headers, a given `Retry-After`, pages without `total`): `{ clockOffset: -2, gatewayEvery: 25 }`
   * or `"clock-offset=-2,gateway-every=25"`; default none (docs/design/local-tenant.md, "A tenant we did
   * not write").
   */
  quirks?: QuirkOptions | string | undefined;
  /**
   * How a client PATCH applies an object at a path the platform's recorded traffic leaves
   * undecided (`addons`, `refresh_token`, `oidc_logout`, ...): `"merge"` member by member or
   * `"replace"` it whole; paths the recordings decide apply as recorded. Default `"merge"`
   * (docs/design/local-tenant.md, "How a PATCH applies"). Test a program under both to be sure it
   * holds on the platform whichever it is.
   */
  patchModel?: PatchModel | undefined;
  /** Lifetime of issued tokens in seconds; default 86400. */
  tokenTtlSeconds?: number | undefined;
  /**
   * The deployment client (`clientId`) logs in by private key JWT, as docs/installation-configuration.md, "Configuration"
   * recommends for pipelines: a key pair is generated, its public key registered on the client,
   * and the private key handed to the test as `clientAssertionPrivateKey` (and in
   * `stackConfig()`, a secret); the client's secret is then refused. Default false.
   */
  privateKeyJwt?: boolean | undefined;
  /**
   * Serve HTTPS with a generated certificate authority: `caFile` names its certificate, which
   * the process running Pulumi must trust (`NODE_EXTRA_CA_CERTS`). Default plain HTTP on loopback.
   */
  tls?: boolean | undefined;
  /** Port to listen on; default 0, a free one. */
  port?: number | undefined;
  /** Seed of the fault injection's random numbers, for repeatable runs. */
  random?: number | undefined;
}

const OPTION_NAMES: readonly (keyof LocalTenantOptions)[] = [
  "seed",
  "rateLimit",
  "backgroundLoad",
  "networkDelay",
  "faults",
  "quirks",
  "patchModel",
  "tokenTtlSeconds",
  "privateKeyJwt",
  "tls",
  "port",
  "random",
];

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
  /** Stops the server; calling it again does nothing. */
  stop(): Promise<void>;
}

/** Management API writes: every method but GET. */
const READ_METHODS = new Set(["GET", "HEAD"]);

function checkedOptions(options: LocalTenantOptions): TenantApiOptions {
  if (typeof options !== "object" || options === null) {
    throw new CommandUsageError("startLocalTenant: options must be an object");
  }
  const unknown = Object.keys(options).filter(
    (name) => !OPTION_NAMES.includes(name as keyof LocalTenantOptions),
  );
  if (unknown.length > 0) {
    throw new CommandUsageError(
      `startLocalTenant: unknown ${unknown.length === 1 ? "option" : "options"} ` +
        `${unknown.map((name) => JSON.stringify(name)).join(", ")}; known: ${OPTION_NAMES.join(", ")}`,
    );
  }
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new CommandUsageError(
      `startLocalTenant: port must be an integer from 0 to 65535, got ${port}`,
    );
  }
  return {
    port,
    seed: options.seed,
    rateLimit: options.rateLimit ?? null,
    backgroundLoad: options.backgroundLoad ?? null,
    networkDelay: options.networkDelay ?? null,
    faults: options.faults,
    quirks: options.quirks,
    patchModel: options.patchModel,
    tokenTtlSeconds: options.tokenTtlSeconds,
    privateKeyJwt: options.privateKeyJwt,
    tls: options.tls,
    random: options.random,
  };
}

/**
 * Starts the local tenant in this process, on loopback, on a free port (or `options.port`).
 *
 * @throws {CommandUsageError} for an unknown or bad option; {@link SeedError} for a seed it cannot
 *   use (naming the file, the JSON path and the problem); {@link LocalTenantError} when the port is
 *   in use or a package the server needs is not installed (naming it). Nothing is left running
 *   when it throws.
 */
export async function startLocalTenant(options: LocalTenantOptions = {}): Promise<LocalTenant> {
  const apiOptions = checkedOptions(options);
  requireServerPeers({ tls: apiOptions.tls });
  // Loaded now, after the check: the server's modules require Fastify at their top.
  const { startTenantApi } = await import("./local-tenant/server.js");
  const api = await startTenantApi(apiOptions);
  const { store } = api;
  let stopped = false;
  const stop = () => {
    stopped = true;
    return api.stop();
  };
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
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
