/**
 * The local tenant's console (docs/design/local-tenant.md, "The console") without a browser: what it
 * serves, what it keeps and when, its edits through the management API's own checks, and who may
 * make them. The page itself, in a real browser, is test/e2e-console.test.ts.
 */

import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildApp } from "../provider/local-tenant/app.js";
import { clientAsAnswered } from "../provider/local-tenant/clients.js";
import { ConsoleMonitor } from "../provider/local-tenant/console/monitor.js";
import {
  MAX_EVENT_STREAMS,
  MAX_UNSENT_BYTES,
  maskedClient,
} from "../provider/local-tenant/console/routes.js";
import {
  CONSOLE_PATH,
  clientEdit,
  type Hello,
  LOG_LIMIT,
  parseEvents,
  readAnswer,
  type StreamEvent,
} from "../provider/local-tenant/console/shared.js";
import { foreignPlaceError } from "../provider/local-tenant/origin.js";
import { TokenBucket } from "../provider/local-tenant/rate-limit.js";
import { DEFAULT_SEED_IDS, READ_ONLY_SCOPES } from "../provider/local-tenant/seed.js";
import { createServerContext, startTenantApi } from "../provider/local-tenant/server.js";
import { RequestStats } from "../provider/local-tenant/stats.js";
import type { TenantApi } from "../provider/local-tenant/tenant-api.js";
import { startLocalTenant } from "../provider/testing.js";
import { callApi, fetchToken } from "./support/test-client.js";

const PORTAL = DEFAULT_SEED_IDS.regularWeb;

/** A fake interval: records each start and stop, and fires the tick when the test says. */
function fakeInterval() {
  const timers: { run: () => void; stopped: boolean }[] = [];
  return {
    timers,
    interval: (run: () => void) => {
      const timer = { run, stopped: false };
      timers.push(timer);
      return () => {
        timer.stopped = true;
      };
    },
    running: () => timers.filter((timer) => !timer.stopped),
  };
}

/** An open event stream of the console: its `hello`, what reads the next event, what closes it. */
interface OpenStream {
  hello: Hello;
  next(): Promise<StreamEvent>;
  close(): void;
}

/** Opens the console's event stream and reads it until its `hello` has arrived. */
async function openStream(api: Pick<TenantApi, "consoleUrl">): Promise<OpenStream> {
  const abort = new AbortController();
  const response = await fetch(`${api.consoleUrl}/events`, { signal: abort.signal });
  const reader = response.body?.getReader();
  if (response.status !== 200 || reader === undefined) {
    throw new Error(`the event stream answered ${response.status}: ${await response.text()}`);
  }
  const decoder = new TextDecoder();
  const queue: StreamEvent[] = [];
  let rest = "";
  // Each read waits for the server's next chunk: the test's timeout bounds the loop.
  const next = async (): Promise<StreamEvent> => {
    for (;;) {
      const event = queue.shift();
      if (event !== undefined) return event;
      const { value, done } = await reader.read();
      if (done) throw new Error(`the event stream ended: ${rest}`);
      const parsed = parseEvents(rest + decoder.decode(value, { stream: true }));
      rest = parsed.rest;
      queue.push(...parsed.events);
    }
  };
  const first = await next();
  if (first.event !== "hello") throw new Error(`the stream began with ${first.event}`);
  return { hello: JSON.parse(first.data) as Hello, next, close: () => abort.abort() };
}

/**
 * One request with headers as given, `Host` and `Origin` included (which `fetch` sets itself), to
 * the server listening on loopback at `port`; the answer's status and body.
 */
