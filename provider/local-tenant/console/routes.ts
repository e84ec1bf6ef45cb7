/**
 * The console's routes under `/__tenant-api/console` (docs/design/local-tenant.md, "The console"): the
 * page and its script and style (served from the package: the page loads nothing from elsewhere),
 * the server-sent events that keep it live, what it reads (clients, the tenant) with secrets
 * hidden, and the two edits a person makes on it, which go through the management API's own
 * checks (`updateClient`, `selectProvider`) so that they get the API's answers, its 400s included.
 *
 * Who may use them: every control route answers only at the server's own address and from its
 * own origin (`origin.ts`, checked in app.ts before any route), so a page of another site cannot
 * reach them, by a rebound name or otherwise. From loopback they need no token (the person at the
 * machine, as the other control routes). From any other address, every route that shows or changes
 * the tenant needs the same bearer token as the management API: reads with the scopes of what the
 * console shows ({@link CONSOLE_READ_SCOPES}), edits with the write's. Only the page, its script
 * and its style answer without one: they hold nothing of the tenant, and a browser's navigation
 * cannot carry a token.
 */

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { LocalTenantError } from "../../errors.js";
import { ADDON_KEY_MATERIAL } from "../../generate/fields.js";
import { isPlainObject } from "../../json.js";
import { PUSH_PROVIDERS } from "../../schema/index.js";
import { type Principal, requireScope } from "../auth.js";
import { clientAsAnswered, KEY_MATERIAL_FIELDS, type WireClient } from "../clients.js";
import { isLoopback, type ServerContext } from "../context.js";
import { ApiError } from "../errors.js";
import { patchRulesOf, selectProvider, updateClient } from "../management-routes.js";
import { bucketInfo } from "./monitor.js";
import { CONSOLE_CSS, CONSOLE_HTML } from "./page.js";
import {
  type ClientList,
  CONSOLE_PATH,
  EDITABLE_FIELDS,
  formatEvent,
  type Hello,
  type ShownClient,
  type TenantView,
  type Tick,
  uneditableFields,
} from "./shared.js";

/** How a masked value is shown: what the platform's dashboard shows for a secret. */
const MASK = "••••••••";

/** At most this many clients are listed for one search: a page of thousands helps nobody. */
const LIST_LIMIT = 200;

/**
 * At most this many event streams are open at once (docs/design/local-tenant.md, "The console"): a person
 * has a few pages open, and each stream costs the server its writes every second.
 *
 * @internal
 */
export const MAX_EVENT_STREAMS = 8;

/**
 * A stream with more than this many bytes written but not yet sent is dropped instead of written
 * to again: its page does not keep up (a stalled network, a suspended tab), and what the server
 * would hold for it has no bound. A page that reads keeps far less: a second's tick is a few kB,
 * and the hello, the largest event, is written to an empty stream.
 *
 * @internal
 */
export const MAX_UNSENT_BYTES = 1024 * 1024;

/**
 * The scopes a token needs beyond loopback to read the console: it shows the clients, the push
 * provider and the event streams, which the management API reads with these.
 */
const CONSOLE_READ_SCOPES = ["read:clients", "read:guardian_factors", "read:event_streams"];

