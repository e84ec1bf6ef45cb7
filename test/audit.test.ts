/**
 * `pulumi-tenant audit` without a server: which fields it reads, how it judges clients with the
 * policy pack's own rules, the policy config file, the exit status a pipeline gates on, and the
 * three reports (text, JSON, SARIF 2.1.0 checked against its JSON schema). Against the local
 * tenant, and the equality with the policy pack: test/audit-cli.test.ts.
 */

import sarifSchema from "@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import type { WireClient } from "../provider/api/client-read-policy.js";
import {
  AUDIT_WIRE_FIELDS,
  declaredOf,
  type Finding,
  JUDGED_FIELDS,
  judgeClients,
} from "../provider/audit/judge.js";
import { parseAuditArgs } from "../provider/audit/options.js";
import {
  defaultRuleSettings,
  type RuleSetting,
  ruleSettingsOf,
} from "../provider/audit/policy-config.js";
import {
  AUDIT_EXIT,
  type AuditInput,
  auditTenant,
  exitStatusOfReport,
  jsonReportOf,
} from "../provider/audit/report.js";
import { repositoryPathOf, sarifLogOf, tenantPathOf } from "../provider/audit/sarif.js";
import { renderText } from "../provider/audit/text.js";
import { DEFAULT_FIELDS } from "../provider/clients/catalogue.js";
import {
  CommandUsageError,
  exitStatusOf,
  SeedError,
  TenantApiError,
  TenantConfigError,
  TenantNetworkError,
} from "../provider/errors.js";
import { RULE_NAMES, TENANT_RULES } from "../provider/policy/index.js";
import { uploadProblems, uriProblem } from "./support/code-scanning.js";

const PORTAL_ID = "P0rta1P0rta1P0rta1P0rta1P0rta1Aa";
const SPA_ID = "Spa5pa5pa5pa5pa5pa5pa5pa5pa5pa5B";
const API_ID = "Api0api0api0api0api0api0api0apiC";

/** Sender-constrained tokens: what the client rules ask of every client with token grants. */
const SENDER_CONSTRAINED = { require_proof_of_possession: true };

/** What the client rules ask of a confidential web app, which breaks none of them with it. */
const SAFE_WEB_APP = {
  ...SENDER_CONSTRAINED,
  require_pushed_authorization_requests: true,
  signed_request_object: { required: true, credentials: [{ id: "cred_portal" }] },
  oidc_logout: { backchannel_logout_urls: ["https://portal.example.com/backchannel-logout"] },
  initiate_login_uri: "https://portal.example.com/login",
};

/** A regular web app with plain http, the implicit grant, and no OIDC conformance. */
const PORTAL: WireClient = {
  client_id: PORTAL_ID,
  name: "Legacy Portal",
  app_type: "regular_web",
  callbacks: ["https://portal.example.com/cb", "http://portal.example.com/cb"],
  grant_types: ["authorization_code", "implicit"],
  token_endpoint_auth_method: "client_secret_post",
  oidc_conformant: false,
  refresh_token: { rotation_type: "rotating", expiration_type: "expiring", leeway: 0 },
  ...SAFE_WEB_APP,
};

/** A public single-page app with client_credentials, a loopback origin and HS256. */
const SPA: WireClient = {
  client_id: SPA_ID,
  name: "Public SPA",
  app_type: "spa",
  web_origins: ["http://localhost:3000"],
  grant_types: ["authorization_code", "client_credentials"],
  token_endpoint_auth_method: "none",
  oidc_conformant: true,
  jwt_configuration: { alg: "HS256", lifetime_in_seconds: 36000 },
  refresh_token: { rotation_type: "rotating", expiration_type: "expiring", leeway: 0 },
  ...SENDER_CONSTRAINED,
  initiate_login_uri: "https://spa.example.com/login",
};

/** A machine-to-machine client that breaks no rule. */
const API: WireClient = {
  client_id: API_ID,
  name: "Billing API",
  app_type: "non_interactive",
  grant_types: ["client_credentials"],
  token_endpoint_auth_method: "client_secret_post",
  oidc_conformant: true,
  refresh_token: { rotation_type: "rotating", expiration_type: "expiring", leeway: 0 },
  ...SENDER_CONSTRAINED,
};

const PORTAL_NAME = `client "Legacy Portal" (${PORTAL_ID})`;
const SPA_NAME = `client "Public SPA" (${SPA_ID})`;

