import { describe, expect, it } from "vitest";
import {
  type ConfigSource,
  DEFAULT_OPERATION_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  resolveSettings,
} from "../provider/config.js";
import { isLoopbackHost, originOf } from "../provider/connection/parse.js";
import { TenantConfigError } from "../provider/errors.js";

const stack = (values: Record<string, string>): ConfigSource => ({ get: (key) => values[key] });

describe("resolveSettings", () => {
  it("reads the domain and API token from stack config", () => {
    const settings = resolveSettings(
      stack({ "tenant:domain": "acme.tenants.example", "tenant:apiToken": "tok" }),
      {},
    );
    expect(settings).toEqual({
      origin: "https://acme.tenants.example",
      baseUrl: "https://acme.tenants.example/api/v2",
      credentials: { kind: "apiToken", token: "tok" },
      requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
      operationTimeoutMs: DEFAULT_OPERATION_TIMEOUT_MS,
    });
  });

  it("derives the token URL and audience from the domain for client credentials", () => {
    const settings = resolveSettings(undefined, {
      TENANT_DOMAIN: "http://127.0.0.1:4000",
      TENANT_CLIENT_ID: "cid",
      TENANT_CLIENT_SECRET: "secret",
    });
    expect(settings.credentials).toEqual({
      kind: "clientCredentials",
      clientId: "cid",
      clientSecret: "secret",
      audience: "http://127.0.0.1:4000/api/v2/",
      tokenUrl: "http://127.0.0.1:4000/oauth/token",
    });
  });

  it("prefers stack config over the environment", () => {
    const settings = resolveSettings(
      stack({ "tenant:domain": "a.example", "tenant:apiToken": "from-config" }),
      { TENANT_DOMAIN: "b.example", TENANT_API_TOKEN: "from-env" },
    );
    expect(settings.origin).toBe("https://a.example");
    expect(settings.credentials).toEqual({ kind: "apiToken", token: "from-config" });
  });

  it("treats an empty environment variable as unset", () => {
    const settings = resolveSettings(undefined, {
      TENANT_DOMAIN: "a.example",
      TENANT_API_TOKEN: "",
      TENANT_CLIENT_ID: "cid",
      TENANT_CLIENT_SECRET: "s",
    });
    expect(settings.credentials.kind).toBe("clientCredentials");
  });

  it("takes the audience from tenant:audience when it is set", () => {
    const settings = resolveSettings(
      stack({
        "tenant:domain": "a.example",
        "tenant:clientId": "cid",
        "tenant:clientSecret": "s",
        "tenant:audience": "https://custom/api/v2/",
      }),
      {},
    );
    expect(settings.credentials).toMatchObject({ audience: "https://custom/api/v2/" });
  });

  it("says which keys to set when nothing is configured", () => {
    expect(() => resolveSettings(undefined, {})).toThrowError(
      new TenantConfigError(
        "pulumi-tenant is not configured: set tenant:domain (or TENANT_DOMAIN) and either " +
          "tenant:apiToken (TENANT_API_TOKEN) or tenant:clientId and tenant:clientSecret " +
          "(TENANT_CLIENT_ID, TENANT_CLIENT_SECRET), e.g. `pulumi config set tenant:domain " +
          "acme.tenants.example` and `pulumi config set --secret tenant:clientSecret ...`",
      ),
    );
  });

  it("names the missing half of incomplete client credentials", () => {
    expect(() =>
      resolveSettings(undefined, { TENANT_DOMAIN: "a.example", TENANT_CLIENT_ID: "cid" }),
    ).toThrow(/^pulumi-tenant has incomplete client credentials: tenant:clientSecret is missing;/);
  });

  it("refuses a domain with credentials but no token or client", () => {
    expect(() => resolveSettings(undefined, { TENANT_DOMAIN: "a.example" })).toThrow(
      /^pulumi-tenant has no credentials: set tenant:domain/,
    );
  });

  it("reads the timeouts in seconds", () => {
    const settings = resolveSettings(undefined, {
      TENANT_DOMAIN: "a.example",
      TENANT_API_TOKEN: "t",
      TENANT_REQUEST_TIMEOUT_SECONDS: "2.5",
      TENANT_OPERATION_TIMEOUT_SECONDS: "60",
    });
    expect([settings.requestTimeoutMs, settings.operationTimeoutMs]).toEqual([2500, 60_000]);
  });

  it("refuses a timeout that is not a positive number", () => {
    expect(() =>
      resolveSettings(undefined, {
        TENANT_DOMAIN: "a.example",
        TENANT_API_TOKEN: "t",
        TENANT_REQUEST_TIMEOUT_SECONDS: "0",
      }),
    ).toThrowError('tenant:requestTimeoutSeconds must be a positive number of seconds (got "0")');
  });
});

describe("originOf, for tenant:domain", () => {
  const originOfDomain = (domain: string) => originOf(domain, "tenant:domain");

  it("reads a bare host as https", () => {
    expect(originOfDomain("acme.tenants.example")).toEqual({
      origin: "https://acme.tenants.example",
    });
  });

  it("keeps an explicit port", () => {
    expect(originOfDomain("https://acme.tenants.example:8443/")).toEqual({
      origin: "https://acme.tenants.example:8443",
    });
  });

  it.each([
    "http://127.0.0.1:4000",
    "http://localhost:4000",
    "http://[::1]:4000",
    "http://127.9.9.9",
  ])("accepts plain http to the loopback host %s", (domain) => {
    expect(originOfDomain(domain)).toEqual({ origin: new URL(domain).origin });
  });

  it("refuses plain http to a host that is not loopback", () => {
    expect(originOfDomain("http://acme.tenants.example")).toEqual({
      message:
        'tenant:domain "http://acme.tenants.example" uses plain http:// to a host that is not ' +
        "loopback; the management API must be reached over https:// (http:// is accepted only " +
        "for 127.0.0.0/8, ::1 and localhost, i.e. the local tenant API)",
    });
  });

  it("refuses a domain with a path", () => {
    expect(originOfDomain("https://acme.tenants.example/api/v2")).toEqual({
      message:
        'tenant:domain "https://acme.tenants.example/api/v2" must be a host (acme.tenants.example) ' +
        "or an origin (https://acme.tenants.example), without a path, query or credentials",
    });
  });

  it("refuses a scheme other than http and https", () => {
    expect(originOfDomain("ftp://acme.tenants.example")).toEqual({
      message: 'tenant:domain "ftp://acme.tenants.example" has the scheme ftp; use https://',
    });
  });
});

describe("isLoopbackHost", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.255.0.1", true],
    ["localhost", true],
    ["[::1]", true],
    ["128.0.0.1", false],
    ["127.0.0.1.example", false],
    ["10.0.0.1", false],
    ["localhost.example", false],
  ])("says %s is loopback: %s", (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});