function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  json?: unknown,
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const body = json === undefined ? undefined : JSON.stringify(json);
    const sent = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        headers: {
          ...headers,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        timeout: 15_000,
      },
      (answer) => {
        let text = "";
        answer.setEncoding("utf8");
        answer.on("data", (chunk: string) => {
          text += chunk;
        });
        answer.on("end", () => resolve({ status: answer.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    sent.on("error", reject);
    sent.on("timeout", () => sent.destroy(new Error(`${method} ${path} got no answer in 15 s`)));
    sent.end(body);
  });
}

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function started(options: Parameters<typeof startTenantApi>[0] = {}): Promise<TenantApi> {
  const api = await startTenantApi(options);
  stops.push(() => api.stop());
  return api;
}

describe("the console's cost while no page is open", () => {
  it("starts no timer and keeps nothing while no console page is open", async () => {
    const fake = fakeInterval();
    const api = await started({ consoleInterval: fake.interval, backgroundLoad: { rate: 1000 } });
    const token = await fetchToken(api);
    await callApi(api, "GET", `/api/v2/clients/${PORTAL}`, { token });
    expect(fake.timers).toEqual([]);
    const stream = await openStream(api);
    expect(stream.hello).toMatchObject({ history: [], log: [] });
    stream.close();
  });

  it("starts its timer when a page opens and stops it, dropping the history, when the page goes", async () => {
    const fake = fakeInterval();
    const api = await started({ consoleInterval: fake.interval });
    const stream = await openStream(api);
    expect(fake.running()).toHaveLength(1);
    const token = await fetchToken(api);
    await callApi(api, "GET", `/api/v2/clients/${PORTAL}`, { token });
    stream.close();
    await vi.waitFor(() => expect(fake.running()).toHaveLength(0), { timeout: 10_000 });
    const again = await openStream(api);
    expect(again.hello).toMatchObject({ history: [], log: [] });
    again.close();
  });
});

describe("the console's monitor", () => {
  const monitor = (clock = () => 1_000) => {
    const fake = fakeInterval();
    const stats = new RequestStats();
    const bucket = new TokenBucket(clock, { rate: 10, burst: 20 });
    const made = new ConsoleMonitor({ bucket, stats, clock, version: () => 7, ...fake });
    return { made, fake, stats, bucket };
  };

  it("counts each second's requests by caller and status class, the background's apart", () => {
    const { made, fake, stats, bucket } = monitor();
    const ticks: unknown[] = [];
    made.attach((tick) => ticks.push(tick));
    for (const status of [200, 204, 404, 429, 500]) {
      made.request({ method: "GET", path: "/api/v2/clients", status, caller: "program", ms: 1 });
    }
    made.request({
      method: "GET",
      path: "/oauth/token",
      status: "dropped",
      caller: "program",
      ms: 0,
    });
    stats.recordBackground(bucket.take().allowed);
    stats.recordBackground(false);
    fake.running()[0]?.run();
    expect(ticks).toHaveLength(1);
    expect(ticks[0]).toMatchObject({
      second: {
        ok: 2,
        client: 1,
        limited: 1,
        server: 2,
        backgroundAllowed: 1,
        backgroundRefused: 1,
        at: 1_000,
        level: 19,
      },
      version: 7,
      bucket: { rate: 10, burst: 20, reserve: 5 },
    });
    expect(stats.snapshot().background).toEqual({ total: 2, allowed: 1, refused: 1 });
  });

  it("keeps the latest 400 requests of the log, the oldest dropped first", () => {
    const { made } = monitor();
    made.attach(() => undefined);
    for (let n = 0; n < LOG_LIMIT + 5; n += 1) {
      made.request({ method: "GET", path: `/${n}`, status: 200, caller: "program", ms: 0 });
    }
    const { log } = made.recorded();
    expect(log).toHaveLength(LOG_LIMIT);
    expect(log[0]?.path).toBe("/5");
    expect(log.at(-1)?.path).toBe(`/${LOG_LIMIT + 4}`);
  });

  it("records nothing and leaves the background's counters alone once the last page has gone", () => {
    const { made, stats } = monitor();
    const detach = made.attach(() => undefined);
    detach();
    made.request({ method: "GET", path: "/", status: 200, caller: "program", ms: 0 });
    stats.recordBackground(true);
    expect(made.active).toBe(false);
    expect(made.recorded()).toEqual({ history: [], log: [] });
    expect(stats.onBackground).toBeUndefined();
  });
});

describe("what the console shows of a client", () => {
  it("shows a client as the API answers a reader without read:client_keys, add-on keys masked", () => {
    const client = {
      client_id: PORTAL,
      name: "Portal",
      client_secret: "s3cret-value",
      addons: { azure_sb: { namespace: "acme", sasKey: "key-value", entityPath: "x" } },
    };
    const { client: shown, hidden } = maskedClient(client);
    expect(hidden).toEqual(["client_secret", "addons.azure_sb.sasKey"]);
    expect(shown).toEqual({
      ...clientAsAnswered(client, { showKeys: false }),
      addons: { azure_sb: { namespace: "acme", sasKey: "••••••••", entityPath: "x" } },
    });
    expect(JSON.stringify(shown)).not.toMatch(/s3cret-value|key-value/);
  });

  it("lists the clients whose name or id contains the search, whatever the case", async () => {
    const api = await started();
    const answer = await callApi<{ clients: { client_id: string }[]; total: number }>(
      api,
      "GET",
      `${CONSOLE_PATH}/clients?q=DASHBOARD`,
    );
    expect(answer.body.clients.map((c) => c.client_id)).toEqual([DEFAULT_SEED_IDS.spa]);
    const byId = await callApi<{ total: number }>(
      api,
      "GET",
      `${CONSOLE_PATH}/clients?q=${PORTAL.slice(3, 12).toLowerCase()}`,
    );
    expect(byId.body.total).toBe(1);
  });

  it("gives the kit's tenant the console's address, where the page is served", async () => {
    const tenant = await startLocalTenant();
    stops.push(() => tenant.stop());
    expect(tenant.consoleUrl).toBe(`${tenant.domain}${CONSOLE_PATH}`);
    const page = await fetch(tenant.consoleUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<title>Local tenant console</title>");
  });

  it("serves a page that holds nothing of the tenant, not even its name", async () => {
    const api = await started({ seed: { tenant: "acme-secret-project" } });
    const page = await callApi(api, "GET", CONSOLE_PATH);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain("acme-secret-project");
  });

  it("serves its page, script and style from the local tenant with a policy of this origin only", async () => {
    const api = await started();
    const page = await callApi(api, "GET", CONSOLE_PATH);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toMatch(/^default-src 'self';/);
    const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(sources).toEqual([`${CONSOLE_PATH}/console.css`, `${CONSOLE_PATH}/console.js`]);
    for (const source of sources) {
      expect((await callApi(api, "GET", `${source}`)).status).toBe(200);
    }
  });
});

describe("editing from the console", () => {
  it("answers an edit the schema refuses with the same 400 as the management API's PATCH", async () => {
    const api = await started();
    const token = await fetchToken(api);
    const body = { callbacks: ["not a url"], description: 42 };
    const patch = await callApi(api, "PATCH", `/api/v2/clients/${PORTAL}`, { token, json: body });
    const edit = await callApi(api, "PATCH", `${CONSOLE_PATH}/clients/${PORTAL}`, { json: body });
    expect(patch.status).toBe(400);
    expect(edit.status).toBe(400);
    expect(edit.body).toEqual(patch.body);
  });

  it("changes the client as a PATCH does, without counting the edit among the program's calls", async () => {
    const api = await started();
    const edit = await callApi<{ client: Record<string, unknown> }>(
      api,
      "PATCH",
      `${CONSOLE_PATH}/clients/${PORTAL}`,
      { json: { description: "Edited on the console" } },
    );
    expect(edit.status).toBe(200);
    expect(edit.body.client.description).toBe("Edited on the console");
    expect(api.store.getClient(PORTAL)?.description).toBe("Edited on the console");
    expect(api.stats().total).toBe(0);
  });

  it("selects the push provider through the same checks as the management API's PUT", async () => {
    const api = await started();
    const refused = await callApi(api, "PUT", `${CONSOLE_PATH}/selected-provider`, {
      json: { provider: "carrier-pigeon" },
    });
    expect(refused.status).toBe(400);
    const selected = await callApi(api, "PUT", `${CONSOLE_PATH}/selected-provider`, {
      json: { provider: "sns" },
    });
    expect(selected.body).toEqual({ provider: "sns" });
    expect(api.store.getProvider()).toBe("sns");
  });

  it("refuses an edit of key material, a field the page does not edit", async () => {
    const api = await started();
    const edit = await callApi(api, "PATCH", `${CONSOLE_PATH}/clients/${PORTAL}`, {
      json: { client_secret: "a-new-secret-of-enough-length-000000" },
    });
    expect(edit.status).toBe(400);
    expect(edit.body).toMatchObject({
      message:
        "The console edits a client's name, description, callbacks, allowed_logout_urls only, not client_secret",
    });
  });

  it("refuses with a 400 naming them the fields its page does not edit, and changes nothing", async () => {
    const api = await started();
    const before = api.store.getClient(PORTAL);
    const edit = await callApi(api, "PATCH", `${CONSOLE_PATH}/clients/${PORTAL}`, {
      json: { description: "sneaked in", grant_types: ["implicit", "password"], app_type: "spa" },
    });
    expect(edit.status).toBe(400);
    expect(edit.body).toEqual({
      statusCode: 400,
      error: "Bad Request",
      message:
        "The console edits a client's name, description, callbacks, allowed_logout_urls only, not grant_types, app_type",
      errorCode: "invalid_body",
    });
    expect(api.store.getClient(PORTAL)).toEqual(before);
  });
});

describe("the console beyond loopback", () => {
  async function remoteApp() {
    const { context } = await createServerContext({ random: 7 });
    context.auth.setDomain("http://192.0.2.1:8080");
    const app = buildApp(context);
    stops.push(() => app.close());
    return { app, context };
  }

  it("serves the page to another address, where the other control routes answer 403", async () => {
    const { app } = await remoteApp();
    const remoteAddress = "192.0.2.10";
    expect((await app.inject({ method: "GET", url: CONSOLE_PATH, remoteAddress })).statusCode).toBe(
      200,
    );
    const stats = await app.inject({ method: "GET", url: "/__tenant-api/stats", remoteAddress });
    expect(stats.statusCode).toBe(403);
  });

  it("refuses an edit from another address without a token, as the management API does", async () => {
    const { app, context } = await remoteApp();
    const answer = await app.inject({
      method: "PATCH",
      url: `${CONSOLE_PATH}/clients/${PORTAL}`,
      payload: { description: "from afar" },
      remoteAddress: "192.0.2.10",
    });
    expect(answer.statusCode).toBe(401);
    expect(answer.json()).toMatchObject({ message: "Missing authentication" });
    expect(context.store.getClient(PORTAL)?.description).not.toBe("from afar");
  });

  it("makes an edit from another address with a token that has the write scope", async () => {
    const { app, context } = await remoteApp();
    const edit = (scopes: string[]) =>
      context.auth.mint({ scopes }).then((token) =>
        app.inject({
          method: "PATCH",
          url: `${CONSOLE_PATH}/clients/${PORTAL}`,
          payload: { description: "from afar" },
          headers: { authorization: `Bearer ${token}` },
          remoteAddress: "192.0.2.10",
        }),
      );
    expect((await edit(["read:clients"])).statusCode).toBe(403);
    expect((await edit(["update:clients"])).statusCode).toBe(200);
    expect(context.store.getClient(PORTAL)?.description).toBe("from afar");
  });
});

describe("the console against pages of other sites", () => {
  const REBOUND_HOST =
    'The local tenant\'s console and control routes answer only at the address it listens on or at localhost, not at "rebound.attacker.example"';

  it("refuses a read and an edit whose Host is a name rebound to its address", async () => {
    const api = await started();
    const before = api.store.getClient(PORTAL);
    const host = { host: "rebound.attacker.example" };
    const read = await rawRequest(api.port, "GET", `${CONSOLE_PATH}/clients/${PORTAL}`, host);
    const edit = await rawRequest(api.port, "PATCH", `${CONSOLE_PATH}/clients/${PORTAL}`, host, {
      description: "rebound",
    });
    expect(read).toEqual({
      status: 403,
      body: { statusCode: 403, error: "Forbidden", message: REBOUND_HOST, errorCode: "forbidden" },
    });
    expect(edit).toEqual(read);
    expect(api.store.getClient(PORTAL)).toEqual(before);
  });

  it("refuses the other control routes a rebound name too", async () => {
    const api = await started();
    const state = await rawRequest(api.port, "GET", "/__tenant-api/state", {
      host: "rebound.attacker.example",
    });
    expect(state.status).toBe(403);
    expect(state.body).toMatchObject({ message: REBOUND_HOST });
  });

  it("refuses an edit sent from a page of another origin", async () => {
    const api = await started();
    const before = api.store.getClient(PORTAL);
    const edit = await rawRequest(
      api.port,
      "PATCH",
      `${CONSOLE_PATH}/clients/${PORTAL}`,
      { host: `127.0.0.1:${api.port}`, origin: "https://attacker.example" },
      { description: "from another site" },
    );
    expect(edit).toEqual({
      status: 403,
      body: {
        statusCode: 403,
        error: "Forbidden",
        message:
          "The local tenant's console and control routes take requests from the console's own origin only, not from \"https://attacker.example\"",
        errorCode: "forbidden",
      },
    });
    expect(api.store.getClient(PORTAL)).toEqual(before);
  });

  it("takes an edit from its own page, at its address or at localhost", async () => {
    const api = await started();
    for (const host of [`127.0.0.1:${api.port}`, `localhost:${api.port}`]) {
      const edit = await rawRequest(
        api.port,
        "PATCH",
        `${CONSOLE_PATH}/clients/${PORTAL}`,
        { host, origin: `http://${host}` },
        { description: `edited at ${host}` },
      );
      expect(edit.status).toBe(200);
      expect(api.store.getClient(PORTAL)?.description).toBe(`edited at ${host}`);
    }
  });
});

describe("foreignPlaceError", () => {
  const place = {
    host: "127.0.0.1:4000",
    origin: undefined,
    protocol: "http",
    localAddress: "127.0.0.1",
    listenHost: undefined,
  };

  it("answers a request sent to the address the connection reached, or to localhost", () => {
    expect(foreignPlaceError(place)).toBeUndefined();
    expect(foreignPlaceError({ ...place, host: "LOCALHOST:4000" })).toBeUndefined();
    expect(
      foreignPlaceError({ ...place, host: "[::1]:4000", localAddress: "::1" }),
    ).toBeUndefined();
    expect(foreignPlaceError({ ...place, localAddress: "::ffff:127.0.0.1" })).toBeUndefined();
  });

  it("answers a request sent to the name the server was told to listen on", () => {
    const named = { ...place, host: "devbox.lan:4000", localAddress: "192.0.2.7" };
    expect(foreignPlaceError(named)?.statusCode).toBe(403);
    expect(foreignPlaceError({ ...named, listenHost: "devbox.lan" })).toBeUndefined();
  });

  it("refuses a request without a Host, or whose Host is not a host and port", () => {
    expect(foreignPlaceError({ ...place, host: undefined })?.statusCode).toBe(403);
    expect(foreignPlaceError({ ...place, host: "user@127.0.0.1:4000" })?.statusCode).toBe(403);
    expect(foreignPlaceError({ ...place, host: "127.0.0.1:4000/x" })?.statusCode).toBe(403);
  });

  it("takes the origin of its own scheme and host only, and no origin at all", () => {
    const from = (origin: string, protocol = "http") =>
      foreignPlaceError({ ...place, origin, protocol })?.statusCode;
    expect(from("http://127.0.0.1:4000")).toBeUndefined();
    expect(from("https://127.0.0.1:4000", "https")).toBeUndefined();
    expect(from("https://127.0.0.1:4000")).toBe(403);
    expect(from("http://127.0.0.1:4001")).toBe(403);
    expect(from("null")).toBe(403);
  });
});

describe("the page's edit and answers", () => {
  const client = {
    name: "Portal",
    description: null,
    callbacks: ["https://a.example/cb", "https://b.example/cb"],
  };
  const texts = {
    name: "Portal",
    description: "",
    callbacks: "https://a.example/cb\nhttps://b.example/cb",
    allowed_logout_urls: "",
  };

  it("sends nothing when no field changed, a list's blank lines and spaces included", () => {
    expect(clientEdit(client, texts)).toEqual({});
    const spaced = { ...texts, callbacks: " https://a.example/cb\n\nhttps://b.example/cb \n" };
    expect(clientEdit(client, spaced)).toEqual({});
  });

  it("sends each changed field as the client holds it, a list as a list", () => {
    const changed = { ...texts, description: "New", allowed_logout_urls: "https://a.example/out" };
    expect(clientEdit(client, changed)).toEqual({
      description: "New",
      allowed_logout_urls: ["https://a.example/out"],
    });
  });

  it("reads a 2xx's JSON, a refusal's message, and an answer that is not JSON as a failure", () => {
    expect(readAnswer(200, '{"provider":"sns"}')).toEqual({ ok: true, data: { provider: "sns" } });
    expect(readAnswer(400, '{"message":"Payload validation error"}')).toEqual({
      ok: false,
      message: "400: Payload validation error",
    });
    expect(readAnswer(200, "<html>proxy</html>")).toEqual({
      ok: false,
      message: "200: the answer is not JSON",
    });
  });
});

describe("the console's reads beyond loopback", () => {
  const remoteAddress = "192.0.2.10";

  async function remote() {
    const { context } = await createServerContext({ random: 7 });
    const app = buildApp(context);
    stops.push(() => app.close());
    return { app, context };
  }

  it("refuses every read from another address without a token, the event stream's included", async () => {
    const { app } = await remote();
    for (const path of ["/clients", `/clients/${PORTAL}`, "/tenant", "/events"]) {
      const answer = await app.inject({
        method: "GET",
        url: `${CONSOLE_PATH}${path}`,
        remoteAddress,
      });
      expect({ path, status: answer.statusCode, body: answer.json() }).toMatchObject({
        path,
        status: 401,
        body: { message: "Missing authentication" },
      });
    }
  });

  it("reads from another address with a token of the three read scopes, not fewer", async () => {
    const { app, context } = await remote();
    const read = async (scopes: readonly string[]) => {
      const token = await context.auth.mint({ scopes: [...scopes] });
      return app.inject({
        method: "GET",
        url: `${CONSOLE_PATH}/tenant`,
        headers: { authorization: `Bearer ${token}` },
        remoteAddress,
      });
    };
    const fewer = await read(["read:clients"]);
    expect(fewer.statusCode).toBe(403);
    expect(fewer.json()).toMatchObject({
      message: "Insufficient scope, expected any of: read:guardian_factors",
    });
    expect((await read(READ_ONLY_SCOPES)).statusCode).toBe(200);
  });

  it("serves the page, its script and its style to another address without a token", async () => {
    const { app } = await remote();
    for (const path of ["", "/console.js", "/console.css"]) {
      const answer = await app.inject({
        method: "GET",
        url: `${CONSOLE_PATH}${path}`,
        remoteAddress,
      });
      expect({ path, status: answer.statusCode }).toEqual({ path, status: 200 });
    }
  });
});

describe("the console's event streams", () => {
  /** A server from the parts, listening on loopback, whose monitor the test reaches and ticks. */
  async function listening() {
    const fake = fakeInterval();
    const { context } = await createServerContext({ consoleInterval: fake.interval });
    const app = buildApp(context);
    stops.push(() => app.close());
    await app.listen({ port: 0, host: "127.0.0.1" });
    const port = (app.server.address() as AddressInfo).port;
    return { app, context, fake, port, consoleUrl: `http://127.0.0.1:${port}${CONSOLE_PATH}` };
  }

  /** A log entry whose path is 64 kB long: a few of them fill a tick. */
  const BIG = {
    method: "GET",
    path: `/${"x".repeat(64 * 1024)}`,
    status: 200,
    caller: "program" as const,
    ms: 0,
  };

  it(`refuses a stream beyond the ${MAX_EVENT_STREAMS} open at once with a 503`, async () => {
    const api = await started();
    const open: OpenStream[] = [];
    for (let n = 0; n < MAX_EVENT_STREAMS; n += 1) open.push(await openStream(api));
    const refused = await callApi(api, "GET", `${CONSOLE_PATH}/events`);
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({
      message: `The console has ${MAX_EVENT_STREAMS} event streams open, the most it serves: close one of its pages first`,
    });
    for (const stream of open) stream.close();
  });

  it("drops a stream whose page stopped reading once its unsent events pass 1 MiB", async () => {
    const { context, fake, port } = await listening();
    const socket = connect(port, "127.0.0.1");
    stops.push(async () => {
      socket.destroy();
    });
    // Never read: the kernel's buffers fill, then the server's.
    socket.pause();
    socket.write(`GET ${CONSOLE_PATH}/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await vi.waitFor(() => expect(context.monitor.pages).toBe(1));
    let written = 0;
    for (let tick = 0; tick < 2000 && context.monitor.pages > 0; tick += 1) {
      context.monitor.request(BIG);
      fake.running()[0]?.run();
      written += BIG.path.length;
      // A turn of the event loop, so that the server's writes reach the socket.
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(context.monitor.pages).toBe(0);
    expect(written).toBeGreaterThan(MAX_UNSENT_BYTES);
  });

  it("never attaches a stream whose connection closed while its token was being verified", async () => {
    const { app, context, fake, port } = await listening();
    const token = await context.auth.mint({ scopes: READ_ONLY_SCOPES });
    // The token's check waits until the test lets it go, so that the client leaves during it.
    const verify = context.auth.verify.bind(context.auth);
    let release: () => void = () => undefined;
    let verified = false;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    context.auth.verify = async (authorization) => {
      await gate;
      const principal = await verify(authorization);
      verified = true;
      return principal;
    };
    const socket = connect(port, "127.0.0.1");
    socket.write(
      `GET ${CONSOLE_PATH}/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n\r\n`,
    );
    const connections = () =>
      new Promise<number>((resolve, reject) =>
        app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
      );
    await vi.waitFor(async () => expect(await connections()).toBe(1));
    socket.destroy();
    await vi.waitFor(async () => expect(await connections()).toBe(0));
    release();
    await vi.waitFor(() => expect(verified).toBe(true));
    // A turn of the event loop, so that the handler's continuation after the check has run.
    await new Promise((resolve) => setImmediate(resolve));
    expect(context.monitor.pages).toBe(0);
    expect(fake.running()).toEqual([]);
  });

  it("keeps a stream whose page reads it, however much it is sent", async () => {
    const { context, fake, consoleUrl } = await listening();
    const stream = await openStream({ consoleUrl });
    stops.push(async () => stream.close());
    for (let tick = 0; tick < 32; tick += 1) {
      context.monitor.request(BIG);
      fake.running()[0]?.run();
      expect((await stream.next()).event).toBe("tick");
    }
    expect(32 * BIG.path.length).toBeGreaterThan(2 * MAX_UNSENT_BYTES);
    expect(context.monitor.pages).toBe(1);
  });
});