/** What the rules find on PORTAL and SPA with the pack's defaults. */
const FINDINGS: Finding[] = [
  {
    rule: "tenant-url-plain-http",
    level: "mandatory",
    clientId: PORTAL_ID,
    clientName: "Legacy Portal",
    field: "callbacks[1]",
    value: "http://portal.example.com/cb",
    reason: "uses plain http to a host that is not loopback; use https",
    message: `${PORTAL_NAME}: callbacks[1] "http://portal.example.com/cb" uses plain http to a host that is not loopback; use https`,
  },
  {
    rule: "tenant-grant-type-forbidden",
    level: "mandatory",
    clientId: PORTAL_ID,
    clientName: "Legacy Portal",
    field: "grantTypes[1]",
    value: "implicit",
    reason: "must not be used (RFC 9700); use authorization_code with PKCE",
    message: `${PORTAL_NAME}: grantTypes[1] "implicit" must not be used (RFC 9700); use authorization_code with PKCE`,
  },
  {
    rule: "tenant-oidc-conformant",
    level: "advisory",
    clientId: PORTAL_ID,
    clientName: "Legacy Portal",
    field: "oidcConformant",
    value: false,
    reason: "keeps legacy flows that OIDC conformance turns off; set it to true",
    message: `${PORTAL_NAME}: oidcConformant false keeps legacy flows that OIDC conformance turns off; set it to true`,
  },
  {
    rule: "tenant-url-loopback",
    level: "advisory",
    clientId: SPA_ID,
    clientName: "Public SPA",
    field: "webOrigins[0]",
    value: "http://localhost:3000",
    reason:
      "points at this machine; fine for a developer's stack (name it in allowedStacks), not for production",
    message: `${SPA_NAME}: webOrigins[0] "http://localhost:3000" points at this machine; fine for a developer's stack (name it in allowedStacks), not for production`,
  },
  {
    rule: "tenant-grant-type-app-type",
    level: "advisory",
    clientId: SPA_ID,
    clientName: "Public SPA",
    field: "grantTypes[1]",
    value: "client_credentials",
    reason: 'does not fit appType "spa", which uses only authorization_code and refresh_token',
    message: `${SPA_NAME}: grantTypes[1] "client_credentials" does not fit appType "spa", which uses only authorization_code and refresh_token`,
  },
  {
    rule: "tenant-public-client-credentials",
    level: "mandatory",
    clientId: SPA_ID,
    clientName: "Public SPA",
    field: "grantTypes[1]",
    value: "client_credentials",
    reason:
      'on a client whose tokenEndpointAuthMethod is "none"; a public client cannot keep a secret',
    message: `${SPA_NAME}: grantTypes[1] "client_credentials" on a client whose tokenEndpointAuthMethod is "none"; a public client cannot keep a secret`,
  },
  {
    rule: "tenant-jwt-hs256",
    level: "advisory",
    clientId: SPA_ID,
    clientName: "Public SPA",
    field: "jwtConfiguration.alg",
    value: "HS256",
    reason: "signs with the client secret, so whoever holds it can forge tokens; use RS256",
    message: `${SPA_NAME}: jwtConfiguration.alg "HS256" signs with the client secret, so whoever holds it can forge tokens; use RS256`,
  },
];

/** The rule settings of a policy config file named `policy.json`. */
function configured(json: unknown): RuleSetting[] {
  return ruleSettingsOf(json, "policy.json");
}

/** An audit of these clients, live from `https://acme.tenants.example`. */
function audit(clients: WireClient[], overrides: Partial<AuditInput> = {}) {
  return auditTenant({
    tenant: { domain: "https://acme.tenants.example", name: "acme" },
    readAt: "2026-11-24T10:00:00.000Z",
    source: { kind: "live" },
    stack: undefined,
    clients,
    settings: defaultRuleSettings(),
    ...overrides,
  });
}

/** Validates against the SARIF 2.1.0 JSON schema that @microsoft/jest-sarif ships, with Ajv. */
const validateSarif = (() => {
  // The schema is draft-04; one of its patterns is not valid with the `u` flag Ajv uses by default.
  const ajv = new Ajv({ allErrors: true, unicodeRegExp: false });
  addFormats(ajv);
  return ajv.compile(sarifSchema);
})();

describe("the fields an audit reads", () => {
  it("are every field a rule judges, whatever the defaults of generate --fields are", () => {
    expect(JUDGED_FIELDS).toEqual([
      "callbacks",
      "oidcLogout",
      "oidcBackchannelLogout",
      "allowedOrigins",
      "webOrigins",
      "grantTypes",
      "allowedLogoutUrls",
      "jwtConfiguration",
      "crossOriginAuthentication",
      "tokenEndpointAuthMethod",
      "isTokenEndpointIpHeaderTrusted",
      "appType",
      "oidcConformant",
      "initiateLoginUri",
      "refreshToken",
      "clientAuthenticationMethods",
      "requirePushedAuthorizationRequests",
      "requireProofOfPossession",
      "signedRequestObject",
      "complianceLevel",
    ]);
    expect(JUDGED_FIELDS.filter((field) => !DEFAULT_FIELDS.includes(field))).toEqual([
      "oidcLogout",
      "oidcBackchannelLogout",
      "isTokenEndpointIpHeaderTrusted",
      "appType",
      "clientAuthenticationMethods",
      "requirePushedAuthorizationRequests",
      "requireProofOfPossession",
      "signedRequestObject",
      "complianceLevel",
    ]);
  });

  it("are asked of the client list by their wire names, with the id, the name and the tenant", () => {
    expect(AUDIT_WIRE_FIELDS).toEqual([
      "client_id",
      "allowed_logout_urls",
      "allowed_origins",
      "app_type",
      "callbacks",
      "client_authentication_methods",
      "compliance_level",
      "cross_origin_authentication",
      "global",
      "grant_types",
      "initiate_login_uri",
      "is_token_endpoint_ip_header_trusted",
      "jwt_configuration",
      "name",
      "oidc_backchannel_logout",
      "oidc_conformant",
      "oidc_logout",
      "refresh_token",
      "require_proof_of_possession",
      "require_pushed_authorization_requests",
      "signed_request_object",
      "token_endpoint_auth_method",
      "web_origins",
      "tenant",
    ]);
  });

  it("are enough for every rule: one judging only its own fields finds what it finds on all", () => {
    for (const client of [PORTAL, SPA, API]) {
      const props = declaredOf(client);
      for (const rule of TENANT_RULES) {
        const own = Object.fromEntries(rule.fields.map((field) => [field, props[field]]));
        const declared = { resource: "r", stack: "", config: {} };
        expect(rule.judge({ ...declared, props: own })).toEqual(rule.judge({ ...declared, props }));
      }
    }
  });
});

