import { inspect } from "node:util";
import type { AxiosError } from "axios";
import { afterEach, describe, expect, it } from "vitest";
import { ClientCredentialsTokenSource, tokenScopes } from "../provider/api/auth.js";
import { TenantApiClient } from "../provider/api/client.js";
import { createAuthHttp, retryDelayMs } from "../provider/api/http.js";
import type { OperationContext } from "../provider/api/operation.js";
import { DEFAULT_PACING_BUDGET } from "../provider/api/pacing-budget.js";
import type { Credentials, TenantSettings } from "../provider/config.js";
import {
  TenantApiError,
  TenantAuthError,
  TenantNetworkError,
  TenantTimeoutError,
} from "../provider/errors.js";
import {
  inOrder,
  type ScriptedServer,
  type Step,
  startScriptedServer,
} from "./support/scripted-server.js";

const fastRetries = { retries: 2, baseDelayMs: 5, maxDelayMs: 20 };
const TOKEN = "static-token-value-1234";
const SECRET = "client-secret-value-5678";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

function settingsFor(
  url: string,
  credentials?: Credentials,
  requestTimeoutMs = 5000,
): TenantSettings {
  return {
    origin: url,
    baseUrl: `${url}/api/v2`,
    credentials: credentials ?? { kind: "apiToken", token: TOKEN },
    requestTimeoutMs,
    operationTimeoutMs: 30_000,
    budget: DEFAULT_PACING_BUDGET,
  };
}

function context(deadlineMs = 30_000): OperationContext {
  return { resource: 'ClientSettings "web"', signal: AbortSignal.timeout(deadlineMs), deadlineMs };
}

async function clientFor(
  route: Parameters<typeof startScriptedServer>[0],
  options: { credentials?: (url: string) => Credentials; requestTimeoutMs?: number } = {},
): Promise<TenantApiClient> {
  server = await startScriptedServer(route);
  return new TenantApiClient(
    settingsFor(server.url, options.credentials?.(server.url), options.requestTimeoutMs),
    { retryPolicy: fastRetries },
  );
}

const ok: Step = { status: 200, body: { client_id: "abc" } };

