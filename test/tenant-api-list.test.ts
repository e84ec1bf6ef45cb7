/**
 * The client list `GET /api/v2/clients` of the local tenant API (docs/design/local-tenant.md, "Client list"):
 * paging, totals, field selection, filters, key material, query refusals, and the rate limit,
 * counters and faults it shares with every route; the generated clients of large test tenants.
 */

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseCliArgs } from "../provider/local-tenant/command.js";
import {
  DEFAULT_SEED,
  DEFAULT_SEED_IDS,
  KEY_MATERIAL_FIELDS,
  loadSeed,
  startTenantApi,
  type TenantApi,
  type WireClient,
} from "../provider/local-tenant/index.js";
import { type ApiAnswer, callApi, fetchToken } from "./support/test-client.js";

const LIST = "/api/v2/clients";
const client = (id: string) => `/api/v2/clients/${id}`;

interface Totals {
  clients: Record<string, unknown>[];
  start: number;
  limit: number;
  total: number;
}

let api: TenantApi;
let token: string;

beforeAll(async () => {
  api = await startTenantApi({ random: 3 });
  token = await fetchToken(api);
});

afterAll(async () => {
  await api?.stop();
});

beforeEach(() => {
  api.store.reset();
  api.resetStats();
  api.setFaults(null);
  api.setRateLimit(null);
});

/** GET of the list with a query string (no leading `?`). */
function list<T = Record<string, unknown>[]>(query = "", as = token): Promise<ApiAnswer<T>> {
  return callApi<T>(api, "GET", query === "" ? LIST : `${LIST}?${query}`, { token: as });
}

/** The client ids of a bare-array answer. */
function idsOf(answer: ApiAnswer<Record<string, unknown>[]>): unknown[] {
  return answer.body.map((c) => c.client_id);
}

/** Asserts the 400 the list and the single GET answer for a query they refuse. */
function expectInvalidQuery(answer: ApiAnswer, message: string): void {
  expect(answer.status).toBe(400);
  expect(answer.body).toEqual({
    statusCode: 400,
    error: "Bad Request",
    message,
    errorCode: "invalid_query_string",
  });
}

/** The seeded clients in creation order, as stored. */
function storedClients(): WireClient[] {
  return api.store.snapshot().clients;
}

describe("client list answers", () => {
  it("a bare array of every client in creation order when the query is empty", async () => {
    const answer = await list();
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(storedClients());
    expect(idsOf(answer)).toEqual(api.clients);
  });

  it("{clients, start, limit, total} with include_totals=true", async () => {
    const answer = await list<Totals>("include_totals=true&page=0&per_page=2");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      clients: storedClients().slice(0, 2),
      start: 0,
      limit: 2,
      total: 5,
    });
  });

  it("the page asked for, 0-based, with start = page * per_page", async () => {
    const answer = await list<Totals>("include_totals=true&page=1&per_page=2");
    expect(answer.body.start).toBe(2);
    expect(answer.body.clients.map((c) => c.client_id)).toEqual(api.clients.slice(2, 4));
  });

  it("an empty page past the end, with the total", async () => {
    const answer = await list<Totals>("include_totals=true&page=7&per_page=100");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ clients: [], start: 700, limit: 100, total: 5 });
  });

  it("only the named fields with include_fields=true, client_id only if named", async () => {
    const answer = await list("fields=name,app_type&include_fields=true");
    expect(answer.body).toEqual(
      storedClients().map((c) => ({ name: c.name, app_type: c.app_type })),
    );
  });

  it("only the named fields when include_fields is left out", async () => {
    const answer = await list("fields=client_id,description");
    expect(answer.body).toEqual(
      storedClients().map((c) => ({ client_id: c.client_id, description: c.description })),
    );
  });

  it("every field but the named ones with include_fields=false", async () => {
    const answer = await list("fields=signing_keys,callbacks&include_fields=false");
    expect(answer.body).toEqual(
      storedClients().map(({ signing_keys, callbacks, ...rest }) => rest),
    );
  });

  it("the whole clients when fields is empty", async () => {
    expect((await list("fields=&include_fields=true")).body).toEqual(storedClients());
  });

  it("only first-party clients with is_first_party=true, and the filtered count as total", async () => {
    const answer = await list<Totals>("is_first_party=false&include_totals=true&fields=client_id");
    expect(answer.body).toEqual({
      clients: [{ client_id: DEFAULT_SEED_IDS.strictThirdParty }],
      start: 0,
      limit: 50,
      total: 1,
    });
  });

  it("no client with is_global=true and every client with is_global=false", async () => {
    expect((await list("is_global=true")).body).toEqual([]);
    expect(idsOf(await list("is_global=false"))).toEqual(api.clients);
  });

  it("the clients of the listed app types with app_type=spa,non_interactive", async () => {
    const answer = await list("app_type=spa,non_interactive&fields=client_id");
    expect(idsOf(answer)).toEqual([
      DEFAULT_SEED_IDS.spa,
      DEFAULT_SEED_IDS.admin,
      DEFAULT_SEED_IDS.readOnly,
    ]);
  });

  it("clients in creation order: a PATCH does not move one, a new one comes last", async () => {
    const patched = await callApi(api, "PATCH", client(DEFAULT_SEED_IDS.regularWeb), {
      token,
      json: { name: "Portal v2" },
    });
    expect(patched.status).toBe(200);
    const added = { ...storedClients()[1], client_id: "Added0000000000000000000000000000" };
    api.store.putClient(added as WireClient);
    expect(idsOf(await list("fields=client_id"))).toEqual([...api.clients, added.client_id]);
  });
});