describe("judging clients", () => {
  it("turns a client's wire fields into a program's inputs, as generate does", () => {
    expect(declaredOf(SPA)).toEqual({
      oidcLogout: {},
      webOrigins: ["http://localhost:3000"],
      grantTypes: ["authorization_code", "client_credentials"],
      tokenEndpointAuthMethod: "none",
      appType: "spa",
      oidcConformant: true,
      jwtConfiguration: { alg: "HS256", lifetimeInSeconds: 36000 },
      initiateLoginUri: "https://spa.example.com/login",
      refreshToken: { rotationType: "rotating", expirationType: "expiring", leeway: 0 },
      requirePushedAuthorizationRequests: false,
      requireProofOfPossession: true,
      signedRequestObject: {},
      complianceLevel: null,
    });
  });

  it("judges a field the tenant leaves out as unset on the platform, where a preview judges nothing", () => {
    const bare: WireClient = {
      client_id: API_ID,
      name: "Bare App",
      app_type: "regular_web",
      grant_types: ["authorization_code"],
      token_endpoint_auth_method: "client_secret_basic",
      client_authentication_methods: null,
    };
    expect(
      judgeClients([bare], defaultRuleSettings(), undefined).map((f) => [f.rule, f.field, f.value]),
    ).toEqual([
      ["tenant-sender-constrained-tokens", "requireProofOfPossession", false],
      ["tenant-pushed-authorization-requests", "requirePushedAuthorizationRequests", false],
      ["tenant-signed-request-object", "signedRequestObject.required", false],
      ["tenant-private-key-jwt", "tokenEndpointAuthMethod", "client_secret_basic"],
      ["tenant-backchannel-logout", "oidcLogout.backchannelLogoutUrls", []],
      ["tenant-initiate-login-uri", "initiateLoginUri", ""],
    ]);
  });

  it("judges no key credential it was not shown: clientAuthenticationMethods needs read:client_keys", () => {
    const hidden: WireClient = {
      client_id: API_ID,
      app_type: "non_interactive",
      grant_types: ["client_credentials"],
      token_endpoint_auth_method: "client_secret_post",
      require_proof_of_possession: false,
    };
    const rules = (client: WireClient) =>
      judgeClients([client], defaultRuleSettings(), undefined).map((f) => f.rule);
    expect(rules(hidden)).toEqual(["tenant-sender-constrained-tokens"]);
    expect(rules({ ...hidden, client_authentication_methods: null })).toEqual([
      "tenant-sender-constrained-tokens",
      "tenant-private-key-jwt",
    ]);
  });

  it("judges the global client by the URL and grant rules, not by the client rules", () => {
    const global: WireClient = {
      client_id: "g1oba1g1oba1g1oba1g1oba1g1oba1Gg",
      name: "All Applications",
      global: true,
      app_type: "regular_web",
      callbacks: ["http://portal.example.com/cb"],
      grant_types: ["authorization_code"],
      token_endpoint_auth_method: "client_secret_basic",
    };
    expect(judgeClients([global], defaultRuleSettings(), undefined).map((f) => f.rule)).toEqual([
      "tenant-url-plain-http",
    ]);
  });

  it("finds what each rule of the pack finds, at its level, naming the client by name and id", () => {
    expect(judgeClients([PORTAL, SPA, API], defaultRuleSettings(), undefined)).toEqual(FINDINGS);
  });

  it("judges each client once, in the tenant's order", () => {
    const findings = judgeClients([SPA, PORTAL, SPA], defaultRuleSettings(), undefined);
    expect(findings.map((f) => f.clientId)).toEqual([
      ...Array(4).fill(SPA_ID),
      ...Array(3).fill(PORTAL_ID),
    ]);
  });

  it("names a client the tenant answered no name for by its id", () => {
    const { name: _name, ...nameless } = PORTAL;
    const [first] = judgeClients([nameless as WireClient], defaultRuleSettings(), undefined);
    expect(first?.message).toBe(
      `client ${PORTAL_ID}: callbacks[1] "http://portal.example.com/cb" uses plain http to a host that is not loopback; use https`,
    );
  });

  it("judges refresh tokens and flags as the tenant holds them", () => {
    const client: WireClient = {
      client_id: API_ID,
      refresh_token: { rotation_type: "non-rotating", expiration_type: "non-expiring" },
      is_token_endpoint_ip_header_trusted: true,
      cross_origin_authentication: true,
    };
    expect(
      judgeClients([client], defaultRuleSettings(), undefined).map((f) => [f.rule, f.value]),
    ).toEqual([
      [
        "tenant-refresh-token-forever",
        { rotationType: "non-rotating", expirationType: "non-expiring" },
      ],
      ["tenant-ip-header-trusted", true],
      ["tenant-cross-origin-authentication", true],
    ]);
  });
});

