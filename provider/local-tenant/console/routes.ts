/**
 * The console's routes under `/__tenant-api/console` (docs/local-tenant.md, "The console"): the
 * page and its script and style (served from the package: the page loads nothing from elsewhere),
 * the server-sent events that keep it live, what it reads (clients, the tenant) with secrets
 * hidden, and the two edits a person makes on it, which go through the management API's own
 * checks (`updateClient`, `selectProvider`) so that they get the API's answers, its 400s included.
 *
 * Unlike the other control routes, these answer any client the server listens for: the page shows
 * no secret and no token. Its edits need no token from loopback (the person at the machine, as the
 * other control routes), and from any other address the same bearer token, with the same scopes,
 * as the management API's write. The edits are a PATCH and a PUT, which a page of another origin
 * cannot send without a CORS preflight that this server never grants.
 */

import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ADDON_KEY_MATERIAL } from "../../generate/fields.js";
import { isPlainObject } from "../../json.js";
import { PUSH_PROVIDERS } from "../../schema/index.js";
import type { Principal } from "../auth.js";
import { clientAsAnswered, KEY_MATERIAL_FIELDS, type WireClient } from "../clients.js";
import { isLoopback, type ServerContext } from "../context.js";
import { ApiError } from "../errors.js";
import { selectProvider, updateClient } from "../management-routes.js";
import { bucketInfo, type Tick } from "./monitor.js";
import { CONSOLE_CSS, consoleHtml } from "./page.js";
import { CONSOLE_SCRIPT } from "./script.js";

/** Where the console is served: its page, and everything it uses under it. */
export const CONSOLE_PATH = "/__tenant-api/console";

/** How a masked value is shown: what the platform's dashboard shows for a secret. */
const MASK = "••••••••";

/** At most this many clients are listed for one search: a page of thousands helps nobody. */
const LIST_LIMIT = 200;

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
export function maskedClient(client: WireClient): {
  client: Record<string, unknown>;
  hidden: string[];
} {
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

/** The scopes of the person at the machine: the console's two edits, no key material. */
const LOOPBACK_EDITOR: Principal = {
  clientId: "console",
  scopes: new Set(["update:clients", "update:guardian_factors"]),
  claims: {},
};

/**
 * Who makes an edit: from loopback without a token, the person at the machine; otherwise the
 * bearer token's client, verified as for the management API (401 without a valid token).
 */
async function editor(context: ServerContext, request: FastifyRequest): Promise<Principal> {
  const authorization = request.headers.authorization;
  if (authorization === undefined && isLoopback(request.socket.remoteAddress)) {
    return LOOPBACK_EDITOR;
  }
  return context.auth.verify(authorization);
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

/**
 * The event stream of one page: a `hello` with the history kept so far, then a `tick` each second
 * until the page goes; the page's going (its connection closing) is what lets the monitor stop.
 */
function streamEvents(context: ServerContext, request: FastifyRequest, reply: FastifyReply): void {
  const { store, monitor, bucket } = context;
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-store",
    connection: "keep-alive",
  });
  const send = (event: string, data: unknown) =>
    raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const detach = monitor.attach((tick: Tick) => send("tick", tick));
  send("hello", {
    tenant: store.tenant,
    version: store.version,
    bucket: bucketInfo(bucket),
    editNeedsToken: !isLoopback(request.socket.remoteAddress),
    ...monitor.recorded(),
  });
  raw.on("close", detach);
}

/** Registers the console's routes. */
export function registerConsoleRoutes(app: FastifyInstance, context: ServerContext): void {
  const { store } = context;

  app.get(CONSOLE_PATH, async (_request, reply) =>
    pageHeaders(reply, "text/html; charset=utf-8").send(consoleHtml(store.tenant)),
  );
  app.get(`${CONSOLE_PATH}/console.js`, async (_request, reply) =>
    pageHeaders(reply, "text/javascript; charset=utf-8").send(CONSOLE_SCRIPT),
  );
  app.get(`${CONSOLE_PATH}/console.css`, async (_request, reply) =>
    pageHeaders(reply, "text/css; charset=utf-8").send(CONSOLE_CSS),
  );
  app.get(`${CONSOLE_PATH}/events`, (request, reply) => streamEvents(context, request, reply));

  app.get<{ Querystring: { q?: string } }>(`${CONSOLE_PATH}/clients`, async (request) => {
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
        name: client.name ?? "",
        app_type: client.app_type ?? "",
      })),
    };
  });

  app.get<{ Params: { id: string } }>(`${CONSOLE_PATH}/clients/:id`, async (request) => {
    const client = store.getClient(request.params.id);
    if (client === undefined) {
      throw new ApiError(404, "inexistent_client", "The client does not exist");
    }
    return maskedClient(client);
  });

  app.patch<{ Params: { id: string } }>(`${CONSOLE_PATH}/clients/:id`, async (request) => {
    const principal = await editor(context, request);
    return maskedClient(updateClient(store, principal, request.params.id, request.body));
  });

  app.get(`${CONSOLE_PATH}/tenant`, async () => ({
    tenant: store.tenant,
    pushProvider: store.getProvider(),
    providers: PUSH_PROVIDERS,
    // Only what names a stream: its destination may hold credentials.
    eventStreams: store.eventStreamIds().map((id) => {
      const stream = store.getEventStream(id);
      return { id, name: stream?.name ?? "", status: stream?.status ?? "" };
    }),
  }));

  app.put(`${CONSOLE_PATH}/selected-provider`, async (request) => {
    const principal = await editor(context, request);
    return selectProvider(store, principal, request.body);
  });
}
