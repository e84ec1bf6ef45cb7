/**
 * What the routes and hooks share: the server's parts, which outlive one Fastify instance across
 * restarts, the verified caller of each request, and the classification of paths.
 */

import type { FastifyRequest } from "fastify";
import type { Principal, TokenAuthority } from "./auth.js";
import type { BackgroundLoad } from "./background-load.js";
import type { AssertionReplayGuard } from "./client-keys.js";
import type { PatchModel } from "./client-patch.js";
import type { ConsoleMonitor } from "./console/monitor.js";
import { CONSOLE_PATH } from "./console/shared.js";
import type { FaultInjector } from "./faults.js";
import type { TenantQuirks } from "./quirks.js";
import type { TokenBucket } from "./rate-limit.js";
import type { RequestStats } from "./stats.js";
import type { TenantStore } from "./store.js";

/** Everything the routes share; it outlives one Fastify instance across restarts. */
export interface ServerContext {
  /** The tenant's state. */
  store: TenantStore;
  /** Issues and verifies tokens. */
  auth: TokenAuthority;
  /** The management API's rate limit. */
  bucket: TokenBucket;
  /** The tenant's other callers, taking from `bucket` (started by `startTenantApi`). */
  background: BackgroundLoad;
  /** Fault injection. */
  faults: FaultInjector;
  /** How it answers as a tenant we did not write (`quirks.ts`); none by default. */
  quirks: TenantQuirks;
  /** How a client PATCH applies where the recordings leave a path undecided (`client-patch.ts`). */
  patchModel: PatchModel;
  /** Request counters. */
  stats: RequestStats;
  /** What the console shows over time; records nothing while no console page is open. */
  monitor: ConsoleMonitor;
  /** The tenant's clock, in milliseconds since the epoch. */
  clock: () => number;
  /** The client assertions' `jti`s already accepted: each is accepted once. */
  assertionReplays: AssertionReplayGuard;
  /** Lifetime of the tokens the token endpoint issues, in seconds. */
  tokenTtlSeconds: number;
  /**
   * The address the server was told to listen on (`TenantApiOptions.host`), when it was given one:
   * a name there is the server's own in a request's `Host` (`origin.ts`).
   */
  listenHost?: string | undefined;
  /** Told of every request as it arrives (`TenantApiOptions.onRequest`). */
  onRequest?: ((request: TenantApiRequest) => void) | undefined;
  /** Told of every answer as it leaves (`TenantApiOptions.onAnswer`). */
  onAnswer?: ((request: TenantApiRequest, status: number) => void) | undefined;
}

/** A request as {@link ServerContext.onRequest} is told of it. */
export interface TenantApiRequest {
  method: string;
  /** The route template (`/api/v2/clients/:id`), or the path when no route matched. */
  route: string;
  /** The path, without the query. */
  path: string;
  area: Exclude<Area, "control">;
}

/** Which API a path belongs to; each has its own error shape, limits and faults. */
export type Area = "management" | "authentication" | "control" | "other";

/** The path of a request URL, without its query. */
export function pathOf(url: string): string {
  const query = url.indexOf("?");
  return query < 0 ? url : url.slice(0, query);
}

/** The prefix of the control routes, the console's included. */
const CONTROL_PREFIX = "/__tenant-api";

/** The escapes of a path decoded, or undefined when one is not valid UTF-8 percent-encoding. */
function decodedPath(path: string): string | undefined {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
}

/**
 * A path as the most lenient reader could take it: escapes decoded (when they decode),
 * backslashes read as slashes, empty and dot segments resolved, in lower case.
 */
function leniently(path: string): string {
  const resolved: string[] = [];
  for (const segment of (decodedPath(path) ?? path).replace(/\\/g, "/").split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") resolved.pop();
    else resolved.push(segment);
  }
  return `/${resolved.join("/")}`.toLowerCase();
}

