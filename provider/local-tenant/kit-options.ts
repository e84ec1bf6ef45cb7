/**
 * The options of the testing kit's `startLocalTenant` (provider/testing.ts), and how they become
 * the local tenant API's own: the kit's contract with a user's tests, checked here before the
 * server (and Fastify) loads, so that a mistyped option fails with a sentence naming it.
 *
 * @module
 */

import { CommandUsageError } from "../errors.js";
import type { BackgroundLoadOptions } from "./background-load.js";
import type { PatchModel } from "./client-patch.js";
import type { FaultOptions } from "./faults.js";
import type { NetworkDelayOptions } from "./network-delay.js";
import type { QuirkOptions } from "./quirks.js";
import type { RateLimitOptions } from "./rate-limit.js";
import type { TenantSeed } from "./seed.js";
import type { TenantApiOptions } from "./tenant-api.js";

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

/**
 * The local tenant API's options for the kit's `options`, or a {@link CommandUsageError} naming
 * an unknown option or a bad port.
 */
export function kitApiOptions(options: LocalTenantOptions): TenantApiOptions {
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
