/**
 * The local tenant's console (docs/local-tenant.md, "The console") without a browser: what it
 * serves, what it keeps and when, its edits through the management API's own checks, and who may
 * make them. The page itself, in a real browser, is test/e2e-console.test.ts.
 */

import { afterEach, describe, expect, it, vi } from "vitest";
import { buildApp } from "../provider/local-tenant/app.js";
import { clientAsAnswered } from "../provider/local-tenant/clients.js";
import { ConsoleMonitor, LOG_LIMIT } from "../provider/local-tenant/console/monitor.js";
import { CONSOLE_PATH, maskedClient } from "../provider/local-tenant/console/routes.js";
import { TokenBucket } from "../provider/local-tenant/rate-limit.js";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import {
  createServerContext,
  startTenantApi,
  type TenantApi,
} from "../provider/local-tenant/server.js";
import { RequestStats } from "../provider/local-tenant/stats.js";
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

/** Reads the console's event stream until its `hello` arrives; returns it and what closes it. */
async function openStream(api: TenantApi): Promise<{ hello: unknown; close(): void }> {
  const abort = new AbortController();
  const response = await fetch(`${api.consoleUrl}/events`, { signal: abort.signal });
  const reader = response.body?.getReader();
  if (reader === undefined) throw new Error("the event stream has no body");
  let text = "";
  while (!text.includes("\n\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the event stream ended before its hello: ${text}`);
    text += Buffer.from(value).toString("utf8");
  }
  const data = /^event: hello\ndata: (.*)$/m.exec(text)?.[1];
  if (data === undefined) throw new Error(`no hello in ${text}`);
  return { hello: JSON.parse(data), close: () => abort.abort() };
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
    expect(await page.text()).toContain("<title>local-tenant · local tenant console</title>");
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

  it("refuses an edit of key material, which needs update:client_keys", async () => {
    const api = await started();
    const edit = await callApi(api, "PATCH", `${CONSOLE_PATH}/clients/${PORTAL}`, {
      json: { client_secret: "a-new-secret-of-enough-length-000000" },
    });
    expect(edit.status).toBe(403);
    expect(edit.body).toMatchObject({
      message: "Insufficient scope, expected any of: update:client_keys",
    });
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
