/**
 * Authentication of the local tenant API (docs/design/platform.md, "The three operations"): the client credentials grant at
 * `/oauth/token`, tokens verified for real (signature, expiry, audience, issuer) and the scope each
 * route needs (docs/design/platform.md).
 */

import { beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_SCOPES,
  DEFAULT_SEED_IDS,
  type TenantApi,
  type TokenResponse,
} from "../provider/local-tenant/index.js";
import {
  clientRoute,
  errorBody,
  PROVIDER,
  streamRoute,
  useTenantApi,
} from "./support/tenant-api-suite.js";
import { callApi, fetchToken } from "./support/test-client.js";

const WEB = clientRoute(DEFAULT_SEED_IDS.regularWeb);
const STREAM = streamRoute(DEFAULT_SEED_IDS.webhookStream);

let now = Date.UTC(2030, 0, 1);
let api: TenantApi;
useTenantApi(
  { random: 3, tokenTtlSeconds: 600, clock: () => now },
  (started) => {
    api = started;
  },
  { token: false },
);

function tokenRequest(parameters: Record<string, string>) {
  return callApi<TokenResponse & { error?: string; error_description?: string }>(
    api,
    "POST",
    "/oauth/token",
    { form: parameters },
  );
}

function adminParameters(): Record<string, string> {
  return {
    grant_type: "client_credentials",
    client_id: api.clientId,
    client_secret: api.clientSecret,
    audience: api.audience,
  };
}

describe("token endpoint (client credentials)", () => {
  it("issues a Bearer JWT with the client's granted scopes from a form body", async () => {
    const answer = await tokenRequest(adminParameters());
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      token_type: "Bearer",
      expires_in: 600,
      scope: ADMIN_SCOPES.join(" "),
    });
    expect(answer.headers.get("cache-control")).toBe("no-store");
  });

  it("accepts a JSON body", async () => {
    const answer = await callApi<TokenResponse>(api, "POST", "/oauth/token", {
      json: adminParameters(),
    });
    expect(answer.status).toBe(200);
    expect(answer.body.token_type).toBe("Bearer");
  });

  it("accepts client credentials in HTTP Basic authentication", async () => {
    const basic = Buffer.from(`${api.clientId}:${api.clientSecret}`).toString("base64");
    const answer = await callApi<TokenResponse>(api, "POST", "/oauth/token", {
      form: { grant_type: "client_credentials", audience: api.audience },
      headers: { authorization: `Basic ${basic}` },
    });
    expect(answer.status).toBe(200);
  });

  it("accepts the token URL with a trailing slash, as the spec writes it", async () => {
    const answer = await callApi(api, "POST", "/oauth/token/", { form: adminParameters() });
    expect(answer.status).toBe(200);
  });

  it("signs tokens that verify against the published key set with the expected claims", async () => {
    const jose = await import("jose");
    const token = await fetchToken(api);
    const jwks = await callApi<{ keys: object[] }>(api, "GET", "/.well-known/jwks.json");
    expect(jwks.status).toBe(200);
    const { payload, protectedHeader } = await jose.jwtVerify(
      token,
      jose.createLocalJWKSet(jwks.body as Parameters<typeof jose.createLocalJWKSet>[0]),
      { issuer: `${api.domain}/`, audience: api.audience, currentDate: new Date(now) },
    );
    expect(protectedHeader.alg).toBe("RS256");
    expect(payload).toMatchObject({
      iss: `${api.domain}/`,
      aud: api.audience,
      sub: `${api.clientId}@clients`,
      azp: api.clientId,
      gty: "client-credentials",
      scope: ADMIN_SCOPES.join(" "),
      iat: Math.floor(now / 1000),
      exp: Math.floor(now / 1000) + 600,
    });
  });

  it("issues only the requested subset of the granted scopes when scope is sent", async () => {
    const answer = await tokenRequest({ ...adminParameters(), scope: "read:clients openid" });
    expect(answer.status).toBe(200);
    expect(answer.body.scope).toBe("read:clients");
    const limited = answer.body.access_token;
    expect((await callApi(api, "GET", WEB, { token: limited })).status).toBe(200);
    expect((await callApi(api, "GET", PROVIDER, { token: limited })).status).toBe(403);
  });

  it("answers 403 access_denied when none of the requested scopes is granted", async () => {
    const answer = await tokenRequest({ ...adminParameters(), scope: "delete:users" });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({
      error: "access_denied",
      error_description: "Client has not been granted scopes: delete:users",
    });
  });

  it("answers 401 access_denied for a wrong client secret", async () => {
    const answer = await tokenRequest({ ...adminParameters(), client_secret: "wrong" });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ error: "access_denied", error_description: "Unauthorized" });
  });

  it("answers 401 access_denied for an unknown client", async () => {
    const answer = await tokenRequest({ ...adminParameters(), client_id: "nobody" });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ error: "access_denied", error_description: "Unauthorized" });
  });

  it("answers 400 invalid_request when client_id is missing", async () => {
    const { client_id: _, ...parameters } = adminParameters();
    const answer = await tokenRequest(parameters);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      error: "invalid_request",
      error_description: "Missing required parameter: client_id",
    });
  });

  it("answers 400 unsupported_grant_type for another grant", async () => {
    const answer = await tokenRequest({ ...adminParameters(), grant_type: "password" });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      error: "unsupported_grant_type",
      error_description: "Unsupported grant type: password",
    });
  });

  it("answers 403 access_denied for an audience other than the management API", async () => {
    const answer = await tokenRequest({ ...adminParameters(), audience: "https://other/api/" });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({
      error: "access_denied",
      error_description: "Service not found: https://other/api/",
    });
  });

  it("answers 403 unauthorized_client for a client without the client_credentials grant", async () => {
    const answer = await tokenRequest({
      ...adminParameters(),
      client_id: DEFAULT_SEED_IDS.regularWeb,
      client_secret: String(api.store.getClient(DEFAULT_SEED_IDS.regularWeb)?.client_secret),
    });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({
      error: "unauthorized_client",
      error_description: "Grant type 'client_credentials' not allowed for the client.",
    });
  });

  it("accepts the new secret, not the old one, after a PATCH rotates it", async () => {
    const token = await fetchToken(api);
    const patched = await callApi(api, "PATCH", `/api/v2/clients/${api.clientId}`, {
      token,
      json: { client_secret: "rotated-secret" },
    });
    expect(patched.status).toBe(200);
    expect((await tokenRequest(adminParameters())).status).toBe(401);
    expect(
      (await tokenRequest({ ...adminParameters(), client_secret: "rotated-secret" })).status,
    ).toBe(200);
  });
});

