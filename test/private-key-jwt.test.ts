/**
 * The provider's own login by private key JWT (RFC 7523; docs/installation-configuration.md, "Configuration"): the settings
 * and their rules, the assertion the provider signs, the local tenant's check of it as the
 * platform does, and the sentence of each refusal.
 */

import { createPublicKey, generateKeyPairSync, verify } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { clientAuthentication, tokenRefusal } from "../provider/api/auth.js";
import { TenantApiClient } from "../provider/api/client.js";
import {
  CLIENT_ASSERTION_LIFETIME_SECONDS,
  signClientAssertion,
} from "../provider/api/client-assertion.js";
import { runAudit } from "../provider/audit/command.js";
import { givenSettingProblems, resolveSettings } from "../provider/config.js";
import { connectionProblems, TENANT_INPUT_NAMING } from "../provider/connection/parse.js";
import { parseGenerateArgs } from "../provider/generate/options.js";
import {
  startTenantApi,
  type TenantApi,
  type TenantApiOptions,
  type TokenResponse,
} from "../provider/local-tenant/index.js";
import { runSnapshot } from "../provider/local-tenant/snapshot.js";
import { type ScriptedServer, startScriptedServer } from "./support/scripted-server.js";
import { callApi } from "./support/test-client.js";

const rsa = (bits = 2048) =>
  generateKeyPairSync("rsa", { modulusLength: bits }).privateKey.export({
    type: "pkcs8",
    format: "pem",
  }) as string;
const KEY = rsa();
const OTHER_KEY = rsa();
const EC_KEY = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({
  type: "pkcs8",
  format: "pem",
}) as string;
/** The body of a PEM, which no message may hold any line of. */
const bodyLines = (pem: string) =>
  pem.split("\n").filter((line) => line !== "" && !line.startsWith("-----"));

const config = (values: Record<string, string>) => ({ get: (key: string) => values[key] });

const DOMAIN = "acme.tenants.example";