/** Whether `path` (without its query) is the console's. */
export function isConsolePath(path: string): boolean {
  return path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`);
}

/** Whether a request is one of the console's edits, which its log shows as the console's. */
export function isConsoleEdit(method: string, path: string): boolean {
  return (method === "PATCH" || method === "PUT") && isConsolePath(path);
}

/**
 * A client as the console shows it: as the management API answers a reader without
 * `read:client_keys` (key material left out), add-on keys masked, and the names of what was
 * hidden, so the page can say that they exist without showing them.
 *
 * @internal
 */
export function maskedClient(client: WireClient): ShownClient {
  const hidden = KEY_MATERIAL_FIELDS.filter((field) => client[field] !== undefined);
  const answered = clientAsAnswered(client, { showKeys: false });
  if (isPlainObject(answered.addons)) {
    const addons: Record<string, unknown> = {};
    for (const [member, settings] of Object.entries(answered.addons)) {
      if (!isPlainObject(settings)) {
        addons[member] = settings;
        continue;
      }
      const masked: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(settings)) {
        const secret = ADDON_KEY_MATERIAL.has(key) && value !== undefined && value !== null;
        if (secret) hidden.push(`addons.${member}.${key}`);
        masked[key] = secret ? MASK : value;
      }
      addons[member] = masked;
    }
    answered.addons = addons;
  }
  return { client: answered, hidden };
}

/** The person at the machine: the console's reads and its two edits, no key material. */
const LOOPBACK_PERSON: Principal = {
  clientId: "console",
  scopes: new Set([...CONSOLE_READ_SCOPES, "update:clients", "update:guardian_factors"]),
  claims: {},
};

/**
 * Who uses the console: from loopback without a token, the person at the machine; otherwise the
 * bearer token's client, verified as for the management API (401 without a valid token).
 */
async function caller(context: ServerContext, request: FastifyRequest): Promise<Principal> {
  const authorization = request.headers.authorization;
  if (authorization === undefined && isLoopback(request.socket.remoteAddress)) {
    return LOOPBACK_PERSON;
  }
  return context.auth.verify(authorization);
}

/** Checks that the caller may read the console (403 naming the first scope it lacks). */
async function requireReader(context: ServerContext, request: FastifyRequest): Promise<void> {
  const principal = await caller(context, request);
  for (const scope of CONSOLE_READ_SCOPES) requireScope(principal, scope);
}

/**
 * A client's edit as the console takes it: only the fields its page edits (400 naming the others,
 * which the management API's PATCH is there for). A body that is not an object goes on to the
 * management API's checks, which answer it as the PATCH would.
 */
function consoleEdit(body: unknown): unknown {
  if (!isPlainObject(body)) return body;
  const refused = uneditableFields(body);
  if (refused.length > 0) {
    const editable = EDITABLE_FIELDS.map((entry) => entry.field).join(", ");
    throw new ApiError(
      400,
      "invalid_body",
      `The console edits a client's ${editable} only, not ${refused.join(", ")}`,
    );
  }
  return body;
}

/** The page's security headers: nothing but this server, no framing. */
function pageHeaders(reply: FastifyReply, type: string): FastifyReply {
  return reply
    .header("content-type", type)
    .header("cache-control", "no-store")
    .header("x-content-type-options", "nosniff")
    .header(
      "content-security-policy",
      "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    );
}

/** The page's script, read once. */
let script: string | undefined;

/**
 * The page's script: `console.js`, which `npm run build` bundles from `browser/main.ts` next to
 * this module in the built package. Run from the sources (the tests, `npm run tenant-api`), this
 * module is in `provider/`, and the script is the one the last build wrote in `dist/`.
 */
function consoleScript(): string {
  if (script !== undefined) return script;
  const places = [
    join(__dirname, "console.js"),
    join(__dirname, "..", "..", "..", "dist", "provider", "local-tenant", "console", "console.js"),
  ];
  const place = places.find((file) => existsSync(file));
  if (place === undefined) {
    throw new LocalTenantError(
      `the console's script is not built (no ${places.join(" nor ")}): run npm run build`,
    );
  }
  script = readFileSync(place, "utf8");
  return script;
}

/** Whether a stream's connection is gone: its answer or its socket destroyed. */
function isGone(raw: FastifyReply["raw"]): boolean {
  return raw.destroyed || raw.socket === null || raw.socket.destroyed;
}

/**
 * The event stream of one page: a `hello` with the history kept so far, then a `tick` each second
 * until the page goes; the page's going (its connection closing) is what lets the monitor stop.
 * Refused with a 503 when {@link MAX_EVENT_STREAMS} are open; dropped when its page does not keep
 * up ({@link MAX_UNSENT_BYTES}).
 */
async function streamEvents(
  context: ServerContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const { store, monitor, bucket } = context;
  await requireReader(context, request);
  if (monitor.pages >= MAX_EVENT_STREAMS) {
    throw new ApiError(
      503,
      "service_unavailable",
      `The console has ${MAX_EVENT_STREAMS} event streams open, the most it serves: close one of its pages first`,
    );
  }
  reply.hijack();
  const raw = reply.raw;
  // The page may have gone while its token was checked: its `close` has fired already, and a
  // stream attached now would never be detached (the monitor's timer running for good, and one of
  // the streams taken until the server stops).
  if (isGone(raw)) {
    raw.destroy();
    return;
  }
  raw.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-store",
    connection: "keep-alive",
  });
  const detach = monitor.attach((tick: Tick) => {
    // A destroyed connection buffers nothing, so its unsent bytes would never pass the bound.
    if (isGone(raw) || raw.writableLength > MAX_UNSENT_BYTES) {
      detach();
      raw.destroy();
      return;
    }
    raw.write(formatEvent("tick", tick));
  });
  const hello: Hello = {
    tenant: store.tenant,
    version: store.version,
    bucket: bucketInfo(bucket),
    needsToken: !isLoopback(request.socket.remoteAddress),
    ...monitor.recorded(),
  };
  raw.write(formatEvent("hello", hello));
  raw.on("close", detach);
}

