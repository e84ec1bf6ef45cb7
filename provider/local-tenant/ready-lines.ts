/**
 * What `pulumi-tenant local-tenant` says once the tenant listens and when it stops: the JSON line
 * on stdout for programs (domain, credentials, seeded ids; docs/design/local-tenant.md), the line
 * on stderr for a person, the warning of a tenant beyond loopback, and the summary of a background
 * load.
 *
 * @module
 */

import { isLoopback } from "./context.js";
import type { TenantApi } from "./tenant-api.js";

/** The line printed on stdout once the server listens; `consoleUrl` first, for a person reading it. */
export interface CliReadyLine {
  /** The console: a page that shows the tenant and the requests live (docs/design/local-tenant.md). */
  consoleUrl: string;
  /** `${domain}/api/v2`. */
  baseUrl: string;
  /** What a user puts in `tenant:domain`. */
  domain: string;
  /** The token endpoint. */
  tokenUrl: string;
  /** The audience to ask tokens for. */
  audience: string;
  /** Id of the machine-to-machine client granted every scope. */
  clientId: string;
  /** Its secret. */
  clientSecret: string;
  /** Its scopes. */
  scopes: string[];
  /** The read-only machine-to-machine client. */
  readOnly: { clientId: string; clientSecret: string; scopes: string[] };
  /**
   * Ids of the tenant's clients, the first {@link LISTED_CLIENTS} of them: `--clients 2000` would
   * make the line 70 KB (`GET /api/v2/clients` lists them all).
   */
  clients: string[];
  /** How many clients the tenant has, listed or not. */
  clientCount: number;
  /** Ids of the seeded event streams. */
  eventStreams: string[];
  /** Name of the tenant. */
  tenant: string;
  /** The counters, from outside (loopback only). */
  statsUrl: string;
  /** With `--tls`: the CA certificate file to trust. */
  caFile?: string;
  /** Process id, to signal the server. */
  pid: number;
}

/** The client ids the ready line lists at most. */
const LISTED_CLIENTS = 20;

/** The JSON line describing a running server. */
export function readyLine(api: TenantApi): CliReadyLine {
  const line: CliReadyLine = {
    consoleUrl: api.consoleUrl,
    baseUrl: api.baseUrl,
    domain: api.domain,
    tokenUrl: api.tokenUrl,
    audience: api.audience,
    clientId: api.clientId,
    clientSecret: api.clientSecret,
    scopes: api.scopes,
    readOnly: api.readOnly,
    clients: api.clients.slice(0, LISTED_CLIENTS),
    clientCount: api.clients.length,
    eventStreams: api.eventStreams,
    tenant: api.tenant,
    statsUrl: `${api.domain}/__tenant-api/stats`,
    pid: process.pid,
  };
  if (api.caFile !== undefined) line.caFile = api.caFile;
  return line;
}

/**
 * The line for a person, on stderr once the server listens (stdout has the JSON line for
 * programs): where the tenant is, its console, what it holds, how to stop it.
 */
export function readableLine(
  api: Pick<TenantApi, "domain" | "consoleUrl" | "tenant" | "clients" | "caFile">,
): string {
  const trust =
    api.caFile === undefined ? "" : `; trust its CA with NODE_EXTRA_CA_CERTS=${api.caFile}`;
  return (
    `pulumi-tenant local-tenant: tenant ${api.tenant} at ${api.domain} with ` +
    `${api.clients.length === 1 ? "1 client" : `${api.clients.length} clients`}; console ` +
    `${api.consoleUrl}${trust}; stop with Ctrl-C\n`
  );
}

/**
 * The line written on stderr at stop when a background load ran, so that a pipeline's log says
 * what the run did to the tenant's other callers; undefined without a background load.
 *
 * @example
 * ```
 * pulumi-tenant local-tenant: background load 3/s: 71 requests, 0 refused with 429 (the
 * program's: 412 API requests, 3 refused with 429)
 * ```
 */
export function backgroundSummary(
  api: Pick<TenantApi, "stats" | "backgroundLoad">,
): string | undefined {
  const load = api.backgroundLoad();
  if (load === null) return undefined;
  const { background, api: programRequests, byStatus } = api.stats();
  const burst = load.burst === 1 ? "" : `, ${load.burst} at a time`;
  return (
    `pulumi-tenant local-tenant: background load ${load.rate}/s${burst}: ` +
    `${background.total} requests, ${background.refused} refused with 429 ` +
    `(the program's: ${programRequests} API requests, ${byStatus["429"] ?? 0} refused with 429)\n`
  );
}

/**
 * The line written on stderr when the tenant listens beyond loopback (`--host` another address or
 * name), so that nobody leaves it reachable from other machines without knowing; undefined on
 * loopback. Beyond loopback, the management API and the console answer others only with a token,
 * the other control routes not at all (docs/design/local-tenant.md, "The console").
 *
 * @internal
 */
export function beyondLoopbackWarning(host: string | undefined): string | undefined {
  if (host === undefined || host.toLowerCase() === "localhost" || isLoopback(host)) {
    return undefined;
  }
  return (
    `pulumi-tenant local-tenant: warning: listening on ${host}, beyond loopback: other machines ` +
    "can reach this tenant (its console and management API answer them with a token only)\n"
  );
}
