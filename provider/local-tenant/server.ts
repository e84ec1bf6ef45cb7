/**
 * `startTenantApi`: starts the local tenant API on a real socket and hands back what a test needs
 * to use it (URLs, credentials, seeded ids) and to steer it (counters, faults, rate limit, state,
 * restart, stop); what it takes and hands back is `tenant-api.ts`.
 */

import { randomInt } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { CommandUsageError, LocalTenantError } from "../errors.js";
import { buildApp } from "./app.js";
import { TokenAuthority } from "./auth.js";
import { BackgroundLoad } from "./background-load.js";
import { AssertionReplayGuard, newClientKeyPair } from "./client-keys.js";
import { checkedPatchModel } from "./client-patch.js";
import { ConsoleMonitor } from "./console/monitor.js";
import { CONSOLE_PATH } from "./console/shared.js";
import type { ServerContext } from "./context.js";
import { createRandom, FaultInjector } from "./faults.js";
import {
  type NetworkDelay,
  type NetworkDelayRelay,
  networkDelayOf,
  startNetworkDelayRelay,
} from "./network-delay.js";
import { TenantQuirks } from "./quirks.js";
import { TokenBucket } from "./rate-limit.js";
import { type LoadedSeed, loadSeed } from "./seed.js";
import { RequestStats } from "./stats.js";
import { TenantStore } from "./store.js";
import type { ClientCredentials, TenantApi, TenantApiOptions } from "./tenant-api.js";
import { generateTlsMaterial, type TlsMaterial } from "./tls.js";

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
