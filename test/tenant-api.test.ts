/**
 * The local tenant API's routes, bodies and status codes (docs/design/platform.md, "The three operations"),
 * against the real server on a loopback port.
 */

import { describe, expect, it } from "vitest";
import {
  DEFAULT_SEED_IDS,
  RESPONSE_ONLY_FIELDS,
  type TenantApi,
  type WireClient,
} from "../provider/local-tenant/index.js";
import {
  clientRoute,
  expectErrorAnswer,
  PROVIDER,
  streamRoute,
  useTenantApi,
} from "./support/tenant-api-suite.js";
import { callApi } from "./support/test-client.js";

let api: TenantApi;
let token: string;
useTenantApi({ random: 1 }, (started, admin) => ([api, token] = [started, admin]));

describe("the push provider selection", () => {
  it("answers GET with the seeded provider guardian", async () => {
    const answer = await callApi(api, "GET", PROVIDER, { token });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ provider: "guardian" });
  });

  it("answers PUT with 200 and {provider} and stores the selection", async () => {
    const answer = await callApi(api, "PUT", PROVIDER, { token, json: { provider: "sns" } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ provider: "sns" });
    expect(api.store.getProvider()).toBe("sns");
    expect((await callApi(api, "GET", PROVIDER, { token })).body).toEqual({ provider: "sns" });
  });

  it("accepts a form-encoded PUT body, as the spec allows", async () => {
    const answer = await callApi(api, "PUT", PROVIDER, { token, form: { provider: "direct" } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ provider: "direct" });
    expect(api.store.getProvider()).toBe("direct");
  });
});

describe("reading and updating a client", () => {
  it("answers GET with the whole stored client", async () => {
    const answer = await callApi<WireClient>(api, "GET", clientRoute(DEFAULT_SEED_IDS.spa), {
      token,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(api.store.getClient(DEFAULT_SEED_IDS.spa));
    expect(answer.body.client_id).toBe(DEFAULT_SEED_IDS.spa);
  });

  it("answers PATCH with 200 and the whole updated client", async () => {
    const answer = await callApi<WireClient>(
      api,
      "PATCH",
      clientRoute(DEFAULT_SEED_IDS.regularWeb),
      {
        token,
        json: { description: "Renamed portal", sso: true },
      },
    );
    expect(answer.status).toBe(200);
    const stored = api.store.getClient(DEFAULT_SEED_IDS.regularWeb);
    expect(answer.body).toEqual(stored);
    expect(stored?.description).toBe("Renamed portal");
    expect(stored?.sso).toBe(true);
  });

  it("changes only the fields a PATCH sends", async () => {
    const before = api.store.getClient(DEFAULT_SEED_IDS.regularWeb);
    const answer = await callApi<WireClient>(
      api,
      "PATCH",
      clientRoute(DEFAULT_SEED_IDS.regularWeb),
      {
        token,
        json: { name: "Portal v2" },
      },
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...before, name: "Portal v2" });
  });

  it("merges mobile sent in a PATCH member by member, as the platform does", async () => {
    const id = DEFAULT_SEED_IDS.regularWeb;
    const ios = { team_id: "TEAM1", app_bundle_identifier: "com.example.app" };
    await callApi(api, "PATCH", clientRoute(id), { token, json: { mobile: { ios } } });
    const answer = await callApi<WireClient>(api, "PATCH", clientRoute(id), {
      token,
      json: { mobile: { android: { app_package_name: "com.example.android" } } },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.mobile).toEqual({
      ios,
      android: { app_package_name: "com.example.android" },
    });
  });

  it("adds no alg to a jwt_configuration a PATCH sends", async () => {
    const id = DEFAULT_SEED_IDS.regularWeb;
    const before = api.store.getClient(id)?.jwt_configuration;
    const answer = await callApi<WireClient>(api, "PATCH", clientRoute(id), {
      token,
      json: { jwt_configuration: { lifetime_in_seconds: 300 } },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.jwt_configuration).toEqual({
      ...(before as object),
      lifetime_in_seconds: 300,
    });
  });

  it("merges client_metadata key by key and removes a key sent as null", async () => {
    // Seeded metadata: {team: "identity", tier: "gold"}.
    const answer = await callApi<WireClient>(
      api,
      "PATCH",
      clientRoute(DEFAULT_SEED_IDS.regularWeb),
      {
        token,
        json: { client_metadata: { tier: null, region: "eu" } },
      },
    );
    expect(answer.status).toBe(200);
    expect(answer.body.client_metadata).toEqual({ team: "identity", region: "eu" });
  });

  it("removes a field the spec calls never null when a PATCH sends null", async () => {
    const answer = await callApi<WireClient>(
      api,
      "PATCH",
      clientRoute(DEFAULT_SEED_IDS.regularWeb),
      {
        token,
        json: { token_endpoint_auth_method: null, organization_usage: null },
      },
    );
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body)).not.toContain("token_endpoint_auth_method");
    expect(Object.keys(answer.body)).not.toContain("organization_usage");
  });

  it("removes a nullable object sent as null from the answer", async () => {
    const answer = await callApi<WireClient>(api, "PATCH", clientRoute(DEFAULT_SEED_IDS.spa), {
      token,
      json: { refresh_token: null },
    });
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body)).not.toContain("refresh_token");
  });

  it("takes null for a nested member and removes it", async () => {
    const id = DEFAULT_SEED_IDS.regularWeb;
    await callApi(api, "PATCH", clientRoute(id), {
      token,
      json: { session_transfer: { delegation: { allow_delegated_access: true } } },
    });
    const answer = await callApi<WireClient>(api, "PATCH", clientRoute(id), {
      token,
      json: { session_transfer: { delegation: null } },
    });
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body.session_transfer as object)).not.toContain("delegation");
  });

  it("refuses a default_organization with one of its two members", async () => {
    const answer = await callApi(api, "PATCH", clientRoute(DEFAULT_SEED_IDS.regularWeb), {
      token,
      json: { default_organization: { flows: ["client_credentials"] } },
    });
    expectErrorAnswer(
      answer,
      400,
      "invalid_body",
      "Payload validation error: default_organization: must have both organization_id and flows",
    );
  });

  it("answers a PATCH without a body with the unchanged client", async () => {
    const answer = await callApi(api, "PATCH", clientRoute(DEFAULT_SEED_IDS.spa), { token });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(api.store.getClient(DEFAULT_SEED_IDS.spa));
  });

  it("updates client_secret when the token also has update:client_keys", async () => {
    const answer = await callApi<WireClient>(
      api,
      "PATCH",
      clientRoute(DEFAULT_SEED_IDS.regularWeb),
      {
        token,
        json: { client_secret: "a-new-secret" },
      },
    );
    expect(answer.status).toBe(200);
    expect(api.store.getClient(DEFAULT_SEED_IDS.regularWeb)?.client_secret).toBe("a-new-secret");
  });

  it("answers 404 inexistent_client for an unknown client on PATCH", async () => {
    const answer = await callApi(api, "PATCH", clientRoute("NoSuchClient0000000000000000000x"), {
      token,
      json: { name: "x" },
    });
    expectErrorAnswer(answer, 404, "inexistent_client", "The client does not exist");
  });

  it("answers 404 inexistent_client for an unknown client on GET", async () => {
    const answer = await callApi(api, "GET", clientRoute("NoSuchClient0000000000000000000x"), {
      token,
    });
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ statusCode: 404, errorCode: "inexistent_client" });
  });
});