describe("the policy config file", () => {
  it("gives every rule its default level and no config when it is empty", () => {
    expect(configured({})).toEqual(defaultRuleSettings());
  });

  it("takes a level, or an object with enforcementLevel and the rule's members, as the pack does", () => {
    const settings = configured({
      "tenant-url-loopback": { allowedStacks: ["dev"] },
      "tenant-url-plain-http": { allowedHosts: ["intranet.corp.example"] },
      "tenant-oidc-conformant": "disabled",
      "tenant-jwt-hs256": { enforcementLevel: "mandatory" },
    });
    expect(settings.map(({ rule, level, config }) => [rule.name, level, config])).toEqual([
      ["tenant-url-plain-http", "mandatory", { allowedHosts: ["intranet.corp.example"] }],
      ["tenant-url-loopback", "advisory", { allowedStacks: ["dev"] }],
      ["tenant-url-wildcard", "advisory", {}],
      ["tenant-grant-type-forbidden", "mandatory", {}],
      ["tenant-grant-type-app-type", "advisory", {}],
      ["tenant-public-client-credentials", "mandatory", {}],
      ["tenant-refresh-token-forever", "advisory", {}],
      ["tenant-jwt-hs256", "mandatory", {}],
      ["tenant-ip-header-trusted", "advisory", {}],
      ["tenant-cross-origin-authentication", "advisory", {}],
      ["tenant-oidc-conformant", "disabled", {}],
      ["tenant-sender-constrained-tokens", "advisory", {}],
      ["tenant-pushed-authorization-requests", "advisory", {}],
      ["tenant-signed-request-object", "advisory", {}],
      ["tenant-private-key-jwt", "advisory", {}],
      ["tenant-backchannel-logout", "advisory", {}],
      ["tenant-initiate-login-uri", "advisory", {}],
      ["tenant-compliance-profile", "mandatory", {}],
    ]);
  });

  it("sets every rule's level with all, under each rule's own level", () => {
    const settings = configured({ all: "advisory", "tenant-url-plain-http": "mandatory" });
    expect(settings.filter((s) => s.level === "mandatory").map((s) => s.rule.name)).toEqual([
      "tenant-url-plain-http",
    ]);
    expect(configured({ all: { enforcementLevel: "disabled" } }).map((s) => s.level)).toEqual(
      Array(RULE_NAMES.length).fill("disabled"),
    );
  });

  it("turns a rule off, and judges another at the level it is given", () => {
    const settings = configured({
      "tenant-grant-type-forbidden": "disabled",
      "tenant-oidc-conformant": "mandatory",
    });
    expect(
      judgeClients([PORTAL], settings, undefined).map((f) => [f.rule, f.level, f.field]),
    ).toEqual([
      ["tenant-url-plain-http", "mandatory", "callbacks[1]"],
      ["tenant-oidc-conformant", "mandatory", "oidcConformant"],
    ]);
  });

  it("sets the client rules' levels as any other's: one off, the compliance profile advisory", () => {
    const bare: WireClient = {
      client_id: API_ID,
      grant_types: ["client_credentials"],
      require_proof_of_possession: false,
      require_pushed_authorization_requests: false,
      compliance_level: "fapi2_sp_mtls_mtls",
    };
    const settings = configured({
      "tenant-sender-constrained-tokens": "disabled",
      "tenant-compliance-profile": { enforcementLevel: "advisory" },
    });
    expect(
      judgeClients([bare], settings, undefined).map((f) => [f.rule, f.level, f.field]),
    ).toEqual([["tenant-compliance-profile", "advisory", "requireProofOfPossession"]]);
  });

  it("finds nothing in a FAPI client's unset PAR setting: its level requires PAR whatever the setting", () => {
    const fapi: WireClient = {
      client_id: API_ID,
      name: "Open Banking",
      app_type: "regular_web",
      callbacks: ["https://bank.example.com/cb"],
      grant_types: ["authorization_code"],
      oidc_conformant: true,
      client_authentication_methods: { private_key_jwt: { credentials: [{ id: "cred_bank" }] } },
      require_proof_of_possession: true,
      signed_request_object: { credentials: [{ id: "cred_bank" }] },
      compliance_level: "fapi1_adv_pkj_par",
    };
    const rules = judgeClients([fapi], defaultRuleSettings(), undefined).map((f) => f.rule);
    expect(rules).not.toContain("tenant-compliance-profile");
    expect(rules).not.toContain("tenant-pushed-authorization-requests");
  });

  it("finds what makes a FAPI 1 client unusable: no credentials, no request-object key, a wildcard callback", () => {
    const fapi: WireClient = {
      client_id: API_ID,
      name: "Open Banking",
      app_type: "regular_web",
      callbacks: ["https://*.bank.example.com/cb"],
      grant_types: ["authorization_code"],
      oidc_conformant: true,
      client_authentication_methods: null,
      require_proof_of_possession: true,
      compliance_level: "fapi1_adv_pkj_par",
    };
    expect(
      judgeClients([fapi], defaultRuleSettings(), undefined)
        .filter((f) => f.rule === "tenant-compliance-profile")
        .map((f) => [f.field, f.value]),
    ).toEqual([
      ["clientAuthenticationMethods", null],
      ["signedRequestObject.credentials", []],
      ["callbacks[0]", "https://*.bank.example.com/cb"],
    ]);
  });

  it("allows the hosts of allowedHosts, and loopback in the stack --stack names", () => {
    const settings = configured({
      "tenant-url-plain-http": { allowedHosts: ["portal.example.com"] },
      "tenant-url-loopback": { allowedStacks: ["dev"] },
    });
    const rules = (stack: string | undefined) =>
      judgeClients([PORTAL, SPA], settings, stack)
        .filter((f) => f.rule.startsWith("tenant-url-"))
        .map((f) => f.rule);
    expect(rules("dev")).toEqual([]);
    expect(rules("prod")).toEqual(["tenant-url-loopback"]);
    expect(rules(undefined)).toEqual(["tenant-url-loopback"]);
  });

  it("refuses a name that is no rule, naming the file, the key and the nearest rule", () => {
    expect(() => configured({ "tenant-url-lopback": "disabled" })).toThrow(
      new CommandUsageError(
        '--config policy.json: tenant-url-lopback: is not a rule of the pack; did you mean "tenant-url-loopback"?',
      ),
    );
  });

  it("refuses a level that is none and a member a rule does not take, naming every path", () => {
    expect(() =>
      configured({
        all: "remediate",
        "tenant-url-loopback": { enforcementLevel: "warn", allowedHosts: ["a"] },
        "tenant-url-plain-http": { allowedHosts: "intranet" },
      }),
    ).toThrow(
      new CommandUsageError(
        '--config policy.json: all: must be "mandatory", "advisory", "disabled" (got "remediate"); ' +
          'tenant-url-plain-http.allowedHosts: must be a list of strings (got "intranet"); ' +
          'tenant-url-loopback.enforcementLevel: must be "mandatory", "advisory", "disabled" (got "warn"); ' +
          "tenant-url-loopback.allowedHosts: is not a member this rule takes (it takes enforcementLevel, allowedStacks)",
      ),
    );
  });

  it("refuses a file that is not an object", () => {
    expect(() => configured(["tenant-url-loopback"])).toThrow(
      new CommandUsageError(
        "--config policy.json: must be a JSON object: rule names to their settings",
      ),
    );
  });
});