describe("client list on a 210-client tenant", () => {
  let big: TenantApi;
  let bigToken: string;

  beforeAll(async () => {
    big = await startTenantApi({ extraClients: 205, random: 4 });
    bigToken = await fetchToken(big);
  });

  afterAll(async () => {
    await big?.stop();
  });

  it("pages through every client 100 at a time, each exactly once", async () => {
    const pages: Totals[] = [];
    for (let page = 0; page < 3; page += 1) {
      const answer = await callApi<Totals>(
        big,
        "GET",
        `${LIST}?page=${page}&per_page=100&include_totals=true&fields=client_id`,
        { token: bigToken },
      );
      pages.push(answer.body);
    }
    expect(pages.map((p) => [p.clients.length, p.start, p.limit, p.total])).toEqual([
      [100, 0, 100, 210],
      [100, 100, 100, 210],
      [10, 200, 100, 210],
    ]);
    expect(pages.flatMap((p) => p.clients.map((c) => c.client_id))).toEqual(big.clients);
  });

  it("50 clients per page when per_page is left out", async () => {
    const answer = await callApi<unknown[]>(big, "GET", `${LIST}?fields=client_id`, {
      token: bigToken,
    });
    expect(answer.body).toHaveLength(50);
  });
});

describe("key material in client reads", () => {
  const KEYED = DEFAULT_SEED_IDS.regularWeb;

  beforeEach(() => {
    const stored = api.store.getClient(KEYED);
    api.store.putClient({
      ...(stored as WireClient),
      encryption_key: { pub: "public key", cert: "certificate", subject: "CN=portal" },
      client_authentication_methods: { private_key_jwt: { credentials: [{ id: "cred_1" }] } },
    });
  });

  async function readAs(scopes: string[], path: string): Promise<Record<string, unknown>> {
    const minted = await api.mintToken({ scopes });
    const answer = await callApi<Record<string, unknown>[] | Record<string, unknown>>(
      api,
      "GET",
      path,
      { token: minted },
    );
    expect(answer.status).toBe(200);
    const body = answer.body;
    const found = Array.isArray(body) ? body.find((c) => c.client_id === KEYED) : body;
    return found ?? {};
  }

  it("leaves client_secret, encryption_key and client_authentication_methods out of a page without read:client_keys", async () => {
    const seen = await readAs(["read:clients"], LIST);
    expect(KEY_MATERIAL_FIELDS.filter((f) => f in seen)).toEqual([]);
    const { client_secret, encryption_key, client_authentication_methods, ...rest } =
      api.store.getClient(KEYED) as WireClient;
    expect(seen).toEqual(rest);
  });

  it("leaves them out of a page even when fields names them", async () => {
    const seen = await readAs(
      ["read:clients"],
      `${LIST}?fields=client_id,client_secret,encryption_key,client_authentication_methods`,
    );
    expect(seen).toEqual({ client_id: KEYED });
  });

  /**
   * The stored client as a reader of key material sees it: without its secret, which the platform
   * leaves out of every answer while the client has client_authentication_methods (recorded:
   * TestAccClientAuthenticationMethodsPrivateKeyJWT #13).
   */
  function withKeys(): Record<string, unknown> {
    const { client_secret: _secret, ...rest } = api.store.getClient(KEYED) as WireClient;
    return rest;
  }

  it("answers them in a page with read:client_keys", async () => {
    const seen = await readAs(["read:clients", "read:client_keys"], LIST);
    expect(seen).toEqual(withKeys());
  });

  it("answers them in a page with read:client_credentials", async () => {
    const seen = await readAs(["read:clients", "read:client_credentials"], LIST);
    expect(seen).toEqual(withKeys());
  });

  it("leaves out the secret of a client with client_authentication_methods, though it keeps it", async () => {
    const seen = await readAs(["read:clients", "read:client_keys"], client(KEYED));
    expect(seen).not.toHaveProperty("client_secret");
    expect(api.store.getClient(KEYED)?.client_secret).toEqual(expect.any(String));
  });

  it("leaves them out of a single-client GET without read:client_keys, as from a page", async () => {
    const single = await readAs(["read:clients"], client(KEYED));
    expect(single).toEqual(await readAs(["read:clients"], LIST));
  });

  it("answers a single-client GET with only the fields asked for", async () => {
    const seen = await readAs(
      ["read:clients", "read:client_keys"],
      `${client(KEYED)}?fields=name,encryption_key&include_fields=true`,
    );
    const stored = api.store.getClient(KEYED) as WireClient;
    expect(seen).toEqual({ name: stored.name, encryption_key: stored.encryption_key });
  });
});

