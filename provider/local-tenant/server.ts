/**
 * `startTenantApi`: starts the local tenant API on a real socket and hands back what a test needs
 * to use it (URLs, credentials, seeded ids) and to steer it (counters, faults, rate limit, state,
 * restart, stop).
 */

import { randomInt } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { CommandUsageError, LocalTenantError } from "../errors.js";
import { buildApp } from "./app.js";
import { type MintOptions, TokenAuthority } from "./auth.js";
import {
  BackgroundLoad,
  type BackgroundLoadOptions,
  type BackgroundTimer,
  type ResolvedBackgroundLoad,
} from "./background-load.js";
import { AssertionReplayGuard, newClientKeyPair } from "./client-keys.js";
import { checkedPatchModel, type PatchModel } from "./client-patch.js";
import { ConsoleMonitor, type IntervalTimer } from "./console/monitor.js";
import { CONSOLE_PATH } from "./console/shared.js";
import type { ServerContext, TenantApiRequest } from "./context.js";
import { createRandom, FaultInjector, type FaultOptions, type ResolvedFaults } from "./faults.js";
import {
  type NetworkDelay,
  type NetworkDelayOptions,
  type NetworkDelayRelay,
  networkDelayOf,
  startNetworkDelayRelay,
} from "./network-delay.js";
import { type QuirkOptions, TenantQuirks } from "./quirks.js";
import { type RateLimitOptions, TokenBucket } from "./rate-limit.js";
import { type LoadedSeed, loadSeed, type TenantSeed } from "./seed.js";
import { RequestStats, type TenantApiStats } from "./stats.js";
import { TenantStore } from "./store.js";
import { generateTlsMaterial, type TlsMaterial } from "./tls.js";

/** Options of {@link startTenantApi}; every one is optional. */
export interface TenantApiOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number | undefined;
  /**
   * Address to listen on; default `127.0.0.1`, or `localhost` (both loopback families) with TLS so
   * that the certificate's name works whichever address a client resolves first.
   */
  host?: string | undefined;
  /** The tenant to start with: a seed object or the path of a JSON seed file; default the built-in one. */
  seed?: TenantSeed | string | undefined;
  /** Generated clients added to the seed, for large-tenant benchmarks (`generatedClients`). */
  extraClients?: number | undefined;
  /** Rate limit of the management API; default none (headers still sent, with a limit of 1000). */
  rateLimit?: RateLimitOptions | null | undefined;
  /**
   * The tenant's other callers: `rate` reads a second taking tokens from the management API's
   * bucket, `burst` at a time (docs/design/local-tenant.md, "Background load"); default none.
   */
  backgroundLoad?: BackgroundLoadOptions | null | undefined;
  /**
   * A tenant a network away: every request is held `minMs` to `maxMs` (one draw per chunk) on its
   * way in and every answer as long on its way out, by a relay in front of the server, so that an
   * answer's rate-limit headers are a round trip old when read; the background load's requests
   * come in through the same delay (docs/design/local-tenant.md, "A tenant a network away"). Loopback
   * only. Default none.
   */
  networkDelay?: NetworkDelayOptions | null | undefined;
  /** Faults to inject, as an object or in the CLI syntax (`error=0.2,drop=0.05,latency=0-300`). */
  faults?: FaultOptions | string | undefined;
  /**
   * Answer as a tenant we did not write may: its clock off, reset rounded down, a write bucket of
   * its own, a per-minute limit, answers without rate-limit headers, a gateway's 502/503, repeated
   * headers, a given `Retry-After`, pages without `total`; as an object or in the CLI syntax
   * (`clock-offset=-2,gateway-every=25`; docs/design/local-tenant.md, "A tenant we did not write").
   * Default none.
   */
  quirks?: QuirkOptions | string | undefined;
  /**
   * How a client PATCH applies to an object at a path the platform's recorded traffic leaves
   * undecided (`addons`, `refresh_token`, `oidc_logout`, ...): merged member by member or
   * replaced (docs/design/local-tenant.md, "How a PATCH applies"). Default `"merge"`.
   */
  patchModel?: PatchModel | undefined;
  /** Lifetime of issued tokens in seconds; default 86400. */
  tokenTtlSeconds?: number | undefined;
  /**
   * The admin client logs in by private key JWT: a key pair is generated, its public key
   * registered on the client (RS256), and the private key handed out as
   * {@link TenantApi.clientAssertionPrivateKey}; its secret is then refused. Default false.
   */
  privateKeyJwt?: boolean | undefined;
  /** Serve HTTPS with a generated certificate authority and certificate. */
  tls?: boolean | undefined;
  /** Seed of the fault injection's random numbers, for repeatable runs; default random. */
  random?: number | undefined;
  /** Clock in milliseconds since the epoch (tokens, rate limit); default `Date.now`. */
  clock?: (() => number) | undefined;
  /**
   * The timer of the background load's bursts, so that a test with its own `clock` fires them
   * when it wants; default Node's `setTimeout`, unref'd.
   */
  backgroundTimer?: BackgroundTimer | undefined;
  /**
   * The console's one-second timer, which runs only while a console page is open; default Node's
   * `setInterval`, unref'd.
   */
  consoleInterval?: IntervalTimer | undefined;
  /**
   * Called synchronously with every request to the management and token APIs as it arrives,
   * before faults, the rate limit and authentication apply (control routes are not reported), so
   * a test can act at an exact point of a run: kill it when the first write arrives, say. It must
   * not throw. It survives `restart()`.
   */
  onRequest?: ((request: TenantApiRequest) => void) | undefined;
  /**
   * Called synchronously with the status of every answer of the management and token APIs as it
   * leaves, with the object `onRequest` was given for that request (a dropped connection has no
   * answer). It must not throw. It survives `restart()`.
   */
  onAnswer?: ((request: TenantApiRequest, status: number) => void) | undefined;
}

