/**
 * The rules of the policy pack (`pulumi-tenant/policy`), each as a pure function of one declared
 * ClientSettings, and the CrossGuard policies that wrap them. Under the real CLI:
 * test/e2e-policy.test.ts.
 */
import type { ResourceValidationArgs } from "@pulumi/policy";
import { describe, expect, it } from "vitest";
import {
  type Declared,
  RULE_NAMES,
  type RuleConfig,
  type RuleName,
  stackOfUrn,
  TENANT_RULES,
  tenantPolicies,
} from "../provider/policy/index.js";
import { REDIRECT_URL_FIELDS, schemeAndHost } from "../provider/policy/urls.js";

const WEB = 'ClientSettings "web"';

/** The messages `rule` gives for these declared inputs of `ClientSettings "web"` in stack prod. */
function judge(
  rule: RuleName,
  props: Record<string, unknown>,
  config: RuleConfig = {},
  stack = "prod",
): string[] {
  const found = TENANT_RULES.find((r) => r.name === rule);
  if (!found) throw new Error(`no rule ${rule}`);
  const declared: Declared = { resource: WEB, props, stack, config };
  return found.judge(declared).map((v) => v.message);
}

describe("the rules of the pack", () => {
  it("are the names docs/policy.md documents, each with a description and a default level", () => {
    expect(TENANT_RULES.map((r) => [r.name, r.enforcementLevel])).toEqual([
      ["tenant-url-plain-http", "mandatory"],
      ["tenant-url-loopback", "advisory"],
      ["tenant-url-wildcard", "advisory"],
      ["tenant-grant-type-forbidden", "mandatory"],
      ["tenant-grant-type-app-type", "advisory"],
      ["tenant-public-client-credentials", "mandatory"],
      ["tenant-refresh-token-forever", "advisory"],
      ["tenant-jwt-hs256", "advisory"],
      ["tenant-ip-header-trusted", "advisory"],
      ["tenant-cross-origin-authentication", "advisory"],
      ["tenant-oidc-conformant", "advisory"],
    ]);
    expect(TENANT_RULES.map((r) => r.name)).toEqual([...RULE_NAMES]);
    for (const rule of TENANT_RULES) expect(rule.description).toMatch(/^[A-Z].+\.$/);
  });

  it("say nothing about a ClientSettings that declares none of their fields", () => {
    for (const rule of RULE_NAMES) expect(judge(rule, { clientId: "abc" })).toEqual([]);
  });

  it("say nothing about values not known yet", () => {
    const unknown = {
      callbacks: [undefined],
      grantTypes: [undefined],
      initiateLoginUri: undefined,
      refreshToken: undefined,
      jwtConfiguration: undefined,
      oidcConformant: undefined,
    };
    for (const rule of RULE_NAMES) expect(judge(rule, unknown)).toEqual([]);
  });
});

describe("the URL rules", () => {
  it("judge the five fields that redirect users or let origins in, found by their format", () => {
    expect([...REDIRECT_URL_FIELDS].sort()).toEqual([
      "allowedLogoutUrls",
      "allowedOrigins",
      "callbacks",
      "initiateLoginUri",
      "webOrigins",
    ]);
  });

  it("read the scheme and host of URLs with wildcards, placeholders, ports and IPv6 hosts", () => {
    expect(schemeAndHost("https://*.Example.com/cb")).toEqual({
      scheme: "https",
      host: "*.example.com",
    });
    expect(schemeAndHost("https://{organization_name}.example.com")).toEqual({
      scheme: "https",
      host: "{organization_name}.example.com",
    });
    expect(schemeAndHost("http://[::1]:3000/cb")).toEqual({ scheme: "http", host: "[::1]" });
    expect(schemeAndHost("/relative")).toBeUndefined();
  });

  it("find plain http to a host that is not loopback, with the field, index and value", () => {
    expect(
      judge("tenant-url-plain-http", {
        callbacks: ["https://app.example.com/cb", "http://app.example.com/cb"],
        initiateLoginUri: "http://app.example.com/login",
      }),
    ).toEqual([
      `${WEB}: callbacks[1] "http://app.example.com/cb" uses plain http to a host that is not loopback; use https`,
      `${WEB}: initiateLoginUri "http://app.example.com/login" uses plain http to a host that is not loopback; use https`,
    ]);
  });

  it("accept plain http to loopback and to the hosts the config allows", () => {
    const props = {
      webOrigins: ["http://localhost:3000", "http://127.0.0.1", "http://intranet.corp"],
    };
    expect(judge("tenant-url-plain-http", props, { allowedHosts: ["intranet.corp"] })).toEqual([]);
  });

  it("advise against loopback URLs outside the stacks the config names", () => {
    const props = { allowedLogoutUrls: ["http://localhost:3000/", "https://app.example.com/"] };
    expect(judge("tenant-url-loopback", props)).toEqual([
      `${WEB}: allowedLogoutUrls[0] "http://localhost:3000/" points at this machine; fine for a developer's stack (name it in allowedStacks), not for production`,
    ]);
    expect(judge("tenant-url-loopback", props, { allowedStacks: ["prod"] })).toEqual([]);
  });

  it("advise against wildcards outside the stacks the config names", () => {
    const props = { allowedOrigins: ["https://*.example.com"] };
    expect(judge("tenant-url-wildcard", props)).toEqual([
      `${WEB}: allowedOrigins[0] "https://*.example.com" has a wildcard, which lets any matching host receive codes and tokens; list the URLs`,
    ]);
    expect(judge("tenant-url-wildcard", props, { allowedStacks: ["prod"] })).toEqual([]);
  });
});