describe("the exit status", () => {
  it("passes with advisory findings only, and fails on them with --fail-on advisory", () => {
    const report = audit([API, { ...API, client_id: "x", oidc_conformant: false }]);
    expect(exitStatusOfReport(report, "mandatory")).toBe(AUDIT_EXIT.passed);
    expect(exitStatusOfReport(report, "advisory")).toBe(AUDIT_EXIT.failed);
  });

  it("fails with a mandatory finding", () => {
    expect(exitStatusOfReport(audit([PORTAL]), "mandatory")).toBe(1);
  });

  it("passes a tenant with no finding", () => {
    expect(exitStatusOfReport(audit([API]), "advisory")).toBe(0);
  });

  it("is 2 for what the user gave and 3 for a tenant that cannot be read", () => {
    expect(
      [
        new CommandUsageError("--format: accepted: text, json, sarif"),
        new SeedError("invalid seed s.json: clients: must be an array"),
        new TenantConfigError("set tenant:domain"),
        new TenantApiError({ method: "GET", path: "/clients", status: 403 }),
        new TenantNetworkError("connection refused"),
      ].map(exitStatusOf),
    ).toEqual([2, 2, 2, 3, 3]);
  });
});

describe("the text report", () => {
  it("groups the findings by client under a heading and a summary", () => {
    expect(renderText(audit([PORTAL, SPA, API]))).toBe(
      [
        'Audit of tenant "acme" (https://acme.tenants.example), read 2026-11-24T10:00:00.000Z',
        "3 clients judged by 18 rules: 3 mandatory findings and 4 advisory findings, on 2 clients",
        "",
        "  LEVEL      RULE                              FIELD                 VALUE                           WHY",
        PORTAL_NAME,
        '  mandatory  tenant-url-plain-http             callbacks[1]          "http://portal.example.com/cb"  uses plain http to a host that is not loopback; use https',
        '  mandatory  tenant-grant-type-forbidden       grantTypes[1]         "implicit"                      must not be used (RFC 9700); use authorization_code with PKCE',
        "  advisory   tenant-oidc-conformant            oidcConformant        false                           keeps legacy flows that OIDC conformance turns off; set it to true",
        SPA_NAME,
        '  advisory   tenant-url-loopback               webOrigins[0]         "http://localhost:3000"         points at this machine; fine for a developer\'s stack (name it in allowedStacks), not for production',
        '  advisory   tenant-grant-type-app-type        grantTypes[1]         "client_credentials"            does not fit appType "spa", which uses only authorization_code and refresh_token',
        '  mandatory  tenant-public-client-credentials  grantTypes[1]         "client_credentials"            on a client whose tokenEndpointAuthMethod is "none"; a public client cannot keep a secret',
        '  advisory   tenant-jwt-hs256                  jwtConfiguration.alg  "HS256"                         signs with the client secret, so whoever holds it can forge tokens; use RS256',
        "",
      ].join("\n"),
    );
  });

  it("says there is no finding, which rules are off, and the seed and stack judged", () => {
    const report = audit([API], {
      source: { kind: "seed", file: "tenant-seed.json" },
      tenant: { domain: undefined, name: undefined },
      readAt: undefined,
      stack: "prod",
      settings: configured({ "tenant-oidc-conformant": "disabled" }),
    });
    expect(renderText(report)).toBe(
      'Audit of the tenant, from the seed tenant-seed.json, as stack "prod"\n' +
        "1 client judged by 17 rules (turned off: tenant-oidc-conformant): no finding\n",
    );
  });
});