/** Whether `path` is `prefix` or begins with `prefix/`. */
function isUnder(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * Whether a path could be read as one under the control routes by some reader: its lenient form
 * ({@link leniently}) is under their prefix.
 */
function mentionsControl(path: string): boolean {
  return isUnder(leniently(path), CONTROL_PREFIX);
}

/** Whether every segment but a trailing slash's has something, and none is `.` or `..`. */
function hasPlainSegments(path: string): boolean {
  const segments = path.split("/").slice(1);
  return segments.every(
    (segment, index) =>
      segment !== "." &&
      segment !== ".." &&
      // One trailing slash leaves an empty last segment, which the router ignores.
      (segment !== "" || index === segments.length - 1),
  );
}

/**
 * Whether a path toward the control routes is written plainly: the control prefix, and the
 * console's when the path is the console's, spelled as they are (no escape, no case changed), and
 * no backslash, no empty segment, no dot segment, as sent or decoded. Past the prefixes an escape
 * is taken (a client id the console shows may need one): the route matched is the same whatever
 * the spelling there, and the guard judges that route.
 */
function isPlainControlPath(path: string): boolean {
  const decoded = decodedPath(path);
  if (decoded === undefined || !isUnder(path, CONTROL_PREFIX)) return false;
  if (isUnder(leniently(path), CONSOLE_PATH.toLowerCase()) && !isUnder(path, CONSOLE_PATH)) {
    return false;
  }
  return [path, decoded].every((form) => !form.includes("\\") && hasPlainSegments(form));
}

/**
 * Why a request target is refused before routing, or undefined when it is routed
 * (docs/design/local-tenant.md, "Who may use it"). The router decodes escapes and takes an absolute-form
 * target's path, so a guard that read the raw target would see another path than the route that
 * answers: a target must be a path (origin-form), and a path that reaches toward the control
 * routes must be written plainly ({@link isPlainControlPath}). The management API's paths may hold
 * escapes, as on the platform.
 */
export function requestTargetProblem(url: string): string | undefined {
  if (!url.startsWith("/") || url.startsWith("//")) {
    return "Path validation error: the request target must be a path beginning with a single /";
  }
  const path = pathOf(url);
  if (mentionsControl(path) && !isPlainControlPath(path)) {
    return (
      "Path validation error: a path of the local tenant's control routes must be written " +
      "plainly: their prefix without escapes, no empty or dot segments, no backslashes"
    );
  }
  return undefined;
}

/**
 * The API a request belongs to, as its guard and counters must judge it: the area of the route
 * the router matched, whatever the spelling of the path that reached it; with no route matched,
 * the control area for a path that reaches toward it (nothing there answers, and nothing of it is
 * counted), the raw path's area otherwise.
 */
export function areaOfRequest(url: string, route: string | undefined): Area {
  if (route !== undefined) return areaOf(route);
  return mentionsControl(pathOf(url)) ? "control" : areaOf(url);
}

/** The API a path belongs to. */
export function areaOf(url: string): Area {
  const path = pathOf(url);
  if (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`)) return "control";
  if (path === "/api/v2" || path.startsWith("/api/v2/")) return "management";
  if (path.startsWith("/oauth/") || path.startsWith("/.well-known/")) return "authentication";
  return "other";
}

/** Whether a socket address is a loopback address (IPv4, IPv6, or IPv4 mapped in IPv6). */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  return address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
}

const principals = new WeakMap<FastifyRequest, Principal>();

/**
 * The verified caller of a management API request. The onRequest hook verifies the token of every
 * management route before its handler runs, so a missing principal is a bug of this server.
 */
export function principalOf(request: FastifyRequest): Principal {
  const principal = principals.get(request);
  if (principal === undefined) throw new Error("no verified principal for this request");
  return principal;
}

/** Records the verified caller of a request (done by the onRequest hook). */
export function setPrincipal(request: FastifyRequest, principal: Principal): void {
  principals.set(request, principal);
}