describe("client list refuses", () => {
  it("a token without read:clients with 403 naming it", async () => {
    const minted = await api.mintToken({ scopes: ["read:guardian_factors"] });
    const answer = await list("", minted);
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({
      statusCode: 403,
      error: "Forbidden",
      message: "Insufficient scope, expected any of: read:clients",
      errorCode: "insufficient_scope",
    });
  });

  it("a request without a token with 401", async () => {
    const answer = await callApi(api, "GET", LIST);
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ message: "Missing authentication" });
  });

  it("per_page over 100 with 400 invalid_query_string", async () => {
    expectInvalidQuery(
      await list("per_page=101"),
      'Query validation error: per_page: must be at most 100 (got "101")',
    );
  });

  it("per_page 0 with 400 invalid_query_string", async () => {
    expectInvalidQuery(
      await list("per_page=0"),
      'Query validation error: per_page: must be at least 1 (got "0")',
    );
  });

  it("a negative page with 400 invalid_query_string", async () => {
    expectInvalidQuery(
      await list("page=-1"),
      'Query validation error: page: must be at least 0 (got "-1")',
    );
  });

  it("a page that is not an integer with 400 invalid_query_string", async () => {
    expectInvalidQuery(
      await list("page=1.5"),
      'Query validation error: page: must be an integer (got "1.5")',
    );
  });

  it("an unknown parameter with 400 invalid_query_string", async () => {
    expectInvalidQuery(
      await list("sort=name:1"),
      "Query validation error: sort: unknown parameter",
    );
  });

  it("q, which this server does not implement, with 400 invalid_query_string", async () => {
    expectInvalidQuery(
      await list("q=client_grant.organization_id:org_1"),
      "Query validation error: q: not supported by the local tenant API",
    );
  });

  it("a parameter given twice with 400 invalid_query_string", async () => {
    expectInvalidQuery(
      await list("page=0&page=1"),
      "Query validation error: page: must be given once",
    );
  });

  it("a boolean other than true or false with 400 invalid_query_string", async () => {
    expectInvalidQuery(
      await list("include_totals=yes"),
      'Query validation error: include_totals: must be true or false (got "yes")',
    );
  });

  it("an app_type outside the schema's list with 400 invalid_query_string", async () => {
    expectInvalidQuery(
      await list("app_type=spa,box"),
      'Query validation error: app_type: must be a comma-separated list of native, spa, regular_web, non_interactive, resource_server, express_configuration, sso_integration, oag (got "box")',
    );
  });

  it("every problem of the query in one message", async () => {
    expectInvalidQuery(
      await list("per_page=500&page=-2&foo=1"),
      'Query validation error: foo: unknown parameter; page: must be at least 0 (got "-2"); per_page: must be at most 100 (got "500")',
    );
  });

  it("a single-client GET with a list parameter with 400 invalid_query_string", async () => {
    expectInvalidQuery(
      await callApi(api, "GET", `${client(DEFAULT_SEED_IDS.spa)}?page=1`, { token }),
      "Query validation error: page: unknown parameter",
    );
  });
});