describe("the JSON report", () => {
  it("has every member, findings counted by level and by rule, null where unknown", () => {
    const report = audit([SPA], {
      tenant: { domain: "https://acme.tenants.example", name: undefined },
      settings: configured({ "tenant-oidc-conformant": "disabled" }),
    });
    const json = jsonReportOf(report);
    expect({ ...json, findings: json.findings.length }).toEqual({
      format: "pulumi-tenant-audit",
      version: 1,
      tenant: { domain: "https://acme.tenants.example", name: null },
      readAt: "2026-11-24T10:00:00.000Z",
      source: { kind: "live" },
      stack: null,
      clients: 1,
      rules: TENANT_RULES.map((rule) => ({
        name: rule.name,
        level: rule.name === "tenant-oidc-conformant" ? "disabled" : rule.enforcementLevel,
      })),
      counts: {
        findings: 4,
        byLevel: { mandatory: 1, advisory: 3 },
        byRule: {
          "tenant-url-plain-http": 0,
          "tenant-url-loopback": 1,
          "tenant-url-wildcard": 0,
          "tenant-grant-type-forbidden": 0,
          "tenant-grant-type-app-type": 1,
          "tenant-public-client-credentials": 1,
          "tenant-refresh-token-forever": 0,
          "tenant-jwt-hs256": 1,
          "tenant-ip-header-trusted": 0,
          "tenant-cross-origin-authentication": 0,
          "tenant-oidc-conformant": 0,
          "tenant-sender-constrained-tokens": 0,
          "tenant-pushed-authorization-requests": 0,
          "tenant-signed-request-object": 0,
          "tenant-private-key-jwt": 0,
          "tenant-backchannel-logout": 0,
          "tenant-initiate-login-uri": 0,
          "tenant-compliance-profile": 0,
        },
      },
      findings: 4,
    });
    expect(json.findings[0]).toEqual({
      rule: "tenant-url-loopback",
      level: "advisory",
      clientId: SPA_ID,
      clientName: "Public SPA",
      field: "webOrigins[0]",
      value: "http://localhost:3000",
      reason:
        "points at this machine; fine for a developer's stack (name it in allowedStacks), not for production",
      message: `${SPA_NAME}: webOrigins[0] "http://localhost:3000" points at this machine; fine for a developer's stack (name it in allowedStacks), not for production`,
    });
  });
});