describe("401 for a token that is missing, malformed, expired or wrongly signed ", () => {
  const unauthorized = (message: string) => errorBody(401, "invalid_token", message);

  it("answers 401 when the Authorization header is missing", async () => {
    const answer = await callApi(api, "GET", PROVIDER);
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual(unauthorized("Missing authentication"));
    expect(answer.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("answers 401 when the Authorization header is not a Bearer token", async () => {
    const answer = await callApi(api, "GET", PROVIDER, {
      headers: { authorization: `Basic ${Buffer.from("a:b").toString("base64")}` },
    });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual(unauthorized("Bad HTTP authentication header format"));
  });

  it("answers 401 when the token is not a well-formed JWT", async () => {
    const answer = await callApi(api, "GET", PROVIDER, { token: "not.a.jwt" });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual(unauthorized("Invalid token: not a well-formed JWT"));
  });

  it("answers 401 when the token has expired", async () => {
    const token = await api.mintToken({ scopes: ADMIN_SCOPES, expiresIn: -60 });
    const answer = await callApi(api, "GET", PROVIDER, { token });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual(unauthorized("Expired token"));
  });

  it("answers 401 when a token from the token endpoint outlives its expires_in", async () => {
    const token = await fetchToken(api);
    expect((await callApi(api, "GET", PROVIDER, { token })).status).toBe(200);
    now += 601_000;
    try {
      const answer = await callApi(api, "GET", PROVIDER, { token });
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual(unauthorized("Expired token"));
    } finally {
      now -= 601_000;
    }
  });

  it("answers 401 when the token is signed by another key", async () => {
    const token = await api.mintToken({ scopes: ADMIN_SCOPES, signWithForeignKey: true });
    const answer = await callApi(api, "GET", PROVIDER, { token });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual(unauthorized("Invalid signature"));
  });

  it("answers 401 when the token's signature was tampered with", async () => {
    const token = await fetchToken(api);
    const [header, payload, signature = ""] = token.split(".");
    const flipped = `${signature.slice(0, -2)}${signature.endsWith("AA") ? "BB" : "AA"}`;
    const answer = await callApi(api, "GET", PROVIDER, {
      token: `${header}.${payload}.${flipped}`,
    });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual(unauthorized("Invalid signature"));
  });

  it("answers 401 when the token is meant for another audience", async () => {
    const token = await api.mintToken({ scopes: ADMIN_SCOPES, audience: "https://other/api/" });
    const answer = await callApi(api, "GET", PROVIDER, { token });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual(unauthorized("Bad audience"));
  });

  it("answers 401 when the token comes from another issuer", async () => {
    const token = await api.mintToken({ scopes: ADMIN_SCOPES, issuer: "https://elsewhere/" });
    const answer = await callApi(api, "GET", PROVIDER, { token });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual(unauthorized("Bad issuer"));
  });

  it("checks the token before the body: no token and a bad body is still 401", async () => {
    const answer = await callApi(api, "PUT", PROVIDER, { json: { provider: "nope" } });
    expect(answer.status).toBe(401);
  });
});

describe("403 naming the missing scope", () => {
  const forbidden = (scope: string) =>
    errorBody(403, "insufficient_scope", `Insufficient scope, expected any of: ${scope}`);
  let readOnly: string;

  beforeAll(async () => {
    readOnly = await fetchToken(api, api.readOnly);
  });

  it("answers 403 naming update:guardian_factors for PUT selected provider", async () => {
    const answer = await callApi(api, "PUT", PROVIDER, {
      token: readOnly,
      json: { provider: "sns" },
    });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual(forbidden("update:guardian_factors"));
    expect(api.store.getProvider()).toBe("guardian");
  });

  it("answers 403 naming read:guardian_factors for GET selected provider", async () => {
    const token = await api.mintToken({ scopes: ["read:clients"] });
    const answer = await callApi(api, "GET", PROVIDER, { token });
    expect(answer.body).toEqual(forbidden("read:guardian_factors"));
  });

  it("answers 403 naming update:clients for PATCH client", async () => {
    const answer = await callApi(api, "PATCH", WEB, { token: readOnly, json: { name: "x" } });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual(forbidden("update:clients"));
  });

  it("answers 403 naming update:client_keys when a PATCH changes client_secret without it", async () => {
    const token = await api.mintToken({ scopes: ["update:clients"] });
    const answer = await callApi(api, "PATCH", WEB, { token, json: { client_secret: "s3cret" } });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual(forbidden("update:client_keys"));
  });

  it("answers 403 naming update:client_keys when a PATCH changes encryption_key without it", async () => {
    const token = await api.mintToken({ scopes: ["update:clients"] });
    const answer = await callApi(api, "PATCH", WEB, {
      token,
      json: { encryption_key: null },
    });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual(forbidden("update:client_keys"));
  });

  it("accepts a PATCH of other fields with update:clients alone", async () => {
    const token = await api.mintToken({ scopes: ["update:clients"] });
    const answer = await callApi(api, "PATCH", WEB, { token, json: { sso: true } });
    expect(answer.status).toBe(200);
  });

  it("answers 403 naming read:clients for GET client", async () => {
    const token = await api.mintToken({ scopes: ["update:clients"] });
    const answer = await callApi(api, "GET", WEB, { token });
    expect(answer.body).toEqual(forbidden("read:clients"));
  });

  it("answers 403 naming delete:event_streams for DELETE event stream", async () => {
    const answer = await callApi(api, "DELETE", STREAM, { token: readOnly });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual(forbidden("delete:event_streams"));
    expect(api.store.eventStreamExists(DEFAULT_SEED_IDS.webhookStream)).toBe(true);
  });

  it("answers 403 naming read:event_streams for GET event stream", async () => {
    const token = await api.mintToken({ scopes: ["delete:event_streams"] });
    const answer = await callApi(api, "GET", STREAM, { token });
    expect(answer.body).toEqual(forbidden("read:event_streams"));
  });

  it("lets the read-only client read what its scopes cover", async () => {
    expect((await callApi(api, "GET", PROVIDER, { token: readOnly })).status).toBe(200);
    expect((await callApi(api, "GET", WEB, { token: readOnly })).status).toBe(200);
    expect((await callApi(api, "GET", STREAM, { token: readOnly })).status).toBe(200);
  });

  it("checks the scope before the body: a bad body without the scope is 403", async () => {
    const answer = await callApi(api, "PUT", PROVIDER, {
      token: readOnly,
      json: { provider: "nope" },
    });
    expect(answer.status).toBe(403);
  });
});