describe("deleting an event stream", () => {
  it("answers DELETE with 204 and an empty body, and the stream is gone", async () => {
    const id = DEFAULT_SEED_IDS.webhookStream;
    const answer = await callApi(api, "DELETE", streamRoute(id), { token });
    expect(answer.status).toBe(204);
    expect(answer.text).toBe("");
    expect(api.store.eventStreamExists(id)).toBe(false);
  });

  it("answers 204 with an empty body for a stream already deleted", async () => {
    const id = DEFAULT_SEED_IDS.webhookStream;
    expect((await callApi(api, "DELETE", streamRoute(id), { token })).status).toBe(204);
    const again = await callApi(api, "DELETE", streamRoute(id), { token });
    expect([again.status, again.text]).toEqual([204, ""]);
  });

  it("answers GET with the stored stream, and the platform's 404 once it is deleted", async () => {
    const id = DEFAULT_SEED_IDS.eventBridgeStream;
    const found = await callApi<{ id: string }>(api, "GET", streamRoute(id), { token });
    expect(found.status).toBe(200);
    expect(found.body.id).toBe(id);
    await callApi(api, "DELETE", streamRoute(id), { token });
    const missing = await callApi(api, "GET", streamRoute(id), { token });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      statusCode: 404,
      error: "Not Found",
      message: "The requested stream does not exist.",
    });
  });

  it("answers 200 again when a test puts the stream back (it exists again)", async () => {
    const id = DEFAULT_SEED_IDS.webhookStream;
    await callApi(api, "DELETE", streamRoute(id), { token });
    api.store.putEventStream({ id, name: "recreated" });
    const answer = await callApi(api, "GET", streamRoute(id), { token });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ id, name: "recreated" });
  });

  it("ignores an empty JSON body on DELETE", async () => {
    const answer = await callApi(api, "DELETE", streamRoute(DEFAULT_SEED_IDS.webhookStream), {
      token,
      raw: "",
      headers: { "content-type": "application/json" },
    });
    expect(answer.status).toBe(204);
  });
});