/** Credentials of a machine-to-machine client of the tenant. */
export interface ClientCredentials {
  /** The client's id. */
  clientId: string;
  /** The client's secret at start. */
  clientSecret: string;
  /** The scopes granted to it. */
  scopes: string[];
}

/** A running local tenant API. */
export interface TenantApi {
  /** `${domain}/api/v2`. */
  baseUrl: string;
  /** What a user puts in `tenant:domain`: the URL with scheme, e.g. `http://127.0.0.1:43123`. */
  domain: string;
  /** `${domain}/oauth/token`. */
  tokenUrl: string;
  /** `${domain}/api/v2/`: the audience to ask tokens for. */
  audience: string;
  /** The port listened on. */
  port: number;
  /** Name of the tenant. */
  tenant: string;
  /**
   * `${domain}/__tenant-api/console`: the page that shows the tenant and what a program did to
   * it, live, and edits it as a person would (docs/design/local-tenant.md, "The console").
   */
  consoleUrl: string;
  /** Id of the machine-to-machine client granted every scope. */
  clientId: string;
  /** Its secret at start. */
  clientSecret: string;
  /**
   * With `privateKeyJwt`: the private key (PKCS #8 PEM) whose public key is registered on it, to
   * sign client assertions with RS256.
   */
  clientAssertionPrivateKey?: string;
  /** Its scopes. */
  scopes: string[];
  /** The machine-to-machine client granted read scopes only. */
  readOnly: ClientCredentials;
  /** Ids of every seeded client, the machine-to-machine ones included, in seed order. */
  clients: string[];
  /** Ids of every seeded event stream. */
  eventStreams: string[];
  /** With TLS: the file holding the CA certificate clients must trust. */
  caFile?: string;
  /** With TLS: the CA certificate (PEM). */
  ca?: string;
  /** Read and write access to the tenant's state. */
  store: TenantStore;
  /** A snapshot of the request counters. */
  stats(): TenantApiStats;
  /** Sets the request counters back to zero, the background's included. */
  resetStats(): void;
  /** Replaces the fault settings (a string uses the CLI syntax; null turns faults off). */
  setFaults(faults: FaultOptions | string | null): ResolvedFaults;
  /** Replaces the rate limit (null turns it off) and refills the bucket. */
  setRateLimit(rateLimit: RateLimitOptions | null): void;
  /**
   * Replaces the background load (null ends it) and starts its schedule from now; throws
   * `CommandUsageError` for invalid settings, or `LocalTenantError` once stopped.
   */
  setBackgroundLoad(load: BackgroundLoadOptions | null): void;
  /** The background load's settings, or null when there is none. */
  backgroundLoad(): ResolvedBackgroundLoad | null;
  /** Signs a token without the token endpoint, e.g. expired, foreign-signed or with few scopes. */
  mintToken(options: MintOptions): Promise<string>;
  /** Closes the listener and listens again on the same port with the same state. */
  restart(): Promise<void>;
  /** Stops the server (and deletes the CA file); calling it again does nothing. */
  stop(): Promise<void>;
}

