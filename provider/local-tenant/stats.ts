/**
 * Request counting, so a test can assert how the provider used the API ("preview made 0 API
 * calls", "one PATCH and no PUT"), and, apart, what the tenant's other callers met
 * (docs/design/local-tenant.md, "Background load"): "the deployment left production without a 429".
 */

/**
 * The requests of the background load (the tenant's other callers), apart from the program's:
 * every one took a token from the management API's bucket, or was refused with 429.
 */
export interface BackgroundStats {
  /** Requests made: `allowed + refused`. */
  total: number;
  /** Requests the bucket let through. */
  allowed: number;
  /** Requests refused with 429 because the bucket was empty: what a deployment did to production. */
  refused: number;
}

/** A snapshot of the counters. Every map is a plain object, ready for JSON. */
export interface TenantApiStats {
  /** Every counted request (everything but `/__tenant-api/*`). */
  total: number;
  /** Requests to the management API (`/api/v2/*`). */
  api: number;
  /** Requests to the token endpoint (`/oauth/token`). */
  token: number;
  /** Connections closed without an answer by fault injection. */
  dropped: number;
  /** Count per `"METHOD /route/:template STATUS"`, e.g. `"PATCH /api/v2/clients/:id 200"`. */
  counts: Record<string, number>;
  /** Count per `"METHOD /route/:template"`, whatever the status. */
  byRoute: Record<string, number>;
  /** Count per status (`"200"`, `"429"`, `"dropped"`). */
  byStatus: Record<string, number>;
  /**
   * The background load's requests, which none of the counters above includes; all zero without
   * a background load.
   */
  background: BackgroundStats;
  /**
   * The lowest level the management API's bucket reached, in tokens (fractions kept), just after a
   * request of anyone (the program's or the background's) took one; null without a rate limit or
   * before the first request. What a run left production at worst: a run that keeps a reserve of
   * 5 tokens should leave it near 5 (docs/design/local-tenant.md, "Background load").
   */
  bucketLowest: number | null;
}

/** The counters behind {@link TenantApiStats}. */
export class RequestStats {
  private data: TenantApiStats = RequestStats.empty();
  /**
   * Told of each background request as it is counted, while a console page is open (the console
   * sets it and clears it: `console/monitor.ts`); undefined otherwise, so that it costs nothing.
   */
  onBackground: ((allowed: boolean) => void) | undefined;

  private static empty(): TenantApiStats {
    return {
      total: 0,
      api: 0,
      token: 0,
      dropped: 0,
      counts: {},
      byRoute: {},
      byStatus: {},
      background: { total: 0, allowed: 0, refused: 0 },
      bucketLowest: null,
    };
  }

  /**
   * Counts one request. `route` is the route template (`/api/v2/clients/:id`) so that ids do not
   * multiply the keys; for a path that matches no route it is the path itself.
   */
  record(method: string, route: string, status: number | "dropped"): void {
    const data = this.data;
    const byRoute = `${method} ${route}`;
    const key = `${byRoute} ${status}`;
    data.total += 1;
    if (route.startsWith("/api/v2/") || route === "/api/v2") data.api += 1;
    if (route === "/oauth/token") data.token += 1;
    if (status === "dropped") data.dropped += 1;
    data.counts[key] = (data.counts[key] ?? 0) + 1;
    data.byRoute[byRoute] = (data.byRoute[byRoute] ?? 0) + 1;
    data.byStatus[String(status)] = (data.byStatus[String(status)] ?? 0) + 1;
  }

  /** Counts one request of the background load, let through by the bucket or refused with 429. */
  recordBackground(allowed: boolean): void {
    const background = this.data.background;
    background.total += 1;
    if (allowed) background.allowed += 1;
    else background.refused += 1;
    this.onBackground?.(allowed);
  }

  /** Notes the bucket's level after a request took from it (null: no rate limit, nothing to note). */
  recordLevel(level: number | null): void {
    if (level === null) return;
    const lowest = this.data.bucketLowest;
    if (lowest === null || level < lowest) this.data.bucketLowest = level;
  }

  /** A copy of the counters, unaffected by later requests. */
  snapshot(): TenantApiStats {
    const data = this.data;
    return {
      ...data,
      counts: { ...data.counts },
      byRoute: { ...data.byRoute },
      byStatus: { ...data.byStatus },
      background: { ...data.background },
    };
  }

  /** Sets every counter back to zero. */
  reset(): void {
    this.data = RequestStats.empty();
  }
}
