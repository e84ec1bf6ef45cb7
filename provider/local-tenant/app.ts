/**
 * The Fastify application: hooks that apply faults, the rate limit and authentication in the
 * platform's order, counting of every answer, and one error shape for every failure, Fastify's own
 * included. Routes live in `management-routes.ts`, `oauth-routes.ts` and `control-routes.ts`.
 */

import { setTimeout as delay } from "node:timers/promises";
import formbody from "@fastify/formbody";
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from "fastify";
import { isConsoleEdit, isConsolePath, registerConsoleRoutes } from "./console/routes.js";
import { CONSOLE_PATH } from "./console/shared.js";
import {
  type Area,
  areaOfRequest,
  isLoopback,
  pathOf,
  requestTargetProblem,
  type ServerContext,
  setPrincipal,
  type TenantApiRequest,
} from "./context.js";
import { registerControlRoutes } from "./control-routes.js";
import { ApiError, defaultErrorCode, OAuthError, reasonPhrase } from "./errors.js";
import { isServedPath, registerManagementRoutes } from "./management-routes.js";
import { registerOAuthRoutes } from "./oauth-routes.js";
import { foreignPlaceError } from "./origin.js";

/** When each request arrived (`performance.now()`), kept only while a console page is open. */
const arrivedAt = new WeakMap<FastifyRequest, number>();

/** What `onRequest` was told of each request, so that `onAnswer` tells of the same object. */
const toldOf = new WeakMap<FastifyRequest, TenantApiRequest>();

/** The route template of a request, or its path when no route matched (for the counters). */
function routeOf(request: FastifyRequest): string {
  return request.routeOptions.url ?? pathOf(request.url);
}

/**
 * The API a request belongs to, judged on the route the router matched, not on how its path is
 * spelled (`areaOfRequest`): the guard of the control routes must see the route that answers.
 */
function areaOfThe(request: FastifyRequest): Area {
  return areaOfRequest(request.url, request.routeOptions.url);
}

/**
 * Tells the console's monitor of an answered request (it keeps nothing while no console page is
 * open): the program's, or a person's edit on the console.
 */
function logRequest(
  context: ServerContext,
  request: FastifyRequest,
  status: number | "dropped",
  caller: "program" | "console" = "program",
): void {
  if (!context.monitor.active) return;
  const arrived = arrivedAt.get(request);
  const ms = arrived === undefined ? 0 : performance.now() - arrived;
  context.monitor.request({
    method: request.method,
    path: pathOf(request.url),
    status,
    caller,
    ms,
  });
}

/** TLS material for an HTTPS server. */
export interface TlsOptions {
  /** Private key (PEM). */
  key: string;
  /** Certificate chain (PEM). */
  cert: string;
}

/**
 * Answers, in the API's error shape, a failure the router meets before any route or hook (an
 * undecodable path, an overlong id), which would otherwise come out in Fastify's own shape. Such
 * a failure skips the hooks, so it is counted here.
 */
function answerFrameworkError(
  context: ServerContext,
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const statusCode = error.statusCode ?? 400;
  const message =
    error.code === "FST_ERR_MAX_PARAM_LENGTH"
      ? "Path validation error: a path parameter is longer than 1000 characters"
      : "Path validation error: the path is not a valid URL";
  context.stats.record(request.method, pathOf(request.url).slice(0, 200), statusCode);
  reply.code(statusCode).send(new ApiError(statusCode, "invalid_uri", message).toBody());
}

/**
 * An empty JSON body is no body, as for a request without content type: clients that always send
 * `content-type: application/json` (a DELETE included) must not get a 400 for it.
 */
function acceptEmptyJsonBodies(app: FastifyInstance): void {
  const defaultJsonParser = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") {
      done(null, undefined);
      return;
    }
    defaultJsonParser(request, text, done);
  });
}

/**
 * The error an injected fault answers with (docs/design/local-tenant.md), in the shape of the area it
 * hits: the OAuth shape on the token route, the API's elsewhere.
 */