/**
 * A failure to listen, said in the user's terms: the port is taken, or the address is not one of
 * this machine's. Anything else keeps its own message.
 */
function listenError(error: unknown, port: number, host: string): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE") {
    return new LocalTenantError(
      `port ${port} on ${host} is in use; choose another port, or 0 for a free one`,
    );
  }
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EACCES") {
    return new LocalTenantError(`cannot listen on ${host}:${port} (${code})`);
  }
  return error as Error;
}

/** The host to put in URLs for a listening address. */
function urlHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * Builds the parts a server is made of (state, token authority, limiter, faults, counters) from
 * the options, without listening: `startTenantApi` uses it, and tests that need Fastify's
 * `inject` (a request from a non-loopback address, say) build an app around it with `buildApp`.
 */
export async function createServerContext(options: TenantApiOptions = {}): Promise<{
  context: ServerContext;
  seed: LoadedSeed;
  /** With `privateKeyJwt`: the admin client's private key. */
  clientAssertionPrivateKey: string | undefined;
  network: NetworkDelay | undefined;
}> {
  const clock = options.clock ?? Date.now;
  const tokenTtlSeconds = options.tokenTtlSeconds ?? 86400;
  if (!Number.isInteger(tokenTtlSeconds) || tokenTtlSeconds < 1) {
    throw new CommandUsageError(
      `tokenTtlSeconds must be a positive integer, got ${tokenTtlSeconds}`,
    );
  }
  const keyPair = options.privateKeyJwt === true ? newClientKeyPair("RS256") : undefined;
  const seed = loadSeed(options.seed, {
    extraClients: options.extraClients,
    adminKey: keyPair?.key,
  });
  const quirks = new TenantQuirks(clock, options.quirks);
  const patchModel = checkedPatchModel(options.patchModel);
  const rateLimit = options.rateLimit ?? null;
  const { perMinute } = quirks;
  if (perMinute !== undefined && rateLimit === null) {
    throw new CommandUsageError("quirks: per-minute needs a rate limit");
  }
  const bucket = new TokenBucket(
    clock,
    rateLimit === null || perMinute === undefined ? rateLimit : { ...rateLimit, perMinute },
  );
  const stats = new RequestStats();
  const network = networkDelayOf(options.networkDelay, options.random);
  const background = new BackgroundLoad(
    {
      bucket,
      stats,
      clock,
      timer: options.backgroundTimer,
      delay: network?.draw,
    },
    options.backgroundLoad ?? null,
  );
  const store = new TenantStore(seed.state);
  const context: ServerContext = {
    store,
    auth: await TokenAuthority.create(clock),
    bucket,
    background,
    faults: new FaultInjector(createRandom(options.random ?? randomInt(2 ** 31)), options.faults),
    quirks,
    patchModel,
    stats,
    monitor: new ConsoleMonitor({
      bucket,
      stats,
      clock,
      version: () => store.version,
      interval: options.consoleInterval,
    }),
    clock,
    assertionReplays: new AssertionReplayGuard(),
    tokenTtlSeconds,
    listenHost: options.host,
    onRequest: options.onRequest,
    onAnswer: options.onAnswer,
  };
  return { context, seed, clientAssertionPrivateKey: keyPair?.privateKeyPem, network };
}

