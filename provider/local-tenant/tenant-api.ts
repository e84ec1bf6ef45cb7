/**
 * What a local tenant API takes and hands back: the options it starts with (the command line's
 * and `startLocalTenant`'s alike) and the running tenant a test uses and steers (its URLs,
 * credentials and seeded ids; its counters, faults, rate limit, state, restart and stop).
 *
 * @module
 */

import type { MintOptions } from "./auth.js";
import type {
  BackgroundLoadOptions,
  BackgroundTimer,
  ResolvedBackgroundLoad,
} from "./background-load.js";
import type { PatchModel } from "./client-patch.js";
import type { IntervalTimer } from "./console/monitor.js";
import type { TenantApiRequest } from "./context.js";
import type { FaultOptions, ResolvedFaults } from "./faults.js";
import type { NetworkDelayOptions } from "./network-delay.js";
import type { QuirkOptions } from "./quirks.js";
import type { RateLimitOptions } from "./rate-limit.js";
import type { TenantSeed } from "./seed.js";
import type { TenantApiStats } from "./stats.js";
import type { TenantStore } from "./store.js";

/** Options of `startTenantApi` (server.ts) and of the command line; every one is optional. */
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