describe("client list shares with every route", () => {
  it("the rate-limit bucket, with the rate-limit headers", async () => {
    // 0.001 tokens per second: nothing refills during the test.
    api.setRateLimit({ rate: 0.001, burst: 2 });
    const single = await callApi(api, "GET", client(DEFAULT_SEED_IDS.spa), { token });
    const first = await list("fields=client_id");
    const refused = await list("fields=client_id");
    expect([single.status, first.status, refused.status]).toEqual([200, 200, 429]);
    expect(first.headers.get("x-ratelimit-limit")).toBe("2");
    expect(first.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(refused.body).toMatchObject({ errorCode: "too_many_requests" });
    expect(refused.headers.get("retry-after")).not.toBeNull();
  });

  it("the counters, under its own route", async () => {
    await list("page=0");
    await list("per_page=101");
    expect(api.stats().byRoute).toEqual({ "GET /api/v2/clients": 2 });
    expect(api.stats().counts).toEqual({
      "GET /api/v2/clients 200": 1,
      "GET /api/v2/clients 400": 1,
    });
  });

  it("fault injection, answering 500 or 503 without listing", async () => {
    api.setFaults({ error: 1 });
    const answer = await list();
    expect([500, 503]).toContain(answer.status);
    expect(answer.body).toMatchObject({
      errorCode: answer.status === 503 ? "service_unavailable" : "internal_error",
    });
    expect(api.stats().counts).toEqual({ [`GET /api/v2/clients ${answer.status}`]: 1 });
  });
});

describe("generated clients", () => {
  it("are the same on every load, secrets included", () => {
    const first = loadSeed(DEFAULT_SEED, { extraClients: 8 }).state.clients.slice(-8);
    const second = loadSeed(DEFAULT_SEED, { extraClients: 8 }).state.clients.slice(-8);
    expect(second).toEqual(first);
  });

  it("come after the seed's clients, which stay as they were", () => {
    // The seed's machine-to-machine secrets are drawn at each load; everything else is fixed.
    const withoutSecrets = (clients: WireClient[]) =>
      clients.map(({ client_secret, ...rest }) => rest);
    const plain = loadSeed().state.clients;
    const extended = loadSeed(DEFAULT_SEED, { extraClients: 3 }).state.clients;
    expect(withoutSecrets(extended.slice(0, plain.length))).toEqual(withoutSecrets(plain));
    expect(extended.map((c) => c.client_id).slice(0, plain.length)).toEqual(
      Object.values(DEFAULT_SEED_IDS).filter((id) => !id.startsWith("est_")),
    );
    expect(extended).toHaveLength(plain.length + 3);
  });

  it("cycle through regular web, SPA, native and machine-to-machine applications", () => {
    const generated = loadSeed({ clients: [] }, { extraClients: 4 }).state.clients.slice(2);
    expect(generated.map((c) => [c.app_type, typeof c.client_secret])).toEqual([
      ["regular_web", "string"],
      ["spa", "undefined"],
      ["native", "undefined"],
      ["non_interactive", "string"],
    ]);
    expect(generated.map((c) => c.name)).toEqual([
      "Generated regular_web application 00001",
      "Generated spa application 00002",
      "Generated native application 00003",
      "Generated non_interactive application 00004",
    ]);
  });

  it("refuse a negative count", () => {
    expect(() => loadSeed(DEFAULT_SEED, { extraClients: -1 })).toThrow(
      "invalid seed: extraClients: must be a non-negative integer, got -1",
    );
  });

  it("are asked for on the command line with --clients N", () => {
    expect(parseCliArgs(["--clients", "5000"])).toMatchObject({ extraClients: 5000 });
  });
});

describe("the event stream list", () => {
  const STREAMS = "/api/v2/event-streams";

  it("pages the streams with take and the checkpoint each page names as next", async () => {
    const first = await callApi<{ eventStreams: { id: string }[]; next?: string }>(
      api,
      "GET",
      `${STREAMS}?take=1`,
      { token },
    );
    expect(first.status).toBe(200);
    expect(first.body.eventStreams.map((s) => s.id)).toEqual([api.eventStreams[0]]);
    const last = await callApi<{ eventStreams: { id: string }[]; next?: string }>(
      api,
      "GET",
      `${STREAMS}?take=1&from=${first.body.next}`,
      { token },
    );
    expect(last.body).toEqual({
      eventStreams: [api.store.getEventStream(api.eventStreams[1] ?? "")],
    });
  });

  it("refuses a take above 100 and an unknown parameter in one 400", async () => {
    const answer = await callApi(api, "GET", `${STREAMS}?take=101&q=x`, { token });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      statusCode: 400,
      error: "Bad Request",
      message:
        'Query validation error: q: unknown parameter; take: must be from 1 to 100 (got "101")',
      errorCode: "invalid_query_string",
    });
  });

  it("needs read:event_streams", async () => {
    const reader = await api.mintToken({ scopes: ["read:clients"] });
    const answer = await callApi(api, "GET", STREAMS, { token: reader });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({
      message: "Insufficient scope, expected any of: read:event_streams",
    });
  });
});
