/**
 * The rules of the policy pack (`pulumi-tenant/policy`), each as a pure function of one declared
 * ClientSettings, and the CrossGuard policies that wrap them. Under the real CLI:
 * test/e2e-policy.test.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
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
  return judgeDeclared(rule, { resource: WEB, props, stack, config });
}

/** The messages `rule` gives for `declared`. */
function judgeDeclared(rule: RuleName, declared: Declared): string[] {
  const found = TENANT_RULES.find((r) => r.name === rule);
  if (!found) throw new Error(`no rule ${rule}`);
  return found.judge(declared).map((v) => v.message);
}

describe("the rules of the pack", () => {
  it("are the names docs/design/policy.md documents, each with a description and a default level", () => {
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
      ["tenant-sender-constrained-tokens", "advisory"],
      ["tenant-pushed-authorization-requests", "advisory"],
      ["tenant-signed-request-object", "advisory"],
      ["tenant-private-key-jwt", "advisory"],
      ["tenant-backchannel-logout", "advisory"],
      ["tenant-initiate-login-uri", "advisory"],
      ["tenant-compliance-profile", "mandatory"],
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
      appType: undefined,
      tokenEndpointAuthMethod: undefined,
      clientAuthenticationMethods: undefined,
      requireProofOfPossession: undefined,
      requirePushedAuthorizationRequests: undefined,
      signedRequestObject: undefined,
      oidcLogout: undefined,
      complianceLevel: undefined,
    };
    for (const rule of RULE_NAMES) expect(judge(rule, unknown)).toEqual([]);
  });
});