describe("error bodies", () => {
  it("answers malformed JSON with 400 invalid_body in the platform's error shape", async () => {
    const answer = await callApi(api, "PUT", PROVIDER, {
      token,
      raw: "{not json",
      headers: { "content-type": "application/json" },
    });
    expectErrorAnswer(
      answer,
      400,
      "invalid_body",
      "Body is not valid JSON but content-type is set to 'application/json'",
    );
  });

  it("answers an unsupported content type with 415 in the platform's error shape", async () => {
    const answer = await callApi(api, "PUT", PROVIDER, {
      token,
      raw: "<provider>sns</provider>",
      headers: { "content-type": "application/xml" },
    });
    expect(answer.status).toBe(415);
    expect(answer.body).toMatchObject({
      statusCode: 415,
      error: "Unsupported Media Type",
      errorCode: "unsupported_media_type",
    });
    expect(Object.keys(answer.body as object).sort()).toEqual([
      "error",
      "errorCode",
      "message",
      "statusCode",
    ]);
  });

  it("answers a management route it does not serve with 501 not_implemented, naming it", async () => {
    const answer = await callApi(api, "GET", "/api/v2/connections", { token });
    expectErrorAnswer(
      answer,
      501,
      "not_implemented",
      "the local tenant does not serve GET /api/v2/connections: it serves only what pulumi-tenant calls (the clients, the event streams and the push provider selection)",
    );
  });

  it("answers a path outside the management API with 404 not_found in the platform's error shape", async () => {
    const answer = await callApi(api, "GET", "/api/v3/clients", { token });
    expectErrorAnswer(answer, 404, "not_found", "Route GET:/api/v3/clients not found");
  });

  it("answers a path that is not valid URL encoding with 400 invalid_uri", async () => {
    const answer = await callApi(api, "GET", "/api/v2/clients/%E0%A4%A", { token });
    expectErrorAnswer(
      answer,
      400,
      "invalid_uri",
      "Path validation error: the path is not a valid URL",
    );
  });

  it("answers a path parameter longer than 1000 characters with 414 invalid_uri", async () => {
    const answer = await callApi(api, "GET", clientRoute("x".repeat(1001)), { token });
    expectErrorAnswer(
      answer,
      414,
      "invalid_uri",
      "Path validation error: a path parameter is longer than 1000 characters",
    );
  });

  it("answers a route it does not serve before looking at the token", async () => {
    const answer = await callApi(api, "GET", "/api/v2/connections");
    expect(answer.status).toBe(501);
  });

  it("answers a method the route does not have with 404 not_found", async () => {
    const answer = await callApi(api, "POST", clientRoute(DEFAULT_SEED_IDS.spa), {
      token,
      json: {},
    });
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ errorCode: "not_found" });
  });
});

describe("seeded tenant", () => {
  it("seeds a regular web app, a SPA and a strict third-party client", () => {
    const web = api.store.getClient(DEFAULT_SEED_IDS.regularWeb);
    const spa = api.store.getClient(DEFAULT_SEED_IDS.spa);
    const thirdParty = api.store.getClient(DEFAULT_SEED_IDS.strictThirdParty);
    expect(web?.app_type).toBe("regular_web");
    expect(spa?.app_type).toBe("spa");
    expect(thirdParty).toMatchObject({
      is_first_party: false,
      third_party_security_mode: "strict",
    });
  });

  it("gives every client id 32 letters and digits and every stream id est_ and 22 more", () => {
    for (const id of api.clients) expect(id).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(api.eventStreams).toHaveLength(2);
    for (const id of api.eventStreams) expect(id).toMatch(/^est_[A-Za-z0-9]{22}$/);
  });

  it("answers the response-only fields and the platform's create defaults of a regular client", async () => {
    const answer = await callApi<WireClient>(api, "GET", clientRoute(DEFAULT_SEED_IDS.regularWeb), {
      token,
    });
    const body = answer.body;
    expect(body).toMatchObject({
      client_id: DEFAULT_SEED_IDS.regularWeb,
      tenant: "local-tenant",
      global: false,
      token_endpoint_auth_method: "client_secret_post",
      custom_login_page_on: true,
      is_token_endpoint_ip_header_trusted: false,
      sso_disabled: false,
    });
    // Defaults the platform does not answer on a client created without them.
    for (const field of ["organization_usage", "organization_require_behavior", "sso"]) {
      expect(body).not.toHaveProperty(field);
    }
    expect(Array.isArray(body.signing_keys)).toBe(true);
    expect(body.signing_keys).toEqual([
      expect.objectContaining({ cert: expect.any(String), subject: expect.any(String) }),
    ]);
    // Present only for clients registered through metadata documents or linked to an API.
    for (const field of RESPONSE_ONLY_FIELDS.filter((f) =>
      /^(external_|jwks_uri|resource_)/.test(f),
    )) {
      expect(body).not.toHaveProperty(field);
    }
  });

  it("makes the printed credentials belong to a machine-to-machine client of the tenant", () => {
    const admin = api.store.getClient(api.clientId);
    expect(admin).toMatchObject({ app_type: "non_interactive", client_secret: api.clientSecret });
    expect(api.clients).toContain(api.clientId);
    expect(api.clients).toContain(api.readOnly.clientId);
    expect(api.store.getClient(api.readOnly.clientId)?.app_type).toBe("non_interactive");
  });
});