describe("the grant type rules", () => {
  it("forbid the implicit and the password grant", () => {
    expect(
      judge("tenant-grant-type-forbidden", {
        grantTypes: ["authorization_code", "implicit", "password"],
      }),
    ).toEqual([
      `${WEB}: grantTypes[1] "implicit" must not be used (RFC 9700); use authorization_code with PKCE`,
      `${WEB}: grantTypes[2] "password" must not be used (RFC 9700); use authorization_code, or client_credentials for a machine`,
    ]);
  });

  it("accept the authorization code and refresh token grants", () => {
    const props = { grantTypes: ["authorization_code", "refresh_token"] };
    expect(judge("tenant-grant-type-forbidden", props)).toEqual([]);
  });

  it("advise against grant types that do not fit a single-page app", () => {
    expect(
      judge("tenant-grant-type-app-type", {
        appType: "spa",
        grantTypes: ["authorization_code", "client_credentials"],
      }),
    ).toEqual([
      `${WEB}: grantTypes[1] "client_credentials" does not fit appType "spa", which uses only authorization_code and refresh_token`,
    ]);
  });

  it("advise against grant types that do not fit a machine-to-machine app", () => {
    expect(
      judge("tenant-grant-type-app-type", {
        appType: "non_interactive",
        grantTypes: ["client_credentials", "refresh_token"],
      }),
    ).toEqual([
      `${WEB}: grantTypes[1] "refresh_token" does not fit appType "non_interactive", which uses only client_credentials`,
    ]);
  });

  it("judge the fit only when the program declares the app type", () => {
    expect(judge("tenant-grant-type-app-type", { grantTypes: ["client_credentials"] })).toEqual([]);
    const web = { appType: "regular_web", grantTypes: ["client_credentials"] };
    expect(judge("tenant-grant-type-app-type", web)).toEqual([]);
  });

  it("forbid client credentials on a public client", () => {
    expect(
      judge("tenant-public-client-credentials", {
        tokenEndpointAuthMethod: "none",
        grantTypes: ["client_credentials"],
      }),
    ).toEqual([
      `${WEB}: grantTypes[0] "client_credentials" on a client whose tokenEndpointAuthMethod is "none"; a public client cannot keep a secret`,
    ]);
    const confidential = {
      tokenEndpointAuthMethod: "client_secret_post",
      grantTypes: ["client_credentials"],
    };
    expect(judge("tenant-public-client-credentials", confidential)).toEqual([]);
  });
});