describe("the SARIF log", () => {
  const TOOL = { version: "1.2.3" };

  it("is valid SARIF 2.1.0, with a rule turned off and with the tenant's domain unknown", () => {
    const withDomain = audit([PORTAL, SPA, API], {
      settings: configured({ "tenant-oidc-conformant": "disabled" }),
    });
    const withoutDomain = audit([PORTAL], { tenant: { domain: undefined, name: undefined } });
    for (const report of [withDomain, withoutDomain]) {
      const log = JSON.parse(JSON.stringify(sarifLogOf(report, TOOL)));
      expect(validateSarif(log), JSON.stringify(validateSarif.errors)).toBe(true);
    }
  });

  it("has one rule per policy with its description and help, at the level the audit judged with", () => {
    const report = audit([], { settings: configured({ "tenant-oidc-conformant": "disabled" }) });
    const { rules } = sarifLogOf(report, TOOL).runs[0]?.tool.driver ?? { rules: [] };
    expect(rules.map((rule) => [rule.id, rule.defaultConfiguration])).toEqual(
      TENANT_RULES.map((rule) => [
        rule.name,
        rule.name === "tenant-oidc-conformant"
          ? { enabled: false }
          : { level: rule.enforcementLevel === "mandatory" ? "error" : "warning" },
      ]),
    );
    expect(rules[3]).toMatchObject({
      id: "tenant-grant-type-forbidden",
      shortDescription: {
        text: "No implicit and no password grant: RFC 9700 says they must not be used.",
      },
      help: {
        text:
          "No implicit and no password grant: RFC 9700 says they must not be used. RFC 9700 (the " +
          "OAuth 2.0 Security Best Current Practice): the implicit grant should not be used " +
          "(tokens in the URL, no sender constraint) and the resource owner password grant must " +
          "not be used. Specification: RFC 9700 (OAuth 2.0 Security Best Current Practice), " +
          "https://www.rfc-editor.org/rfc/rfc9700",
      },
      helpUri: "https://www.rfc-editor.org/rfc/rfc9700",
    });
  });

  it("links each client rule to the specification it rests on, and names it in the help", () => {
    const { rules } = sarifLogOf(audit([]), TOOL).runs[0]?.tool.driver ?? { rules: [] };
    const first = RULE_NAMES.indexOf("tenant-sender-constrained-tokens");
    expect(rules.slice(first).map((rule) => [rule.id, rule.helpUri])).toEqual([
      ["tenant-sender-constrained-tokens", "https://www.rfc-editor.org/rfc/rfc9449"],
      ["tenant-pushed-authorization-requests", "https://www.rfc-editor.org/rfc/rfc9126"],
      ["tenant-signed-request-object", "https://www.rfc-editor.org/rfc/rfc9101"],
      ["tenant-private-key-jwt", "https://www.rfc-editor.org/rfc/rfc7523"],
      ["tenant-backchannel-logout", "https://openid.net/specs/openid-connect-backchannel-1_0.html"],
      [
        "tenant-initiate-login-uri",
        "https://openid.net/specs/openid-connect-core-1_0.html#ThirdPartyInitiatedLogin",
      ],
      ["tenant-compliance-profile", "https://openid.net/wg/fapi/specifications/"],
    ]);
    expect(rules[first]?.help.text).toMatch(
      /RFC 9449.+ Specification: RFC 9449 \(DPoP\), https:\/\/www\.rfc-editor\.org\/rfc\/rfc9449$/,
    );
  });

  it("has one result per finding, at its level, located at a path naming the tenant and the client, with the client's API address and the field as properties", () => {
    const [run] = sarifLogOf(audit([PORTAL]), TOOL).runs;
    expect(run?.results.map((r) => [r.ruleId, r.ruleIndex, r.level])).toEqual([
      ["tenant-url-plain-http", 0, "error"],
      ["tenant-grant-type-forbidden", 3, "error"],
      ["tenant-oidc-conformant", 10, "warning"],
    ]);
    expect(run?.results[0]).toMatchObject({
      message: { text: FINDINGS[0]?.message },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: `tenants/acme.tenants.example/clients/${PORTAL_ID}` },
          },
          logicalLocations: [
            {
              name: "callbacks[1]",
              fullyQualifiedName: `clients/${PORTAL_ID}/callbacks[1]`,
              kind: "member",
            },
          ],
        },
      ],
      properties: {
        clientId: PORTAL_ID,
        clientName: "Legacy Portal",
        field: "callbacks[1]",
        value: "http://portal.example.com/cb",
        enforcementLevel: "mandatory",
        apiUrl: `https://acme.tenants.example/api/v2/clients/${PORTAL_ID}`,
      },
    });
  });

  it("locates every finding where code scanning's upload takes it, live, from a seed, and with the domain unknown", () => {
    const reports = [
      audit([PORTAL, SPA, API]),
      audit([PORTAL, SPA], { source: { kind: "seed", file: "/repo/seeds/acme-seed.json" } }),
      audit([PORTAL], { source: { kind: "seed", file: "../elsewhere/acme-seed.json" } }),
      audit([PORTAL], { tenant: { domain: undefined, name: undefined } }),
      audit([PORTAL], { tenant: { domain: "http://127.0.0.1:35811", name: "local-tenant" } }),
    ];
    const logs = reports.map((report) => sarifLogOf(report, { ...TOOL, root: "/repo" }));
    expect(logs.map((log) => log.runs[0]?.results.length)).toEqual([7, 7, 3, 3, 3]);
    expect(logs.flatMap((log) => uploadProblems(log))).toEqual([]);
    expect(
      logs.map((log) => log.runs[0]?.results[0]?.locations[0]?.physicalLocation.artifactLocation),
    ).toEqual([
      { uri: `tenants/acme.tenants.example/clients/${PORTAL_ID}` },
      { uri: "seeds/acme-seed.json" },
      { uri: `tenants/acme.tenants.example/clients/${PORTAL_ID}` },
      { uri: `tenants/unknown/clients/${PORTAL_ID}` },
      { uri: `tenants/127.0.0.1%3A35811/clients/${PORTAL_ID}` },
    ]);
  });

  it("would be refused by code scanning's upload at a web address, outside the repository, or with no location", () => {
    expect(uriProblem(`https://acme.tenants.example/api/v2/clients/${PORTAL_ID}`)).toBe(
      'unrecognized SARIF location URI scheme "https"',
    );
    expect(uriProblem("../acme-seed.json")).toBe("a path that leaves the repository (..)");
    expect(uriProblem("/repo/acme-seed.json")).toBe("an absolute path without file:");
    expect(uriProblem("file:///repo/acme-seed.json")).toBeUndefined();
    expect(uploadProblems({ runs: [{ results: [{ ruleId: "r", locations: [] }] }] })).toEqual([
      "run 0 result 0 (r): no physical location",
    ]);
  });

  it("names a seed file relative to the folder the audit ran in, and none outside it", () => {
    expect(repositoryPathOf("./seeds/acme.json", "/repo")).toBe("seeds/acme.json");
    expect(repositoryPathOf("/repo/acme.json", "/repo")).toBe("acme.json");
    expect(repositoryPathOf("/elsewhere/acme.json", "/repo")).toBeUndefined();
    expect(repositoryPathOf("acme.json", undefined)).toBe("acme.json");
    expect(repositoryPathOf("/tmp/acme.json", undefined)).toBeUndefined();
    expect(tenantPathOf({ domain: "https://acme.tenants.example/", name: "acme" }, "a/b")).toBe(
      "tenants/acme.tenants.example/clients/a%2Fb",
    );
    expect(tenantPathOf({ domain: undefined, name: "acme" }, "c")).toBe("tenants/acme/clients/c");
  });

  it("fingerprints a finding by its rule, client, field and value, not by the client's name", () => {
    const fingerprints = (client: WireClient) =>
      sarifLogOf(audit([client]), TOOL).runs[0]?.results.map((r) => r.partialFingerprints);
    expect(fingerprints({ ...PORTAL, name: "Renamed Portal" })).toEqual(fingerprints(PORTAL));
    expect(new Set(fingerprints(PORTAL)?.map((f) => f["tenantFinding/v1"])).size).toBe(3);
  });
});