function injectedFaultError(
  area: TenantApiRequest["area"],
  errorStatus: number,
): ApiError | OAuthError {
  const unavailable = errorStatus === 503;
  const message = unavailable
    ? "Service temporarily unavailable (injected fault)"
    : "Internal error (injected fault)";
  if (area === "authentication") {
    return new OAuthError(
      errorStatus,
      unavailable ? "temporarily_unavailable" : "server_error",
      message,
    );
  }
  return new ApiError(errorStatus, unavailable ? "service_unavailable" : "internal_error", message);
}

/**
 * Takes a token from the bucket the request draws on (the management API's, or a quirk's write
 * bucket), saying so in the headers as the quirks have them; 429 when empty.
 */
function takeRateLimit(context: ServerContext, request: FastifyRequest, reply: FastifyReply): void {
  const { quirks } = context;
  const decision = (quirks.bucketOf(request.method, routeOf(request)) ?? context.bucket).take();
  context.stats.recordLevel(context.bucket.level());
  for (const [name, value] of quirks.headersOf(decision)) reply.header(name, value);
  if (!decision.allowed) {
    throw new ApiError(429, "too_many_requests", "Global limit has been reached", {
      "retry-after": quirks.retryAfter(decision),
    });
  }
}

/**
 * What happens before any route, in the platform's order: a target that is not a plain path where
 * the guard needs one is refused (`requestTargetProblem`); the control routes, known by the route
 * matched whatever the path's spelling, answer requests made
 * to this server's own address from its own origin (`origin.ts`), and loopback clients only but
 * for the console's; otherwise the request is told of, the next fault applies (latency, a dropped
 * connection), the rate limit, an injected error, then authentication.
 */