describe("the token and client rules", () => {
  it("advise against a refresh token that neither rotates nor expires", () => {
    const forever = { rotationType: "non-rotating", expirationType: "non-expiring" };
    expect(judge("tenant-refresh-token-forever", { refreshToken: forever })).toEqual([
      `${WEB}: refreshToken {"rotationType":"non-rotating","expirationType":"non-expiring"} neither rotates nor expires, so a stolen one works forever; rotate it or let it expire`,
    ]);
  });

  it("accept a refresh token that rotates or expires", () => {
    for (const refreshToken of [
      { rotationType: "rotating", expirationType: "non-expiring" },
      { rotationType: "non-rotating", expirationType: "expiring" },
      { tokenLifetime: 3600 },
      null,
    ]) {
      expect(judge("tenant-refresh-token-forever", { refreshToken })).toEqual([]);
    }
  });

  it("advise against ID tokens signed with HS256", () => {
    expect(judge("tenant-jwt-hs256", { jwtConfiguration: { alg: "HS256" } })).toEqual([
      `${WEB}: jwtConfiguration.alg "HS256" signs with the client secret, so whoever holds it can forge tokens; use RS256`,
    ]);
    expect(judge("tenant-jwt-hs256", { jwtConfiguration: { alg: "RS256" } })).toEqual([]);
  });

  it("advise against trusting the forwarded-for header", () => {
    expect(judge("tenant-ip-header-trusted", { isTokenEndpointIpHeaderTrusted: true })).toEqual([
      `${WEB}: isTokenEndpointIpHeaderTrusted true lets any caller choose the address that brute-force protection sees; set it only for a backend behind a proxy you run`,
    ]);
    expect(judge("tenant-ip-header-trusted", { isTokenEndpointIpHeaderTrusted: false })).toEqual(
      [],
    );
  });

  it("advise against cross-origin authentication", () => {
    expect(
      judge("tenant-cross-origin-authentication", { crossOriginAuthentication: true }),
    ).toEqual([
      `${WEB}: crossOriginAuthentication true collects credentials on the application's own page; use the platform's login page`,
    ]);
    const off = { crossOriginAuthentication: false };
    expect(judge("tenant-cross-origin-authentication", off)).toEqual([]);
  });

  it("advise against a client that is not OIDC conformant", () => {
    expect(judge("tenant-oidc-conformant", { oidcConformant: false })).toEqual([
      `${WEB}: oidcConformant false keeps legacy flows that OIDC conformance turns off; set it to true`,
    ]);
    expect(judge("tenant-oidc-conformant", { oidcConformant: true })).toEqual([]);
  });
});

/** Runs every policy of {@link tenantPolicies} on one resource; returns `rule: message` lines. */
function validate(
  type: string,
  props: Record<string, unknown>,
  config: Partial<Record<RuleName, RuleConfig>> = {},
): string[] {
  const reported: string[] = [];
  for (const policy of tenantPolicies()) {
    const args = {
      type,
      name: "web",
      urn: `urn:pulumi:dev::tenant-example::${type}::web`,
      props,
      getConfig: () => config[policy.name as RuleName] ?? {},
    } as unknown as ResourceValidationArgs;
    const validations = [policy.validateResource ?? []].flat();
    for (const check of validations) {
      void check(args, (message) => reported.push(`${policy.name}: ${message}`));
    }
  }
  return reported;
}

describe("tenantPolicies", () => {
  const CLIENT_SETTINGS = "pulumi-nodejs:dynamic/tenant:ClientSettings";

  it("judges every ClientSettings, naming it by the resource's name", () => {
    expect(validate(CLIENT_SETTINGS, { clientId: "abc", oidcConformant: false })).toEqual([
      `tenant-oidc-conformant: ${WEB}: oidcConformant false keeps legacy flows that OIDC conformance turns off; set it to true`,
    ]);
  });

  it("judges no other resource, even one with the same inputs", () => {
    const props = { oidcConformant: false, callbacks: ["http://app.example.com"] };
    expect(validate("pulumi-nodejs:dynamic/tenant:PushProviderSelection", props)).toEqual([]);
    expect(validate("aws:s3/bucket:Bucket", props)).toEqual([]);
  });

  it("hands each rule its config and the stack of the resource's URN", () => {
    const props = { callbacks: ["http://localhost:3000/cb"] };
    expect(validate(CLIENT_SETTINGS, props)).toHaveLength(1);
    expect(
      validate(CLIENT_SETTINGS, props, { "tenant-url-loopback": { allowedStacks: ["dev"] } }),
    ).toEqual([]);
  });

  it("declares a config schema exactly for the rules that take config", () => {
    expect(
      tenantPolicies()
        .filter((p) => p.configSchema !== undefined)
        .map((p) => [p.name, Object.keys(p.configSchema?.properties ?? {})]),
    ).toEqual([
      ["tenant-url-plain-http", ["allowedHosts"]],
      ["tenant-url-loopback", ["allowedStacks"]],
      ["tenant-url-wildcard", ["allowedStacks"]],
    ]);
  });

  it("reads the stack from a URN", () => {
    expect(stackOfUrn("urn:pulumi:prod::p::pulumi-nodejs:dynamic/tenant:ClientSettings::web")).toBe(
      "prod",
    );
    expect(stackOfUrn("not-a-urn")).toBe("");
  });
});