function settingsError(values: Record<string, string>, env: NodeJS.ProcessEnv = {}): string {
  try {
    resolveSettings(config(values), env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("the settings resolved");
}

describe("the private key JWT settings", () => {
  it("makes a client assertion login of a client id and a private key, RS256 by default", () => {
    const { credentials, origin } = resolveSettings(
      config({
        "tenant:domain": DOMAIN,
        "tenant:clientId": "deploy",
        "tenant:clientAssertionPrivateKey": KEY,
      }),
      {},
    );
    expect(origin).toBe("https://acme.tenants.example");
    expect(credentials).toMatchObject({
      kind: "privateKeyJwt",
      clientId: "deploy",
      alg: "RS256",
      audience: "https://acme.tenants.example/api/v2/",
      tokenUrl: "https://acme.tenants.example/oauth/token",
      assertionAudience: "https://acme.tenants.example/",
    });
  });

  it("falls back to TENANT_CLIENT_ASSERTION_PRIVATE_KEY and TENANT_CLIENT_ASSERTION_SIGNING_ALG", () => {
    const { credentials } = resolveSettings(undefined, {
      TENANT_DOMAIN: DOMAIN,
      TENANT_CLIENT_ID: "deploy",
      TENANT_CLIENT_ASSERTION_PRIVATE_KEY: KEY,
      TENANT_CLIENT_ASSERTION_SIGNING_ALG: "PS256",
    });
    expect(credentials).toMatchObject({ kind: "privateKeyJwt", alg: "PS256" });
  });

  it("refuses two ways of authenticating, naming both settings", () => {
    expect(
      settingsError({
        "tenant:domain": DOMAIN,
        "tenant:clientId": "deploy",
        "tenant:clientSecret": "s3cret",
        "tenant:clientAssertionPrivateKey": KEY,
      }),
    ).toBe(
      "pulumi-tenant has more than one way of authenticating: tenant:clientSecret and " +
        "tenant:clientAssertionPrivateKey are both set; keep exactly one of " +
        "tenant:clientAssertionPrivateKey, tenant:clientSecret or tenant:apiToken",
    );
  });

  it("counts a setting from the environment as a second way, as it is one", () => {
    expect(
      settingsError(
        {
          "tenant:domain": DOMAIN,
          "tenant:clientId": "deploy",
          "tenant:clientAssertionPrivateKey": KEY,
        },
        { TENANT_API_TOKEN: "tok" },
      ),
    ).toMatch(
      /^pulumi-tenant has more than one way of authenticating: tenant:apiToken and tenant:clientAssertionPrivateKey/,
    );
  });

  it("refuses a private key without the client id", () => {
    expect(
      settingsError({ "tenant:domain": DOMAIN, "tenant:clientAssertionPrivateKey": KEY }),
    ).toMatch(/^pulumi-tenant has incomplete client credentials: tenant:clientId is missing; /);
  });

  it("refuses an algorithm the platform does not accept for client assertions", () => {
    expect(
      settingsError({
        "tenant:domain": DOMAIN,
        "tenant:clientId": "deploy",
        "tenant:clientAssertionPrivateKey": KEY,
        "tenant:clientAssertionSigningAlg": "HS256",
      }),
    ).toBe(
      'tenant:clientAssertionSigningAlg "HS256" is not an algorithm the platform accepts for ' +
        "client assertions; use one of RS256, RS384, PS256",
    );
  });

  it.each([
    [
      "a malformed PEM",
      `-----BEGIN PRIVATE KEY-----\n${bodyLines(KEY).slice(0, 3).join("\n")}\n-----END PRIVATE KEY-----\n`,
      "tenant:clientAssertionPrivateKey is not a readable PEM private key (its body is damaged or encrypted)",
    ],
    [
      "a public key",
      createPublicKey(KEY).export({ type: "spki", format: "pem" }) as string,
      "tenant:clientAssertionPrivateKey is not a PEM private key (it must begin with -----BEGIN PRIVATE KEY----- or -----BEGIN RSA PRIVATE KEY-----; a public key or a certificate is registered on the client, not set here)",
    ],
    [
      "an EC key",
      EC_KEY,
      "tenant:clientAssertionPrivateKey is an EC key; RS256 signs with an RSA private key",
    ],
    [
      "a short RSA key",
      rsa(1024),
      "tenant:clientAssertionPrivateKey is an RSA key of 1024 bits; the platform takes 2048 bits or more",
    ],
  ])("refuses %s without printing any of it", (_what, pem, message) => {
    const error = settingsError({
      "tenant:domain": DOMAIN,
      "tenant:clientId": "deploy",
      "tenant:clientAssertionPrivateKey": pem,
    });
    expect(error).toBe(message);
    for (const line of bodyLines(pem)) expect(error).not.toContain(line);
  });

  it("reports a bad key of the plugin's config at CheckConfig, before any request", () => {
    expect(
      givenSettingProblems(
        config({ "tenant:clientAssertionPrivateKey": EC_KEY, "tenant:clientSecret": "s" }),
      ),
    ).toEqual([
      {
        name: "clientAssertionPrivateKey",
        message:
          "pulumi-tenant has more than one way of authenticating: tenant:clientSecret and " +
          "tenant:clientAssertionPrivateKey are both set; keep exactly one of " +
          "tenant:clientAssertionPrivateKey, tenant:clientSecret or tenant:apiToken",
      },
      {
        name: "clientAssertionPrivateKey",
        message:
          "tenant:clientAssertionPrivateKey is an EC key; RS256 signs with an RSA private key",
      },
    ]);
  });

  it("names the tenant input's members as a program spells them", () => {
    expect(
      connectionProblems(
        { domain: DOMAIN, clientId: "deploy", clientAssertionPrivateKey: EC_KEY },
        TENANT_INPUT_NAMING,
      ),
    ).toEqual([
      {
        setting: "clientAssertionPrivateKey",
        message:
          "tenant.clientAssertionPrivateKey is an EC key; RS256 signs with an RSA private key",
      },
    ]);
  });

  it("reads the commands' key from the file --client-assertion-private-key-file names", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pkjwt-"));
    try {
      await writeFile(join(dir, "key.pem"), KEY);
      const options = parseGenerateArgs([
        "--out",
        dir,
        "--client-assertion-private-key-file",
        join(dir, "key.pem"),
        "--client-assertion-signing-alg",
        "RS384",
      ]);
      if (options === "help") throw new Error("help");
      expect(options.config.get("tenant:clientAssertionPrivateKey")).toBe(KEY);
      expect(options.config.get("tenant:clientAssertionSigningAlg")).toBe("RS384");
      expect(() =>
        parseGenerateArgs([
          "--out",
          dir,
          "--client-assertion-private-key-file",
          join(dir, "none.pem"),
        ]),
      ).toThrow(
        `--client-assertion-private-key-file ${join(dir, "none.pem")}: cannot read the file (ENOENT)`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("the client assertion", () => {
  const key = resolveSettings(
    config({
      "tenant:domain": DOMAIN,
      "tenant:clientId": "c",
      "tenant:clientAssertionPrivateKey": KEY,
    }),
    {},
  ).credentials;
  if (key.kind !== "privateKeyJwt") throw new Error("not a key login");

  it.each(["RS256", "RS384", "PS256"] as const)(
    "names the client as iss and sub, the tenant as aud, a jti, iat and a one-minute exp, signed %s",
    (alg) => {
      const jwt = signClientAssertion(
        { clientId: "deploy", audience: "https://acme.tenants.example/", alg, key: key.privateKey },
        Date.UTC(2030, 0, 1),
        "jti-1",
      );
      const [header = "", payload = "", signature = ""] = jwt.split(".");
      const read = (part: string) => JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
      expect(read(header)).toEqual({ alg, typ: "JWT" });
      const iat = Date.UTC(2030, 0, 1) / 1000;
      expect(read(payload)).toEqual({
        iss: "deploy",
        sub: "deploy",
        aud: "https://acme.tenants.example/",
        jti: "jti-1",
        iat,
        exp: iat + CLIENT_ASSERTION_LIFETIME_SECONDS,
      });
      const pss = alg === "PS256" ? { padding: 6, saltLength: 32 } : {};
      expect(
        verify(
          alg === "RS384" ? "sha384" : "sha256",
          Buffer.from(`${header}.${payload}`),
          { key: createPublicKey(KEY), ...pss },
          Buffer.from(signature, "base64url"),
        ),
      ).toBe(true);
    },
  );

  it("carries a new jti in every assertion", () => {
    const claims = { clientId: "d", audience: "a", alg: "RS256" as const, key: key.privateKey };
    const jti = (jwt: string) =>
      JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString("utf8")).jti;
    expect(jti(signClientAssertion(claims, 0))).not.toBe(jti(signClientAssertion(claims, 0)));
  });
});

describe("the token request of a private key JWT login", () => {
  const credentials = resolveSettings(
    config({
      "tenant:domain": DOMAIN,
      "tenant:clientId": "deploy",
      "tenant:clientAssertionPrivateKey": KEY,
    }),
    {},
  ).credentials;
  if (credentials.kind !== "privateKeyJwt") throw new Error("not a key login");

  it("sends the client id and a jwt-bearer client assertion, and no secret", () => {
    const body = clientAuthentication(credentials, Date.UTC(2030, 0, 1));
    expect(Object.keys(body)).toEqual(["client_id", "client_assertion_type", "client_assertion"]);
    expect(body).toMatchObject({
      client_id: "deploy",
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
    });
  });

  it.each([
    ["a wrong key", "Invalid client_assertion signature: no credential of the client verifies it"],
    ["an expired assertion", "client_assertion has expired"],
    ["a replayed assertion", "client_assertion jti has already been used"],
    [
      "a disallowed algorithm",
      "Algorithm RS384 does not match the algorithm of the client's credentials",
    ],
  ])(
    "words the refusal of %s as one sentence naming the client and the settings",
    (_what, said) => {
      expect(
        tokenRefusal(credentials, 401, { error: "invalid_client", error_description: said }),
      ).toBe(
        "the token endpoint https://acme.tenants.example/oauth/token refused the client assertion " +
          `of client deploy (401 invalid_client: ${said}); check that ` +
          "tenant:clientAssertionPrivateKey is the private key of a public key registered on client " +
          "deploy for private_key_jwt, with the algorithm of tenant:clientAssertionSigningAlg (RS256)",
      );
    },
  );

  it("words other refusals as before", () => {
    expect(
      tokenRefusal(credentials, 403, {
        error: "access_denied",
        error_description: "Service not found: x",
      }),
    ).toBe(
      "getting an access token for client deploy from https://acme.tenants.example/oauth/token " +
        "failed with 403 access_denied: Service not found: x",
    );
  });
});

describe("the local tenant's token endpoint, for a client that logs in by private key JWT", () => {
  let api: TenantApi | undefined;
  let now = Date.UTC(2030, 0, 1);
  afterEach(async () => {
    await api?.stop();
    api = undefined;
    now = Date.UTC(2030, 0, 1);
  });

  async function tenant(options: TenantApiOptions = {}): Promise<TenantApi> {
    api = await startTenantApi({ privateKeyJwt: true, clock: () => now, ...options });
    return api;
  }

  function assertion(
    started: TenantApi,
    overrides: {
      key?: string;
      alg?: "RS256" | "RS384" | "PS256";
      audience?: string;
      at?: number;
      jti?: string;
    } = {},
  ): string {
    const settings = resolveSettings(
      config({
        "tenant:domain": started.domain,
        "tenant:clientId": started.clientId,
        "tenant:clientAssertionPrivateKey":
          overrides.key ?? started.clientAssertionPrivateKey ?? "",
      }),
      {},
    );
    if (settings.credentials.kind !== "privateKeyJwt") throw new Error("not a key login");
    return signClientAssertion(
      {
        clientId: started.clientId,
        audience: overrides.audience ?? `${started.domain}/`,
        alg: overrides.alg ?? "RS256",
        key: settings.credentials.privateKey,
      },
      overrides.at ?? now,
      overrides.jti,
    );
  }

  function tokenRequest(started: TenantApi, form: Record<string, string>) {
    return callApi<TokenResponse & { error?: string; error_description?: string }>(
      started,
      "POST",
      "/oauth/token",
      { form: { grant_type: "client_credentials", audience: started.audience, ...form } },
    );
  }

  const byAssertion = (jwt: string) => ({
    client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
    client_assertion: jwt,
  });

  it("issues a token for an assertion signed by the registered key", async () => {
    const started = await tenant();
    const answer = await tokenRequest(started, {
      client_id: started.clientId,
      ...byAssertion(assertion(started)),
    });
    expect(answer.status).toBe(200);
    expect(answer.body.token_type).toBe("Bearer");
  });

  it("finds the client by the assertion's sub when the body has no client_id", async () => {
    const started = await tenant();
    const answer = await tokenRequest(started, byAssertion(assertion(started)));
    expect(answer.status).toBe(200);
  });

  it.each([
    [
      "signed by another key",
      { key: OTHER_KEY },
      "Invalid client_assertion signature: no credential of the client verifies it",
    ],
    [
      "signed with an algorithm the key is not registered for",
      { alg: "RS384" as const },
      "Algorithm RS384 does not match the algorithm of the client's credentials",
    ],
    [
      "meant for another audience",
      { audience: "https://other.example/" },
      "client_assertion aud must be AUD",
    ],
    ["expired", { at: Date.UTC(2030, 0, 1) - 120_000 }, "client_assertion has expired"],
    [
      "issued in the future",
      { at: Date.UTC(2030, 0, 1) + 120_000 },
      "client_assertion iat is in the future",
    ],
  ])("refuses an assertion %s, as invalid_client", async (_what, overrides, description) => {
    const started = await tenant();
    const answer = await tokenRequest(started, byAssertion(assertion(started, overrides)));
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({
      error: "invalid_client",
      error_description: description.replace("AUD", `${started.domain}/`),
    });
  });

  it("refuses an assertion it has seen before", async () => {
    const started = await tenant();
    const jwt = assertion(started);
    expect((await tokenRequest(started, byAssertion(jwt))).status).toBe(200);
    const again = await tokenRequest(started, byAssertion(jwt));
    expect([again.status, again.body]).toEqual([
      401,
      { error: "invalid_client", error_description: "client_assertion jti has already been used" },
    ]);
  });

  it("refuses the client's secret once it logs in by private key JWT", async () => {
    const started = await tenant();
    const answer = await tokenRequest(started, {
      client_id: started.clientId,
      client_secret: started.clientSecret,
    });
    expect([answer.status, answer.body]).toEqual([
      401,
      {
        error: "invalid_client",
        error_description:
          "Client authentication with a client secret is not allowed: the client authenticates with private_key_jwt",
      },
    ]);
  });

  it("keeps the client's keys out of every client read, its methods naming them", async () => {
    const started = await tenant();
    const client = started.store.getClient(started.clientId);
    // No token endpoint method: the platform leaves the field out of such a client.
    expect(client).not.toHaveProperty("token_endpoint_auth_method");
    expect(client).toMatchObject({
      client_authentication_methods: {
        private_key_jwt: { credentials: [{ id: "cred_deployment" }] },
      },
    });
    const token = await tokenRequest(started, byAssertion(assertion(started)));
    const read = await callApi<Record<string, unknown>>(
      started,
      "GET",
      `/api/v2/clients/${started.clientId}`,
      {
        token: token.body.access_token,
      },
    );
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty("credentials");
  });
});

describe("the provider's login by private key JWT", () => {
  let api: TenantApi | undefined;
  afterEach(async () => {
    await api?.stop();
    api = undefined;
  });

  function clientOf(started: TenantApi, values: Record<string, string>): TenantApiClient {
    return new TenantApiClient(
      resolveSettings(
        config({ "tenant:domain": started.domain, "tenant:clientId": started.clientId, ...values }),
        {},
      ),
    );
  }

  const call = (client: TenantApiClient) =>
    client.call(
      { resource: "test", signal: AbortSignal.timeout(10_000), deadlineMs: 10_000 },
      { method: "GET", path: "/clients", accept: [] },
    );

  it("gets one token for every request of the run", async () => {
    api = await startTenantApi({ privateKeyJwt: true });
    const client = clientOf(api, {
      "tenant:clientAssertionPrivateKey": api.clientAssertionPrivateKey ?? "",
    });
    await Promise.all([call(client), call(client), call(client)]);
    await call(client);
    expect(client.stats().tokenRequests).toBe(1);
  });

  it("says which client was refused and which settings to check, never the key", async () => {
    api = await startTenantApi({ privateKeyJwt: true });
    const client = clientOf(api, { "tenant:clientAssertionPrivateKey": OTHER_KEY });
    const error = await call(client).then(
      () => undefined,
      (failure: Error) => failure,
    );
    expect(error?.message).toContain(
      `the token endpoint ${api.domain}/oauth/token refused the client assertion of client ${api.clientId} ` +
        "(401 invalid_client: Invalid client_assertion signature: no credential of the client verifies it); " +
        `check that tenant:clientAssertionPrivateKey is the private key of a public key registered on client ${api.clientId} ` +
        "for private_key_jwt, with the algorithm of tenant:clientAssertionSigningAlg (RS256)",
    );
    for (const line of bodyLines(OTHER_KEY)) expect(error?.message).not.toContain(line);
  });
});

describe("a retried token request", () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it("carries a new assertion, since the endpoint accepts each jti once", async () => {
    server = await startScriptedServer((request, index) => {
      if (request.url !== "/oauth/token") return { status: 200, body: [] };
      return index === 0
        ? { status: 503, body: { error: "temporarily_unavailable" } }
        : { status: 200, body: { access_token: "t", expires_in: 86400, token_type: "Bearer" } };
    });
    const client = new TenantApiClient(
      resolveSettings(
        config({
          "tenant:domain": server.url,
          "tenant:clientId": "deploy",
          "tenant:clientAssertionPrivateKey": KEY,
        }),
        {},
      ),
      { retryPolicy: { retries: 2, baseDelayMs: 5, maxDelayMs: 20 } },
    );
    await client.call(
      { resource: "test", signal: AbortSignal.timeout(10_000), deadlineMs: 10_000 },
      { method: "GET", path: "/clients" },
    );
    const jtis = server.seen
      .filter((request) => request.url === "/oauth/token")
      .map((request) => {
        const body = JSON.parse(request.body) as { client_assertion: string };
        const claims = body.client_assertion.split(".")[1] ?? "";
        return JSON.parse(Buffer.from(claims, "base64url").toString("utf8")).jti as string;
      });
    expect(jtis).toHaveLength(2);
    expect(jtis[0]).not.toBe(jtis[1]);
  });
});

describe("the commands' login by private key JWT", () => {
  let api: TenantApi | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await api?.stop();
    api = undefined;
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function keyLogin(): Promise<{ started: TenantApi; args: string[] }> {
    api = await startTenantApi({ privateKeyJwt: true });
    dir = await mkdtemp(join(tmpdir(), "pkjwt-cli-"));
    const keyFile = join(dir, "deploy-key.pem");
    await writeFile(keyFile, api.clientAssertionPrivateKey ?? "");
    const args = ["--domain", api.domain, "--client-id", api.clientId];
    return { started: api, args: [...args, "--client-assertion-private-key-file", keyFile] };
  }

  function io() {
    const said = { stdout: "", stderr: "" };
    return {
      said,
      io: {
        stdout: (text: string) => {
          said.stdout += text;
        },
        stderr: (text: string) => {
          said.stderr += text;
        },
        env: {},
        stderrIsTerminal: false,
        now: () => new Date(),
      },
    };
  }

  it("audits the live tenant with the key file, one token for the run", async () => {
    const { started, args } = await keyLogin();
    const { said, io: audit } = io();
    const code = await runAudit([...args, "--format", "json"], audit);
    expect(code, said.stderr).toBe(1);
    expect(JSON.parse(said.stdout)).toHaveProperty("findings");
    expect(started.stats().token).toBe(1);
  });

  it("snapshots the live tenant with the key file, and writes no key", async () => {
    const { started, args } = await keyLogin();
    const { said, io: snapshot } = io();
    const out = join(dir ?? "", "seed.json");
    expect(await runSnapshot([...args, "--out", out], snapshot), said.stderr).toBe(0);
    const seed = await readFile(out, "utf8");
    for (const line of bodyLines(started.clientAssertionPrivateKey ?? "")) {
      expect(seed).not.toContain(line);
    }
  });
});