describe("the modules of the pack", () => {
  it("import one another in no circle: what they share is below them all", () => {
    const folder = join(__dirname, "..", "provider", "policy");
    const imports = new Map(
      readdirSync(folder).map((file) => [
        file.replace(/\.ts$/, ""),
        [...readFileSync(join(folder, file), "utf8").matchAll(/from "\.\/([^"]+)\.js"/g)].map(
          (match) => match[1] ?? "",
        ),
      ]),
    );
    /** The first path from `module` back to a module already on `path`, if any. */
    const circle = (module: string, path: readonly string[]): string[] | undefined => {
      if (path.includes(module)) return [...path.slice(path.indexOf(module)), module];
      for (const next of imports.get(module) ?? []) {
        const found = circle(next, [...path, module]);
        if (found) return found;
      }
      return undefined;
    };
    for (const module of imports.keys()) expect(circle(module, [])).toBeUndefined();
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

/** A confidential regular web app with the code grant, none of the client rules' settings on. */
const CONFIDENTIAL_WEB = {
  appType: "regular_web",
  tokenEndpointAuthMethod: "client_secret_post",
  clientAuthenticationMethods: null,
  grantTypes: ["authorization_code", "refresh_token"],
  requireProofOfPossession: false,
  requirePushedAuthorizationRequests: false,
  signedRequestObject: {},
};

/** A single-page app with the code grant, public, with the same settings off. */
const PUBLIC_SPA = { ...CONFIDENTIAL_WEB, appType: "spa", tokenEndpointAuthMethod: "none" };

/** Private key JWT credentials, as `clientAuthenticationMethods` declares them. */
const PKJ = { privateKeyJwt: { credentials: [{ id: "cred_1" }] } };

/** mTLS credentials, as `clientAuthenticationMethods` declares them. */
const MTLS = { selfSignedTlsClientAuth: { credentials: [{ id: "cred_2" }] } };

describe("the sender-constrained tokens rule", () => {
  it("advises requiring proof of possession on a client with token grants, naming them", () => {
    expect(judge("tenant-sender-constrained-tokens", CONFIDENTIAL_WEB)).toEqual([
      `${WEB}: requireProofOfPossession false leaves the tokens of authorization_code and refresh_token as bearer tokens that work for whoever steals them; set it to true to bind them to the client's key, by DPoP (RFC 9449) or mTLS (RFC 8705)`,
    ]);
  });

  it("judges public clients too, which can use DPoP", () => {
    expect(judge("tenant-sender-constrained-tokens", PUBLIC_SPA)).toHaveLength(1);
  });

  it("accepts a client that requires it, and one whose grants return no token", () => {
    const required = { ...CONFIDENTIAL_WEB, requireProofOfPossession: true };
    expect(judge("tenant-sender-constrained-tokens", required)).toEqual([]);
    const ciba = { ...CONFIDENTIAL_WEB, grantTypes: ["urn:openid:params:grant-type:ciba"] };
    expect(judge("tenant-sender-constrained-tokens", ciba)).toEqual([]);
  });
});

describe("the pushed authorization requests rule", () => {
  it("advises requiring PAR on a confidential client with the code grant", () => {
    expect(judge("tenant-pushed-authorization-requests", CONFIDENTIAL_WEB)).toEqual([
      `${WEB}: requirePushedAuthorizationRequests false lets the authorization request travel through the browser, where it can be read and changed; set it to true so the client pushes it to the tenant first (RFC 9126)`,
    ]);
  });

  it("says nothing to a public client, which cannot authenticate the push", () => {
    expect(judge("tenant-pushed-authorization-requests", PUBLIC_SPA)).toEqual([]);
    const none = { ...CONFIDENTIAL_WEB, tokenEndpointAuthMethod: "none" };
    expect(judge("tenant-pushed-authorization-requests", none)).toEqual([]);
  });

  it("says nothing to a client whose complianceLevel names a FAPI profile, of which the platform requires PAR", () => {
    for (const complianceLevel of ["fapi1_adv_pkj_par", "fapi2_sp_mtls_mtls"]) {
      expect(
        judge("tenant-pushed-authorization-requests", { ...CONFIDENTIAL_WEB, complianceLevel }),
      ).toEqual([]);
    }
    const none = { ...CONFIDENTIAL_WEB, complianceLevel: "none" };
    expect(judge("tenant-pushed-authorization-requests", none)).toHaveLength(1);
  });

  it("takes a client with key credentials and no secret method for a confidential one", () => {
    const keyOnly = { ...CONFIDENTIAL_WEB, tokenEndpointAuthMethod: "none" };
    expect(
      judge("tenant-pushed-authorization-requests", {
        ...keyOnly,
        clientAuthenticationMethods: PKJ,
      }),
    ).toHaveLength(1);
  });

  it("accepts a client that requires PAR, and judges nothing when confidentiality is not declared", () => {
    const required = { ...CONFIDENTIAL_WEB, requirePushedAuthorizationRequests: true };
    expect(judge("tenant-pushed-authorization-requests", required)).toEqual([]);
    const { appType: _a, tokenEndpointAuthMethod: _t, ...unknownKind } = CONFIDENTIAL_WEB;
    expect(judge("tenant-pushed-authorization-requests", unknownKind)).toEqual([]);
  });
});

describe("the signed request object rule", () => {
  it("advises requiring signed request objects on a confidential client with the code grant", () => {
    expect(judge("tenant-signed-request-object", CONFIDENTIAL_WEB)).toEqual([
      `${WEB}: signedRequestObject.required false lets authorization requests go unsigned, so nothing proves they come from the client unchanged; require request objects signed with the client's key (RFC 9101)`,
    ]);
  });

  it("accepts signed request objects required with a key to verify them", () => {
    const signed = {
      ...CONFIDENTIAL_WEB,
      signedRequestObject: { required: true, credentials: [{ id: "cred_3" }] },
    };
    expect(judge("tenant-signed-request-object", signed)).toEqual([]);
  });

  it("finds signed request objects required with no key, which no request can satisfy, on any client", () => {
    const unsatisfiable = { signedRequestObject: { required: true } };
    expect(judge("tenant-signed-request-object", { ...PUBLIC_SPA, ...unsatisfiable })).toEqual([
      `${WEB}: signedRequestObject.credentials [] holds no key while signedRequestObject.required is true, so no request can be verified and every login fails; add the client's public key, or stop requiring signed requests (RFC 9101)`,
    ]);
  });

  it("says nothing to a public client that does not require them", () => {
    expect(judge("tenant-signed-request-object", PUBLIC_SPA)).toEqual([]);
  });

  it("leaves a FAPI 1 client, of which the platform enforces signed request objects, to the compliance profile rule", () => {
    const fapi1 = { ...CONFIDENTIAL_WEB, complianceLevel: "fapi1_adv_pkj_par" };
    expect(judge("tenant-signed-request-object", fapi1)).toEqual([]);
    const unsatisfiable = { ...fapi1, signedRequestObject: { required: true } };
    expect(judge("tenant-signed-request-object", unsatisfiable)).toEqual([]);
    const fapi2 = { ...CONFIDENTIAL_WEB, complianceLevel: "fapi2_sp_pkj_mtls" };
    expect(judge("tenant-signed-request-object", fapi2)).toHaveLength(1);
  });
});

describe("the private key JWT rule", () => {
  it("advises private key JWT on a confidential client with a shared secret and bearer tokens", () => {
    expect(judge("tenant-private-key-jwt", CONFIDENTIAL_WEB)).toEqual([
      `${WEB}: tokenEndpointAuthMethod "client_secret_post" proves who the client is with a shared secret, which works for whoever copies it, and its tokens are not sender-constrained; add privateKeyJwt credentials to clientAuthenticationMethods (RFC 7523), or require proof of possession`,
    ]);
  });

  it("accepts private key JWT or mTLS credentials, and sender-constrained tokens", () => {
    for (const props of [
      { ...CONFIDENTIAL_WEB, clientAuthenticationMethods: PKJ },
      { ...CONFIDENTIAL_WEB, clientAuthenticationMethods: MTLS },
      { ...CONFIDENTIAL_WEB, requireProofOfPossession: true },
    ]) {
      expect(judge("tenant-private-key-jwt", props)).toEqual([]);
    }
  });

  it("says nothing to a public client, or when clientAuthenticationMethods is not declared", () => {
    expect(judge("tenant-private-key-jwt", PUBLIC_SPA)).toEqual([]);
    const { clientAuthenticationMethods: _m, ...undeclared } = CONFIDENTIAL_WEB;
    expect(judge("tenant-private-key-jwt", undeclared)).toEqual([]);
  });
});

describe("the back-channel logout rule", () => {
  it("advises a back-channel logout URL on a regular web application", () => {
    const props = { appType: "regular_web", oidcLogout: { backchannelLogoutUrls: [] } };
    expect(judge("tenant-backchannel-logout", props)).toEqual([
      `${WEB}: oidcLogout.backchannelLogoutUrls [] is empty on a regular web application, so a logout elsewhere leaves its own session open; add the URL where it ends sessions (OpenID Connect Back-Channel Logout 1.0)`,
    ]);
  });

  it("accepts a URL in oidcLogout or in the deprecated oidcBackchannelLogout", () => {
    const urls = ["https://app.example.com/backchannel-logout"];
    for (const props of [
      { appType: "regular_web", oidcLogout: { backchannelLogoutUrls: urls } },
      {
        appType: "regular_web",
        oidcLogout: {},
        oidcBackchannelLogout: { backchannel_logout_urls: urls },
      },
    ]) {
      expect(judge("tenant-backchannel-logout", props)).toEqual([]);
    }
  });

  it("says nothing to a single-page app, or when oidcLogout is not declared", () => {
    expect(judge("tenant-backchannel-logout", { appType: "spa", oidcLogout: {} })).toEqual([]);
    expect(judge("tenant-backchannel-logout", { appType: "regular_web" })).toEqual([]);
  });
});

describe("the login URI rule", () => {
  it("advises a login URI on a single-page app and a regular web application", () => {
    expect(judge("tenant-initiate-login-uri", { appType: "spa", initiateLoginUri: "" })).toEqual([
      `${WEB}: initiateLoginUri "" is empty on a single-page app, so a login that starts elsewhere (a bookmarked login page, a password reset) cannot be handed to it; set the https URL of its login route (OpenID Connect Core 1.0, section 4)`,
    ]);
    const web = { appType: "regular_web", initiateLoginUri: "" };
    expect(judge("tenant-initiate-login-uri", web)).toHaveLength(1);
  });

  it("accepts a login URI, and says nothing to a machine-to-machine app", () => {
    const set = { appType: "spa", initiateLoginUri: "https://app.example.com/login" };
    expect(judge("tenant-initiate-login-uri", set)).toEqual([]);
    const m2m = { appType: "non_interactive", initiateLoginUri: "" };
    expect(judge("tenant-initiate-login-uri", m2m)).toEqual([]);
  });
});

describe("the compliance profile rule", () => {
  /** A client that meets every profile, with `credentials` for its authentication. */
  const meeting = (complianceLevel: string, credentials: object) => ({
    complianceLevel,
    clientAuthenticationMethods: credentials,
    requireProofOfPossession: true,
    signedRequestObject: { required: true, credentials: [{ id: "cred_3" }] },
    callbacks: ["https://bank.example.com/cb"],
    oidcConformant: true,
  });
  const PROFILES = [
    ["fapi1_adv_pkj_par", PKJ],
    ["fapi1_adv_mtls_par", MTLS],
    ["fapi2_sp_pkj_mtls", PKJ],
    ["fapi2_sp_mtls_mtls", MTLS],
  ] as const;
  /** How the platform's table is named in a finding. */
  const TABLE = `(the platform's "Configure FAPI Compliance" table), so no authorization can complete`;

  it("accepts a client that meets its profile, for every profile", () => {
    for (const [level, credentials] of PROFILES) {
      expect(judge("tenant-compliance-profile", meeting(level, credentials))).toEqual([]);
    }
  });

  it("accepts requirePushedAuthorizationRequests false or unset at every level, which requires PAR whatever it says", () => {
    for (const [level, credentials] of PROFILES) {
      for (const requirePushedAuthorizationRequests of [false, undefined]) {
        const props = { ...meeting(level, credentials), requirePushedAuthorizationRequests };
        expect(judge("tenant-compliance-profile", props)).toEqual([]);
      }
    }
  });

  it("accepts signedRequestObject.required false at the FAPI 1 levels, which enforce signed request objects whatever it says", () => {
    const props = {
      ...meeting("fapi1_adv_pkj_par", PKJ),
      signedRequestObject: { required: false, credentials: [{ id: "cred_3" }] },
    };
    expect(judge("tenant-compliance-profile", props)).toEqual([]);
  });

  it("finds a private key JWT profile's client whose clientAuthenticationMethods is null, naming the profile, the setting and the row", () => {
    const props = { ...meeting("fapi1_adv_pkj_par", PKJ), clientAuthenticationMethods: null };
    expect(judge("tenant-compliance-profile", props)).toEqual([
      `${WEB}: clientAuthenticationMethods null holds no private key JWT credentials (privateKeyJwt), and complianceLevel "fapi1_adv_pkj_par" (FAPI 1 Advanced with private key JWT and PAR) requires private key JWT for client authentication ${TABLE}; add them`,
    ]);
  });

  it("finds an mTLS profile's client that holds private key JWT credentials only", () => {
    expect(judge("tenant-compliance-profile", meeting("fapi2_sp_mtls_mtls", PKJ))).toEqual([
      `${WEB}: clientAuthenticationMethods {"privateKeyJwt":{"credentials":[{"id":"cred_1"}]}} holds no mTLS credentials (tlsClientAuth or selfSignedTlsClientAuth), and complianceLevel "fapi2_sp_mtls_mtls" (FAPI 2 Security Profile with mTLS) requires mTLS for client authentication ${TABLE}; add them`,
    ]);
  });

  it("finds a FAPI 1 client with no key for the signed request objects its level enforces", () => {
    for (const signedRequestObject of [{}, { required: false, credentials: [] }]) {
      const props = { ...meeting("fapi1_adv_mtls_par", MTLS), signedRequestObject };
      expect(judge("tenant-compliance-profile", props)).toEqual([
        `${WEB}: signedRequestObject.credentials [] holds no key to verify the client's request objects with, and complianceLevel "fapi1_adv_mtls_par" (FAPI 1 Advanced with mTLS and PAR) enforces signed request objects (JAR), signed with PS256 ${TABLE}; add the client's public RSA key (RFC 9101)`,
      ]);
    }
  });

  it("finds a wildcard callback on a FAPI 1 client, with its index", () => {
    const props = {
      ...meeting("fapi1_adv_pkj_par", PKJ),
      callbacks: ["https://bank.example.com/cb", "https://*.bank.example.com/cb"],
    };
    expect(judge("tenant-compliance-profile", props)).toEqual([
      `${WEB}: callbacks[1] "https://*.bank.example.com/cb" has a wildcard, and complianceLevel "fapi1_adv_pkj_par" (FAPI 1 Advanced with private key JWT and PAR) prevents wildcards in the client's allowed callbacks ${TABLE}; list the URLs`,
    ]);
  });

  it("finds a FAPI 1 client that is not OIDC conformant", () => {
    const props = { ...meeting("fapi1_adv_pkj_par", PKJ), oidcConformant: false };
    expect(judge("tenant-compliance-profile", props)).toEqual([
      `${WEB}: oidcConformant false turns OIDC conformance off, and complianceLevel "fapi1_adv_pkj_par" (FAPI 1 Advanced with private key JWT and PAR) ensures the client is OIDC conformant ${TABLE}; set it to true`,
    ]);
  });

  it("asks neither request-object keys nor plain callbacks nor OIDC conformance at the FAPI 2 levels, whose rows do not", () => {
    const props = {
      ...meeting("fapi2_sp_pkj_mtls", PKJ),
      signedRequestObject: {},
      callbacks: ["https://*.bank.example.com/cb"],
      oidcConformant: false,
    };
    expect(judge("tenant-compliance-profile", props)).toEqual([]);
  });

  it("finds a client of any profile that does not require sender-constrained tokens", () => {
    const props = { ...meeting("fapi2_sp_mtls_mtls", MTLS), requireProofOfPossession: false };
    expect(judge("tenant-compliance-profile", props)).toEqual([
      `${WEB}: requireProofOfPossession false breaks complianceLevel "fapi2_sp_mtls_mtls" (FAPI 2 Security Profile with mTLS), which requires sender-constrained tokens (RFC 8705, RFC 9449); set it to true`,
    ]);
  });

  it("says nothing to a client that names no profile, or a setting it does not declare", () => {
    const broken = {
      requireProofOfPossession: false,
      clientAuthenticationMethods: null,
      signedRequestObject: {},
      callbacks: ["https://*.bank.example.com/cb"],
      oidcConformant: false,
    };
    for (const complianceLevel of ["none", null, undefined]) {
      expect(judge("tenant-compliance-profile", { ...broken, complianceLevel })).toEqual([]);
    }
    expect(judge("tenant-compliance-profile", { complianceLevel: "fapi1_adv_pkj_par" })).toEqual(
      [],
    );
  });
});

describe("the client rules on the tenant's global client", () => {
  it("say nothing, as auth0-checkmate says nothing, where another client gets findings", () => {
    const props = { ...CONFIDENTIAL_WEB, initiateLoginUri: "", oidcLogout: {} };
    const fapi = { ...props, complianceLevel: "fapi2_sp_pkj_mtls" };
    const clientRules = RULE_NAMES.slice(RULE_NAMES.indexOf("tenant-sender-constrained-tokens"));
    for (const rule of clientRules) {
      const declared = {
        resource: WEB,
        props: rule === "tenant-compliance-profile" ? fapi : props,
        stack: "prod",
        config: {},
      };
      expect(judgeDeclared(rule, { ...declared, global: true })).toEqual([]);
      expect(judgeDeclared(rule, declared)).not.toEqual([]);
    }
  });
});
