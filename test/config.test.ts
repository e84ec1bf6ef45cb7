import { describe, expect, it } from "vitest";
import { DEFAULT_PACING_BUDGET } from "../provider/api/pacing-budget.js";
import {
  type ConfigSource,
  DEFAULT_OPERATION_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  resolveCommandSettings,
  resolveSettings,
  settingsFor,
  useStackConfig,
} from "../provider/config.js";
import { budgetProblems } from "../provider/connection/budget.js";
import { isLoopbackHost, originOf } from "../provider/connection/origin.js";
import { STACK_CONFIG_NAMING, TENANT_INPUT_NAMING } from "../provider/connection/values.js";
import { TenantConfigError } from "../provider/errors.js";
import { ClientSettingsProvider } from "../provider/providers/client-settings.js";
import { PushProviderSelectionProvider } from "../provider/providers/push-provider-selection.js";

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
      budget: DEFAULT_PACING_BUDGET,
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
        "pulumi-tenant is not configured: set tenant:domain (or TENANT_DOMAIN) and " +
          "tenant:clientId (TENANT_CLIENT_ID) with either tenant:clientAssertionPrivateKey " +
          "(TENANT_CLIENT_ASSERTION_PRIVATE_KEY) or tenant:clientSecret (TENANT_CLIENT_SECRET), " +
          "or tenant:apiToken (TENANT_API_TOKEN) alone, e.g. `pulumi config set tenant:domain " +
          "acme.tenants.example` and `pulumi config set --secret tenant:clientAssertionPrivateKey " +
          "< private-key.pem`",
      ),
    );
  });

  it("names the missing half of incomplete client credentials", () => {
    expect(() =>
      resolveSettings(undefined, { TENANT_DOMAIN: "a.example", TENANT_CLIENT_ID: "cid" }),
    ).toThrow(
      /^pulumi-tenant has incomplete client credentials: tenant:clientAssertionPrivateKey or tenant:clientSecret is missing;/,
    );
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

describe("the pacing budget", () => {
  const tenant = { "tenant:domain": "a.example", "tenant:apiToken": "t" };

  it("reads the reserve and the ceiling from stack config", () => {
    const settings = resolveSettings(
      stack({ ...tenant, "tenant:rateLimitReserve": "0.4", "tenant:maxRequestsPerSecond": "3" }),
      {},
    );
    expect(settings.budget).toEqual({ reserveShare: 0.4, maxRequestsPerSecond: 3 });
  });

  it("falls back to TENANT_RATE_LIMIT_RESERVE and TENANT_MAX_REQUESTS_PER_SECOND", () => {
    const settings = resolveSettings(stack(tenant), {
      TENANT_RATE_LIMIT_RESERVE: "0",
      TENANT_MAX_REQUESTS_PER_SECOND: "2.5",
    });
    expect(settings.budget).toEqual({ reserveShare: 0, maxRequestsPerSecond: 2.5 });
  });

  it("names the budget's settings in the limiter's reports as the stack config's keys, or the variable the environment alone gave", () => {
    expect(resolveSettings(stack(tenant), {}).budgetNames).toBeUndefined();
    expect(
      resolveSettings(stack({ ...tenant, "tenant:rateLimitReserve": "0.4" }), {
        TENANT_RATE_LIMIT_RESERVE: "0.3",
        TENANT_MAX_REQUESTS_PER_SECOND: "2",
      }).budgetNames,
    ).toEqual({
      rateLimitReserve: "tenant:rateLimitReserve",
      maxRequestsPerSecond: "TENANT_MAX_REQUESTS_PER_SECOND",
    });
  });

  it("names the budget's settings in a command's reports as its flags, or the variable the environment alone gave", () => {
    expect(resolveCommandSettings(stack(tenant), {}).budgetNames).toEqual({
      rateLimitReserve: "--rate-limit-reserve",
      maxRequestsPerSecond: "--max-requests-per-second",
    });
    expect(
      resolveCommandSettings(stack({ ...tenant, "tenant:rateLimitReserve": "0" }), {
        TENANT_RATE_LIMIT_RESERVE: "0.3",
        TENANT_MAX_REQUESTS_PER_SECOND: "2",
      }).budgetNames,
    ).toEqual({
      rateLimitReserve: "--rate-limit-reserve",
      maxRequestsPerSecond: "TENANT_MAX_REQUESTS_PER_SECOND",
    });
  });

  it("keeps a quarter of the bucket and sets no ceiling by default", () => {
    expect(resolveSettings(stack(tenant), {}).budget).toEqual({
      reserveShare: 0.25,
      maxRequestsPerSecond: undefined,
    });
  });

  it("refuses a reserve of the whole bucket, naming the setting", () => {
    expect(() =>
      resolveSettings(stack({ ...tenant, "tenant:rateLimitReserve": "1" }), {}),
    ).toThrowError(
      new TenantConfigError(
        "tenant:rateLimitReserve must be the share of the tenant's rate limit left to its other " +
          'callers, from 0 (take everything) to below 1 (got "1")',
      ),
    );
  });

  it("refuses a ceiling that is not a positive number, naming the setting", () => {
    expect(() =>
      resolveSettings(stack(tenant), { TENANT_MAX_REQUESTS_PER_SECOND: "fast" }),
    ).toThrowError(
      new TenantConfigError(
        'tenant:maxRequestsPerSecond must be a number of requests per second of at least 0.01 (one request every 100 s) (got "fast")',
      ),
    );
  });

  it("refuses a ceiling too small to let a request out before an operation's deadline", () => {
    expect(() =>
      resolveSettings(stack(tenant), { TENANT_MAX_REQUESTS_PER_SECOND: "0.000001" }),
    ).toThrowError(
      new TenantConfigError(
        "tenant:maxRequestsPerSecond must be a number of requests per second of at least 0.01 " +
          '(one request every 100 s) (got "0.000001")',
      ),
    );
  });

  it("names the tenant input's members as a program spells them", () => {
    expect(budgetProblems({ rateLimitReserve: -0.1 }, TENANT_INPUT_NAMING)).toEqual([
      {
        setting: "rateLimitReserve",
        message:
          "tenant.rateLimitReserve must be the share of the tenant's rate limit left to its " +
          'other callers, from 0 (take everything) to below 1 (got "-0.1")',
      },
    ]);
  });

  it("takes a tenant input's members first, and the stack config's where it gives none", () => {
    useStackConfig(stack({ "tenant:rateLimitReserve": "0.4", "tenant:maxRequestsPerSecond": "9" }));
    try {
      const settings = settingsFor({ domain: "b.example", apiToken: "t", maxRequestsPerSecond: 3 });
      expect(settings.budget).toEqual({ reserveShare: 0.4, maxRequestsPerSecond: 3 });
      // The limiter's reports name each setting where it came from: the input's member, the key.
      expect(settings.budgetNames).toEqual({
        rateLimitReserve: "tenant:rateLimitReserve",
        maxRequestsPerSecond: "tenant.maxRequestsPerSecond",
      });
    } finally {
      useStackConfig(undefined);
    }
  });

  it("has no problem with settings not given or not known yet", () => {
    expect(budgetProblems({ maxRequestsPerSecond: " " }, STACK_CONFIG_NAMING)).toEqual([]);
  });
});

describe("a bad setting of the stack config at check", () => {
  const CEILING_OF_0 = {
    property: "",
    reason:
      'tenant:maxRequestsPerSecond must be a number of requests per second of at least 0.01 (one request every 100 s) (got "0")',
  };

  /** Runs `body` with `config` as the stack config, then forgets it. */
  async function withStack(
    config: Record<string, string>,
    body: (push: PushProviderSelectionProvider) => Promise<void>,
  ): Promise<void> {
    const push = new PushProviderSelectionProvider();
    await push.configure({ config: stack(config) });
    try {
      await body(push);
    } finally {
      useStackConfig(undefined);
    }
  }

  it("fails the first resource's check, naming the setting, with no property", async () => {
    await withStack({ "tenant:maxRequestsPerSecond": "0" }, async (push) => {
      expect((await push.check({}, { provider: "sns" })).failures).toEqual([CEILING_OF_0]);
    });
  });

  it("is reported once per run, not at every resource's check", async () => {
    await withStack({ "tenant:maxRequestsPerSecond": "0" }, async (push) => {
      await push.check({}, { provider: "sns" });
      expect((await push.check({}, { provider: "guardian" })).failures).toEqual([]);
    });
  });

  it("is reported once across resource kinds, which the host configures with the same stack config", async () => {
    const config = { "tenant:maxRequestsPerSecond": "0" };
    await withStack(config, async (push) => {
      await push.check({}, { provider: "sns" });
      const clients = new ClientSettingsProvider();
      await clients.configure({ config: stack({ ...config }) });
      expect((await clients.check({}, { clientId: "abc" })).failures).toEqual([]);
    });
  });

  it("is reported once more when the stack config changes", async () => {
    await withStack({ "tenant:maxRequestsPerSecond": "0" }, async (push) => {
      await push.check({}, { provider: "sns" });
      const again = (await push.check({}, { provider: "sns" })).failures;
      await push.configure({ config: stack({ "tenant:maxRequestsPerSecond": "-1" }) });
      const changed = (await push.check({}, { provider: "sns" })).failures;
      expect([again, changed]).toEqual([
        [],
        [{ ...CEILING_OF_0, reason: CEILING_OF_0.reason.replace('"0"', '"-1"') }],
      ]);
    });
  });

  it("passes a later resource's check, whose create still fails naming the setting before any request", async () => {
    const config = {
      "tenant:domain": "http://127.0.0.1:9",
      "tenant:apiToken": "t",
      "tenant:maxRequestsPerSecond": "0",
    };
    await withStack(config, async (push) => {
      await push.check({}, { provider: "sns" });
      const later = { __resourceName: "mfa-push", provider: "sns" };
      expect((await push.check({}, later)).failures).toEqual([]);
      await expect(push.create(later)).rejects.toThrowError(
        new TenantConfigError(`PushProviderSelection "mfa-push": ${CEILING_OF_0.reason}`),
      );
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