async function beforeRoute(
  context: ServerContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply | undefined> {
  if (context.monitor.active) arrivedAt.set(request, performance.now());
  const problem = requestTargetProblem(request.url);
  if (problem !== undefined) throw new ApiError(400, "invalid_uri", problem);
  const area = areaOfThe(request);
  if (area === "control") {
    const foreign = foreignPlaceError({
      host: request.headers.host,
      origin: request.headers.origin,
      protocol: request.protocol,
      localAddress: request.socket.localAddress,
      listenHost: context.listenHost,
    });
    if (foreign !== undefined) throw foreign;
    // The console answers wherever the server listens; its routes check their caller themselves.
    if (!isLoopback(request.socket.remoteAddress) && !isConsolePath(routeOf(request))) {
      throw new ApiError(403, "forbidden", "The control routes answer loopback clients only");
    }
    return undefined;
  }
  const told: TenantApiRequest = {
    method: request.method,
    route: routeOf(request),
    path: pathOf(request.url),
    area,
  };
  toldOf.set(request, told);
  context.onRequest?.(told);
  const plan = context.faults.next();
  if (plan.latencyMs > 0) await delay(plan.latencyMs);
  if (plan.drop) {
    context.stats.record(request.method, routeOf(request), "dropped");
    logRequest(context, request, "dropped");
    reply.hijack();
    request.raw.socket.destroy();
    return reply;
  }
  const date = context.quirks.date();
  if (date !== undefined) reply.header("date", date);
  if (area === "management") {
    const gateway = context.quirks.gateway();
    if (gateway !== undefined) {
      // A gateway in front of the tenant answered: nothing applied, no token, no headers.
      reply.code(gateway.status).type("text/html").send(gateway.body);
      return reply;
    }
    takeRateLimit(context, request, reply);
  }
  if (plan.errorStatus !== 0) throw injectedFaultError(area, plan.errorStatus);
  // Only matched routes are authenticated: an unknown path answers 404 or 501 whatever the token.
  if (area === "management" && request.routeOptions.url !== undefined) {
    setPrincipal(request, await context.auth.verify(request.headers.authorization));
  }
  return undefined;
}

/**
 * One error shape for every failure, Fastify's own included: the OAuth shape on the token route,
 * the API's elsewhere; an unexpected failure of this server is a 500 and is written to stderr.
 */
function answerError(
  error: FastifyError | ApiError | OAuthError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  if (error instanceof ApiError) {
    reply.headers(error.headers).code(error.statusCode).send(error.toBody());
    return;
  }
  if (error instanceof OAuthError) {
    reply.code(error.statusCode).send(error.toBody());
    return;
  }
  const given = error.statusCode;
  const statusCode = given !== undefined && given >= 400 && given < 600 ? given : 500;
  if (statusCode >= 500) {
    // An unexpected failure of this server: say so where a developer will look.
    process.stderr.write(`tenant-api: ${request.method} ${request.url}: ${error.stack ?? error}\n`);
  }
  const message = statusCode >= 500 ? "Internal error" : error.message;
  if (areaOfThe(request) === "authentication") {
    const oauth = new OAuthError(
      statusCode,
      statusCode >= 500 ? "server_error" : "invalid_request",
      message,
    );
    reply.code(statusCode).send(oauth.toBody());
    return;
  }
  reply
    .code(statusCode)
    .send(new ApiError(statusCode, defaultErrorCode(statusCode), message).toBody());
}

/**
 * A request no route matched: 501 naming it for a management route the local tenant does not
 * serve, 404 for a path outside the API or a method a served route lacks (docs/design/local-tenant.md).
 */
function answerNotFound(request: FastifyRequest, reply: FastifyReply): void {
  const path = pathOf(request.url);
  if (areaOfThe(request) === "management" && !isServedPath(path)) {
    reply.code(501).send({
      statusCode: 501,
      error: reasonPhrase(501),
      message:
        `the local tenant does not serve ${request.method} ${path}: it serves only what ` +
        "pulumi-tenant calls (the clients, the event streams and the push provider selection)",
      errorCode: "not_implemented",
    });
    return;
  }
  // The root is where a person lands from the printed domain: point at what is there.
  const pointer =
    path === "/" ? `; the management API is under /api/v2, the console at ${CONSOLE_PATH}` : "";
  reply.code(404).send({
    statusCode: 404,
    error: reasonPhrase(404),
    message: `Route ${request.method}:${path} not found${pointer}`,
    errorCode: "not_found",
  });
}

/** Builds the application (not listening yet) around a shared context. */
export function buildApp(context: ServerContext, tls?: TlsOptions): FastifyInstance {
  const common = {
    logger: false,
    // A restart or stop must not wait for the keep-alive connections of the clients under test.
    forceCloseConnections: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) =>
      answerFrameworkError(context, error, request, reply),
  };
  // Fastify types an HTTPS instance apart from an HTTP one although the routes and hooks used here
  // are the same; this file only needs the common surface.
  const app = (tls === undefined
    ? Fastify(common)
    : Fastify({ ...common, https: tls })) as unknown as FastifyInstance;

  app.register(formbody);
  acceptEmptyJsonBodies(app);
  app.addHook("onRequest", (request, reply) => beforeRoute(context, request, reply));
  // Counted when the answer is about to leave, not when it has left: a test that reads the counters
  // right after its response arrived must see that response counted.
  app.addHook("onSend", async (request, reply, payload) => {
    if (areaOfThe(request) !== "control") {
      context.stats.record(request.method, routeOf(request), reply.statusCode);
      const told = toldOf.get(request);
      if (told !== undefined) context.onAnswer?.(told, reply.statusCode);
      logRequest(context, request, reply.statusCode);
      return context.quirks.page(routeOf(request), reply.statusCode, payload);
    } else if (isConsoleEdit(request.method, routeOf(request))) {
      logRequest(context, request, reply.statusCode, "console");
    }
    return payload;
  });
  app.setErrorHandler(answerError);
  app.setNotFoundHandler(answerNotFound);

  registerManagementRoutes(app, context);
  registerOAuthRoutes(app, context);
  registerControlRoutes(app, context);
  registerConsoleRoutes(app, context);
  return app;
}