describe("TenantApiClient", () => {
  it("sends the bearer token and the JSON body to the path under /api/v2", async () => {
    const client = await clientFor(inOrder(ok));
    const answer = await client.call(context(), {
      method: "PATCH",
      path: "/clients/abc",
      body: { name: "Web" },
    });
    expect(answer).toEqual({ status: 200, data: { client_id: "abc" } });
    const [request] = server?.seen ?? [];
    expect(request).toMatchObject({
      method: "PATCH",
      url: "/api/v2/clients/abc",
      body: '{"name":"Web"}',
    });
    expect(request?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("retries a 503 and returns the answer that follows", async () => {
    const client = await clientFor(inOrder({ status: 503, body: { message: "busy" } }, ok));
    const answer = await client.call(context(), { method: "GET", path: "/clients/abc" });
    expect(answer.status).toBe(200);
    expect(client.stats()).toMatchObject({ attempts: 2, retries: 1 });
  });

  it("retries a 429 after the time the server asked for", async () => {
    const client = await clientFor(
      inOrder(
        { status: 429, body: { errorCode: "too_many_requests" }, headers: { "retry-after": "0" } },
        ok,
      ),
    );
    const answer = await client.call(context(), { method: "GET", path: "/clients/abc" });
    expect(answer.status).toBe(200);
    expect(client.stats()).toMatchObject({ retries: 1, rateLimited: 1 });
  });

  it("fails at once, naming the wait the tenant asked for and the deadline, when the wait ends past the deadline", async () => {
    const client = await clientFor(
      inOrder({
        status: 429,
        body: { errorCode: "too_many_requests" },
        headers: { "retry-after": "120" },
      }),
    );
    const started = Date.now();
    const error = await client
      .call(
        { ...context(5000), deadlineAt: Date.now() + 5000 },
        { method: "GET", path: "/clients/abc" },
      )
      .catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(error).toBeInstanceOf(TenantTimeoutError);
    expect((error as Error).message).toBe(
      'ClientSettings "web": GET /clients/abc was refused by the rate limit (429), and the server asked to wait 120 s ' +
        "(Retry-After) before another try, past the operation deadline of 5 s (set tenant:operationTimeoutSeconds to change it), of which 5 s were left",
    );
  });

  it("retries a connection dropped without an answer", async () => {
    const client = await clientFor(inOrder("drop", ok));
    const answer = await client.call(context(), { method: "DELETE", path: "/event-streams/x" });
    expect(answer.status).toBe(200);
  });

  it("does not retry a 400 and names the resource, request, status and platform message", async () => {
    const client = await clientFor(
      inOrder({
        status: 400,
        body: {
          statusCode: 400,
          error: "Bad Request",
          message: "Payload validation error",
          errorCode: "invalid_body",
        },
      }),
    );
    await expect(
      client.call(context(), { method: "PATCH", path: "/clients/abc", body: {} }),
    ).rejects.toThrowError(
      new TenantApiError({
        method: "PATCH",
        path: "/clients/abc",
        status: 400,
        errorCode: "invalid_body",
        apiMessage: "Payload validation error",
      }).concerning('ClientSettings "web"'),
    );
    expect(server?.seen).toHaveLength(1);
  });

  it("gives up after the retries with the last status", async () => {
    const client = await clientFor(
      inOrder({ status: 500, body: { errorCode: "internal_error", message: "boom" } }),
    );
    await expect(
      client.call(context(), { method: "GET", path: "/clients/abc" }),
    ).rejects.toThrowError(
      'ClientSettings "web": GET /clients/abc failed with 500 internal_error: boom',
    );
    expect(server?.seen).toHaveLength(3);
  });

  it("resolves an accepted error status instead of throwing", async () => {
    const client = await clientFor(
      inOrder({ status: 404, body: { errorCode: "inexistent_event_stream" } }),
    );
    const answer = await client.call(context(), {
      method: "DELETE",
      path: "/event-streams/x",
      accept: [404],
    });
    expect(answer.status).toBe(404);
  });

  it("gives up on a request that never answers after its timeout, without retrying it", async () => {
    const client = await clientFor(inOrder("hang"), { requestTimeoutMs: 150 });
    await expect(
      client.call(context(), { method: "GET", path: "/clients/abc" }),
    ).rejects.toThrowError(
      new TenantTimeoutError(
        `ClientSettings "web": GET /clients/abc got no answer from ${server?.url} within 150 ms ` +
          "(1 attempt); gave up: is a tenant listening there? (tenant:requestTimeoutSeconds sets the wait)",
      ),
    );
    expect(server?.seen).toHaveLength(1);
  });

  it("stops at the operation deadline even while attempts could go on", async () => {
    const client = await clientFor(inOrder("hang"), { requestTimeoutMs: 10_000 });
    await expect(
      client.call(context(300), { method: "GET", path: "/clients/abc" }),
    ).rejects.toThrowError(
      new TenantTimeoutError(
        'ClientSettings "web": GET /clients/abc did not finish within the operation deadline of 0 s ' +
          "(set tenant:operationTimeoutSeconds to change it)",
      ),
    );
  });

  it("reports a refused connection as a network error at once, with its likely fix", async () => {
    server = await startScriptedServer(inOrder(ok));
    const url = server.url;
    await server.stop();
    server = undefined;
    const client = new TenantApiClient(settingsFor(url), { retryPolicy: fastRetries });
    const failure = client.call(context(), { method: "GET", path: "/clients/abc" });
    await expect(failure).rejects.toBeInstanceOf(TenantNetworkError);
    await expect(failure).rejects.toThrow(
      new RegExp(
        `^ClientSettings "web": GET /clients/abc could not reach ${url}: the connection was ` +
          "refused \\(ECONNREFUSED\\): is the tenant running at that address and port\\?$",
      ),
    );
  });

  it("keeps the token out of every error it throws", async () => {
    const client = await clientFor(
      inOrder({
        status: 403,
        body: { message: "Insufficient scope, expected any of: read:clients" },
      }),
    );
    const error = await client
      .call(context(), { method: "GET", path: "/clients/abc" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TenantApiError);
    expect(inspect(error, { depth: 10, showHidden: true })).not.toContain(TOKEN);
    expect(JSON.stringify(error)).not.toContain(TOKEN);
  });
});

describe("TenantApiClient with client credentials", () => {
  const credentialsFor = (url: string): Credentials => ({
    kind: "clientCredentials",
    clientId: "m2m",
    clientSecret: SECRET,
    audience: `${url}/api/v2/`,
    tokenUrl: `${url}/oauth/token`,
  });

  /** A token endpoint that numbers its tokens, in front of an API that accepts `validTokens`. */
  function tenant(validTokens: (token: string) => boolean) {
    let issued = 0;
    return (request: { url: string; headers: Record<string, unknown>; body: string }): Step => {
      if (request.url === "/oauth/token") {
        issued += 1;
        return {
          status: 200,
          body: { access_token: `token-${issued}`, expires_in: 86400, token_type: "Bearer" },
        };
      }
      const token = String(request.headers.authorization).replace("Bearer ", "");
      return validTokens(token)
        ? ok
        : { status: 401, body: { errorCode: "invalid_token", message: "Expired token" } };
    };
  }

  it("asks for one token for many concurrent calls", async () => {
    const client = await clientFor(
      tenant(() => true),
      { credentials: credentialsFor },
    );
    await Promise.all(
      Array.from({ length: 5 }, () =>
        client.call(context(), { method: "GET", path: "/clients/abc" }),
      ),
    );
    expect(client.stats().tokenRequests).toBe(1);
    const tokenRequest = server?.seen.find((r) => r.url === "/oauth/token");
    expect(JSON.parse(tokenRequest?.body ?? "{}")).toEqual({
      grant_type: "client_credentials",
      client_id: "m2m",
      client_secret: SECRET,
      audience: `${server?.url}/api/v2/`,
    });
  });

  it("renews the token once after a 401 and retries the call", async () => {
    const client = await clientFor(
      tenant((token) => token !== "token-1"),
      { credentials: credentialsFor },
    );
    const answer = await client.call(context(), { method: "GET", path: "/clients/abc" });
    expect(answer.status).toBe(200);
    expect(client.stats().tokenRequests).toBe(2);
  });

  it("lets a second 401 stand instead of renewing forever", async () => {
    const client = await clientFor(
      tenant(() => false),
      { credentials: credentialsFor },
    );
    await expect(
      client.call(context(), { method: "GET", path: "/clients/abc" }),
    ).rejects.toThrowError(
      'ClientSettings "web": GET /clients/abc failed with 401 invalid_token: Expired token',
    );
    expect(client.stats().tokenRequests).toBe(2);
  });

  it("fails every operation at once, saying why, when the token endpoint asks for a wait past the token request's limit", async () => {
    const client = await clientFor(
      (request) =>
        request.url === "/oauth/token"
          ? { status: 429, body: { error: "too_many_requests" }, headers: { "retry-after": "600" } }
          : ok,
      { credentials: credentialsFor },
    );
    const started = Date.now();
    const errors = await Promise.all(
      Array.from({ length: 3 }, () =>
        client
          .call(context(5000), { method: "GET", path: "/clients/abc" })
          .catch((e: unknown) => e),
      ),
    );
    expect(Date.now() - started).toBeLessThan(4000);
    for (const error of errors) {
      expect(error).toBeInstanceOf(TenantTimeoutError);
      expect((error as Error).message).toBe(
        `ClientSettings "web": the token request for client m2m to ${server?.url}/oauth/token was refused by the rate limit (429), ` +
          "and the server asked to wait 600 s (Retry-After) before another try, past the token request's own limit of 60 s, of which 60 s were left",
      );
    }
  });

  it("gives up on a token endpoint that never answers within the token request's own limit, saying so", async () => {
    server = await startScriptedServer(() => "hang");
    const url = server.url;
    const http = createAuthHttp({
      timeoutMs: 5000,
      policy: fastRetries,
      stats: { attempts: 0, retries: 0, rateLimited: 0 },
    });
    const credentials = {
      kind: "clientCredentials",
      clientId: "m2m",
      clientSecret: SECRET,
      audience: `${url}/api/v2/`,
      tokenUrl: `${url}/oauth/token`,
    } as const;
    const source = new ClientCredentialsTokenSource(credentials, http, Date.now, 300);
    const started = Date.now();
    const error = await source.getToken().catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error).toBeInstanceOf(TenantTimeoutError);
    expect((error as Error).message).toBe(
      `getting an access token for client m2m from ${url}/oauth/token did not finish within the token request's own limit of 300 ms`,
    );
  });

  it("names the client and the token endpoint's answer when the credentials are refused, not the secret", async () => {
    const client = await clientFor(
      inOrder({ status: 401, body: { error: "access_denied", error_description: "Unauthorized" } }),
      { credentials: credentialsFor },
    );
    const error = await client
      .call(context(), { method: "GET", path: "/clients/abc" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TenantAuthError);
    expect((error as Error).message).toBe(
      `ClientSettings "web": getting an access token for client m2m from ${server?.url}/oauth/token failed with 401 access_denied: Unauthorized; ` +
        "check the client secret given for client m2m",
    );
    expect(inspect(error, { depth: 10, showHidden: true })).not.toContain(SECRET);
  });
});

/** A JWT with `claims` as its payload; the signature is not looked at. */
const jwtWith = (claims: object): string =>
  ["{}", JSON.stringify(claims), "sig"]
    .map((part) => Buffer.from(part).toString("base64url"))
    .join(".");

describe("tokenScopes", () => {
  it("reads the space-separated scope claim of a JWT", () => {
    expect(tokenScopes(jwtWith({ scope: "read:clients  update:clients" }))).toEqual([
      "read:clients",
      "update:clients",
    ]);
  });

  it("reads a scope claim given as a list", () => {
    expect(tokenScopes(jwtWith({ scope: ["read:clients"] }))).toEqual(["read:clients"]);
  });

  it("cannot read the scopes of an opaque token", () => {
    expect(tokenScopes(TOKEN)).toBeUndefined();
  });

  it("cannot read the scopes of a JWT without a scope claim", () => {
    expect(tokenScopes(jwtWith({ sub: "m2m" }))).toBeUndefined();
  });
});

describe("TenantApiClient.grantedScopes", () => {
  it("reads the scopes of the token the credentials get, sharing it with the calls", async () => {
    const token = jwtWith({ scope: "read:clients update:clients" });
    const client = await clientFor(
      (request) =>
        request.url === "/oauth/token"
          ? { status: 200, body: { access_token: token, expires_in: 86400 } }
          : ok,
      {
        credentials: (url) => ({
          kind: "clientCredentials",
          clientId: "m2m",
          clientSecret: SECRET,
          audience: `${url}/api/v2/`,
          tokenUrl: `${url}/oauth/token`,
        }),
      },
    );
    expect(await client.grantedScopes(context())).toEqual(["read:clients", "update:clients"]);
    await client.call(context(), { method: "GET", path: "/clients/abc" });
    expect(client.stats().tokenRequests).toBe(1);
  });

  it("cannot read the scopes when no token can be had", async () => {
    const client = await clientFor(() => ({ status: 401, body: { error: "access_denied" } }), {
      credentials: (url) => ({
        kind: "clientCredentials",
        clientId: "m2m",
        clientSecret: SECRET,
        audience: `${url}/api/v2/`,
        tokenUrl: `${url}/oauth/token`,
      }),
    });
    expect(await client.grantedScopes(context())).toBeUndefined();
  });
});

describe("retryDelayMs", () => {
  const policy = { retries: 8, baseDelayMs: 250, maxDelayMs: 10_000 };
  const answer = (status: number, headers: Record<string, string> = {}) =>
    ({ response: { status, headers } }) as unknown as AxiosError;

  it("waits for Retry-After on a 429, plus at most 250 ms of jitter", () => {
    expect(retryDelayMs(1, answer(429, { "retry-after": "2" }), policy, () => 0)).toBe(2000);
    expect(retryDelayMs(1, answer(429, { "retry-after": "2" }), policy, () => 0.999)).toBeCloseTo(
      2249.75,
    );
  });

  it("takes an empty Retry-After as saying nothing, not as no wait, and waits until the reset", () => {
    const now = () => 1_700_000_000_000;
    const refused = answer(429, { "retry-after": "", "x-ratelimit-reset": "1700000003" });
    expect(retryDelayMs(1, refused, policy, () => 0, now)).toBe(3000);
  });

  it("reads the reset by the tenant's clock when the answer has a Date", () => {
    // The tenant's clock is 2 s behind ours: its reset is 5 s away, not 3.
    const now = () => 1_700_000_000_000;
    const refused = answer(429, {
      "x-ratelimit-reset": "1700000003",
      date: new Date(1_699_999_998_000).toUTCString(),
    });
    expect(retryDelayMs(1, refused, policy, () => 0, now)).toBe(5000);
  });

  it("never asks for a wait longer than Node's timer can hold, which would fire after 1 ms", () => {
    const refused = answer(429, { "retry-after": "3000000" });
    expect(retryDelayMs(1, refused, policy, () => 0)).toBe(2 ** 31 - 1);
  });

  it("waits until x-ratelimit-reset on a 429 without Retry-After", () => {
    const now = () => 1_700_000_000_000;
    expect(
      retryDelayMs(1, answer(429, { "x-ratelimit-reset": "1700000003" }), policy, () => 0, now),
    ).toBe(3000);
  });

  it("backs off exponentially with jitter for other failures, up to the cap", () => {
    expect(retryDelayMs(1, answer(503), policy, () => 0)).toBe(125);
    expect(retryDelayMs(3, answer(503), policy, () => 1)).toBe(1000);
    expect(retryDelayMs(20, answer(503), policy, () => 1)).toBe(10_000);
  });
});