describe("the command line", () => {
  it("audits the live tenant as text, failing on mandatory findings, by default", () => {
    const options = parseAuditArgs([]);
    expect(options).toMatchObject({
      seed: undefined,
      format: "text",
      out: undefined,
      config: undefined,
      stack: undefined,
      failOn: "mandatory",
    });
  });

  it("passes the pacing flags to the connection as the stack config keys", () => {
    const options = parseAuditArgs(["--rate-limit-reserve", "0", "--max-requests-per-second", "2"]);
    if (options === "help") throw new Error("not help");
    expect(options.connection.get("tenant:rateLimitReserve")).toBe("0");
    expect(options.connection.get("tenant:maxRequestsPerSecond")).toBe("2");
  });

  it("takes a seed, a format, an output file, a config file, a stack and a level to fail on", () => {
    const options = parseAuditArgs([
      "--seed",
      "s.json",
      "--format",
      "sarif",
      "--out",
      "r.sarif",
      "--config",
      "p.json",
      "--stack",
      "prod",
      "--fail-on",
      "advisory",
    ]);
    expect(options).toMatchObject({
      seed: "s.json",
      format: "sarif",
      out: "r.sarif",
      config: "p.json",
      stack: "prod",
      failOn: "advisory",
    });
  });

  it("refuses a format and a level it does not know, naming what it accepts", () => {
    expect(() => parseAuditArgs(["--format", "html"])).toThrow(
      new CommandUsageError('--format "html": accepted: text, json, sarif'),
    );
    expect(() => parseAuditArgs(["--fail-on", "never"])).toThrow(
      new CommandUsageError('--fail-on "never": accepted: mandatory, advisory'),
    );
  });

  it("refuses credentials with --seed, which is judged with no network", () => {
    expect(() => parseAuditArgs(["--seed", "s.json", "--domain", "acme.example"])).toThrow(
      new CommandUsageError(
        "--seed cannot be combined with --domain: a seed is judged with no network",
      ),
    );
  });

  it("refuses a flag it does not know", () => {
    expect(() => parseAuditArgs(["--fields", "name"])).toThrow(
      new CommandUsageError("unknown option --fields (see --help)"),
    );
  });
});