/** Registers the console's routes. */
export function registerConsoleRoutes(app: FastifyInstance, context: ServerContext): void {
  const { store } = context;
  const reader = { preHandler: (request: FastifyRequest) => requireReader(context, request) };

  app.get(CONSOLE_PATH, async (_request, reply) =>
    pageHeaders(reply, "text/html; charset=utf-8").send(CONSOLE_HTML),
  );
  app.get(`${CONSOLE_PATH}/console.js`, async (_request, reply) =>
    pageHeaders(reply, "text/javascript; charset=utf-8").send(consoleScript()),
  );
  app.get(`${CONSOLE_PATH}/console.css`, async (_request, reply) =>
    pageHeaders(reply, "text/css; charset=utf-8").send(CONSOLE_CSS),
  );
  app.get(`${CONSOLE_PATH}/events`, (request, reply) => streamEvents(context, request, reply));

  app.get<{ Querystring: { q?: string } }>(
    `${CONSOLE_PATH}/clients`,
    reader,
    async (request): Promise<ClientList> => {
      const q = String(request.query.q ?? "")
        .trim()
        .toLowerCase();
      const { clients, total } = store.listClients(
        (client) =>
          q === "" ||
          client.client_id.toLowerCase().includes(q) ||
          String(client.name ?? "")
            .toLowerCase()
            .includes(q),
        0,
        LIST_LIMIT,
      );
      return {
        total,
        clients: clients.map((client) => ({
          client_id: client.client_id,
          name: String(client.name ?? ""),
          app_type: String(client.app_type ?? ""),
        })),
      };
    },
  );

  app.get<{ Params: { id: string } }>(`${CONSOLE_PATH}/clients/:id`, reader, async (request) => {
    const client = store.getClient(request.params.id);
    if (client === undefined) {
      throw new ApiError(404, "inexistent_client", "The client does not exist");
    }
    return maskedClient(client);
  });

  app.patch<{ Params: { id: string } }>(`${CONSOLE_PATH}/clients/:id`, async (request) => {
    const principal = await caller(context, request);
    const edit = consoleEdit(request.body);
    return maskedClient(
      updateClient(store, principal, request.params.id, edit, patchRulesOf(context)),
    );
  });

  app.get(
    `${CONSOLE_PATH}/tenant`,
    reader,
    async (): Promise<TenantView> => ({
      tenant: store.tenant,
      pushProvider: store.getProvider(),
      providers: PUSH_PROVIDERS,
      // Only what names a stream: its destination may hold credentials.
      eventStreams: store.eventStreamIds().map((id) => {
        const stream = store.getEventStream(id);
        return { id, name: String(stream?.name ?? ""), status: String(stream?.status ?? "") };
      }),
    }),
  );

  app.put(`${CONSOLE_PATH}/selected-provider`, async (request) => {
    const principal = await caller(context, request);
    return selectProvider(store, principal, request.body);
  });
}
