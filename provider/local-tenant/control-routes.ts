/**
 * Routes for tests driving the server from another process (the CLI): counters, faults, rate
 * limit, background load and state under `/__tenant-api/`. They answer loopback clients only (checked in the
 * onRequest hook), are never counted, never limited and never faulted.
 */

import type { FastifyInstance } from "fastify";
import type { BackgroundLoadOptions } from "./background-load.js";
import type { ServerContext } from "./context.js";
import { ApiError } from "./errors.js";
import type { FaultOptions } from "./faults.js";
import type { RateLimitOptions } from "./rate-limit.js";

/** Prefix of the control routes. */
const CONTROL_PREFIX = "/__tenant-api";

function badRequest(error: unknown): ApiError {
  return new ApiError(400, "invalid_body", (error as Error).message);
}

/** Registers the control routes. */
export function registerControlRoutes(app: FastifyInstance, context: ServerContext): void {
  const { stats, faults, bucket, background, store } = context;

  app.get(`${CONTROL_PREFIX}/stats`, async () => stats.snapshot());
  app.delete(`${CONTROL_PREFIX}/stats`, async (_request, reply) => {
    stats.reset();
    return reply.code(204).send();
  });

  app.get(`${CONTROL_PREFIX}/faults`, async () => faults.current());
  // Body: `{"spec": "error=0.2,drop=0.05,latency=0-300"}` or `{"error": 0.2, "latency": {...}}`.
  app.post<{ Body: FaultOptions & { spec?: string } }>(
    `${CONTROL_PREFIX}/faults`,
    async (request) => {
      const body = request.body ?? {};
      try {
        faults.configure(typeof body.spec === "string" ? body.spec : body);
      } catch (error) {
        throw badRequest(error);
      }
      return faults.current();
    },
  );

  app.get(`${CONTROL_PREFIX}/rate-limit`, async () => ({ rateLimit: bucket.current() }));
  // Body: `{"rate": 2, "burst": 10}`, or `null` / `{}` to turn limiting off.
  app.post<{ Body: Partial<RateLimitOptions> | null }>(
    `${CONTROL_PREFIX}/rate-limit`,
    async (request) => {
      const body = request.body;
      try {
        const rate = body?.rate;
        bucket.configure(rate === undefined ? null : { rate, burst: body?.burst });
      } catch (error) {
        throw badRequest(error);
      }
      return { rateLimit: bucket.current() };
    },
  );

  app.get(`${CONTROL_PREFIX}/background-load`, async () => ({
    backgroundLoad: background.current(),
  }));
  // Body: `{"rate": 3, "burst": 1}`, or `null` / `{}` to end the background load. The schedule
  // starts again from now; the counters (in the stats) are left as they are.
  app.post<{ Body: Partial<BackgroundLoadOptions> | null }>(
    `${CONTROL_PREFIX}/background-load`,
    async (request) => {
      const body = request.body;
      try {
        const rate = body?.rate;
        background.configure(rate === undefined ? null : { rate, burst: body?.burst });
      } catch (error) {
        throw badRequest(error);
      }
      return { backgroundLoad: background.current() };
    },
  );

  app.get(`${CONTROL_PREFIX}/state`, async () => store.snapshot());
  app.post(`${CONTROL_PREFIX}/reset`, async (_request, reply) => {
    store.reset();
    return reply.code(204).send();
  });
}