/** Starts the local tenant API. */
export async function startTenantApi(options: TenantApiOptions = {}): Promise<TenantApi> {
  const { context, seed, clientAssertionPrivateKey, network } = await createServerContext(options);
  const { store } = context;
  const tls: TlsMaterial | undefined =
    options.tls === true ? await generateTlsMaterial() : undefined;
  const host = options.host ?? (tls === undefined ? "127.0.0.1" : "localhost");
  const serverTls = tls === undefined ? undefined : { key: tls.key, cert: tls.cert };
  // With a delay, the server listens on a free loopback port behind the relay, which takes the
  // address and port asked for.
  const appHost = network === undefined ? host : "127.0.0.1";
  let app: FastifyInstance = buildApp(context, serverTls);
  let relay: NetworkDelayRelay | undefined;
  try {
    await app.listen({ port: network === undefined ? (options.port ?? 0) : 0, host: appHost });
    if (network !== undefined) {
      const appPort = (app.server.address() as AddressInfo).port;
      relay = await startNetworkDelayRelay({
        host,
        port: options.port ?? 0,
        target: appPort,
        draw: network.draw,
      });
    }
  } catch (error) {
    await app.close();
    await tls?.dispose();
    throw listenError(error, options.port ?? 0, host);
  }
  const appPort = (app.server.address() as AddressInfo).port;
  const port = relay?.port ?? appPort;
  context.background.start();
  const domain = `${tls === undefined ? "http" : "https"}://${urlHost(host)}:${port}`;
  context.auth.setDomain(domain);

  const credentials = (clientId: string): ClientCredentials => {
    const client = store.getClient(clientId);
    return {
      clientId,
      clientSecret: String(client?.client_secret ?? ""),
      scopes: store.grantedScopes(clientId) ?? [],
    };
  };
  const admin = credentials(seed.adminClientId);
  let stopped: Promise<void> | undefined;

  const api: TenantApi = {
    baseUrl: `${domain}/api/v2`,
    domain,
    tokenUrl: `${domain}/oauth/token`,
    audience: context.auth.audience,
    port,
    tenant: store.tenant,
    consoleUrl: `${domain}${CONSOLE_PATH}`,
    clientId: admin.clientId,
    clientSecret: admin.clientSecret,
    scopes: admin.scopes,
    readOnly: credentials(seed.readOnlyClientId),
    clients: seed.state.clients.map((c) => c.client_id),
    eventStreams: seed.state.eventStreams.map((s) => s.id),
    store,
    stats: () => context.stats.snapshot(),
    resetStats: () => context.stats.reset(),
    setFaults: (faults) => {
      context.faults.configure(faults);
      return context.faults.current();
    },
    setRateLimit: (rateLimit) => context.bucket.configure(rateLimit),
    setBackgroundLoad: (load) => {
      if (stopped !== undefined) throw new LocalTenantError("the tenant API has been stopped");
      context.background.configure(load);
    },
    backgroundLoad: () => context.background.current(),
    mintToken: (mint) => context.auth.mint(mint),
    restart: async () => {
      if (stopped !== undefined) throw new Error("the tenant API has been stopped");
      await app.close();
      app = buildApp(context, serverTls);
      await app.listen({ port: appPort, host: appHost });
    },
    stop: () => {
      stopped ??= (async () => {
        context.background.stop();
        context.monitor.close();
        await relay?.close();
        await app.close();
        await tls?.dispose();
      })();
      return stopped;
    },
  };
  if (clientAssertionPrivateKey !== undefined) {
    api.clientAssertionPrivateKey = clientAssertionPrivateKey;
  }
  if (tls !== undefined) {
    api.caFile = tls.caFile;
    api.ca = tls.ca;
  }
  return api;
}
