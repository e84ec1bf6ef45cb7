import type * as pulumi from "@pulumi/pulumi";
import { describe, expect, it, vi } from "vitest";
import { GRANT_TYPES } from "../provider/schema/client-settings.js";
import {
  APP_TYPES,
  checkInputs,
  PUSH_PROVIDERS,
  SENSITIVE_CLIENT_FIELDS,
} from "../provider/schema/index.js";
import { compiledValidatorCount } from "../provider/schema/validate.js";
import { UNKNOWN } from "../provider/unknown.js";
import { PLATFORM_APP_TYPES } from "./support/platform.js";

const CLIENT_ID = "aBcD1234efGH5678";

function clientFailures(fields: Record<string, unknown>): pulumi.dynamic.CheckFailure[] {
  return checkInputs("ClientSettings", { clientId: CLIENT_ID, ...fields }).failures;
}

const APP_TYPE_LIST =
  '"native", "spa", "regular_web", "non_interactive", "resource_server", "express_configuration", "sso_integration", "oag"';
const GRANT_TYPE_LIST =
  '"authorization_code", "implicit", "refresh_token", "client_credentials", "password", ' +
  '"http://example/oauth/grant-type/password-realm", "http://example/oauth/grant-type/mfa-oob", ' +
  '"http://example/oauth/grant-type/mfa-otp", "http://example/oauth/grant-type/mfa-recovery-code", ' +
  '"urn:openid:params:grant-type:ciba", "urn:ietf:params:oauth:grant-type:device_code", ' +
  '"urn:example:params:oauth:grant-type:token-exchange:federated-connection-access-token"';
const CALLBACK_REASON =
  'must be an absolute URL such as https://app.example.com/callback or com.example.app://callback ("*" allowed in a subdomain)';
const ORIGIN_REASON =
  'must be an absolute http(s) URL ("*" allowed as a subdomain, {placeholders} allowed)';
const KEY_CHARSET_REASON =
  'key must contain only letters, digits, spaces, tabs and the characters :,-+=_*?"/()<>@';

function metadata(count: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`key${i}`, "v"]));
}

interface Edge {
  readonly constraint: string;
  readonly accepted: Record<string, unknown>;
  readonly rejected: Record<string, unknown>;
  readonly failure: pulumi.dynamic.CheckFailure;
}

const edges: Edge[] = [
  {
    constraint: "name has at least one character",
    accepted: { name: "a" },
    rejected: { name: "" },
    failure: { property: "name", reason: "must be at least 1 character (got 0)" },
  },
  {
    constraint: "name has no <",
    accepted: { name: "Web & App (prod) =/?" },
    rejected: { name: "Web <App" },
    failure: { property: "name", reason: 'must not contain "<" or ">"' },
  },
  {
    constraint: "name has no >",
    accepted: { name: "Web -App" },
    rejected: { name: "Web ->App" },
    failure: { property: "name", reason: 'must not contain "<" or ">"' },
  },
  {
    constraint: "name is a string",
    accepted: { name: "42" },
    rejected: { name: 42 },
    failure: { property: "name", reason: "must be a string (got number)" },
  },
  {
    constraint: "description has at most 140 characters",
    accepted: { description: "d".repeat(140) },
    rejected: { description: "d".repeat(141) },
    failure: { property: "description", reason: "must be at most 140 characters (got 141)" },
  },
  {
    constraint: "description counts characters, not UTF-16 units",
    accepted: { description: "😀".repeat(140) },
    rejected: { description: "😀".repeat(141) },
    failure: { property: "description", reason: "must be at most 140 characters (got 141)" },
  },
  {
    constraint: "clientSecret has at least one character (and is never echoed)",
    accepted: { clientSecret: "s" },
    rejected: { clientSecret: "" },
    // A sensitive input: Pulumi would print its value with a failure that names it.
    failure: { property: "", reason: "clientSecret: must be at least 1 character" },
  },
  {
    constraint: "logoUri is an absolute URI or empty",
    accepted: { logoUri: "" },
    rejected: { logoUri: "logo.png" },
    failure: {
      property: "logoUri",
      reason: 'must be an absolute URI with a scheme, or empty (got "logo.png")',
    },
  },
  {
    constraint: "callbacks items are callback URLs",
    accepted: { callbacks: ["com.example.app://callback", "http://localhost:3000/cb"] },
    rejected: { callbacks: ["https://app.example.com/cb", "https://app.example.com/cb", "/cb"] },
    failure: { property: "callbacks[2]", reason: `${CALLBACK_REASON} (got "/cb")` },
  },
  {
    constraint: "callbacks allow * only in a subdomain",
    accepted: { callbacks: ["https://*.example.com/cb"] },
    rejected: { callbacks: ["https://*.com/cb"] },
    failure: { property: "callbacks[0]", reason: `${CALLBACK_REASON} (got "https://*.com/cb")` },
  },
  {
    constraint: "allowedOrigins items are URLs with placeholders",
    accepted: { allowedOrigins: ["https://*.example.com"] },
    rejected: { allowedOrigins: ["https://app-*.example.com"] },
    failure: {
      property: "allowedOrigins[0]",
      reason: `${ORIGIN_REASON} (got "https://app-*.example.com")`,
    },
  },
  {
    constraint: "webOrigins items are http(s) URLs",
    accepted: { webOrigins: ["http://localhost:3000"] },
    rejected: { webOrigins: ["ftp://localhost"] },
    failure: { property: "webOrigins[0]", reason: `${ORIGIN_REASON} (got "ftp://localhost")` },
  },
  {
    constraint: "allowedLogoutUrls items are URLs with placeholders",
    accepted: { allowedLogoutUrls: ["https://{tenant}.example.com/bye?x=<y>"] },
    rejected: { allowedLogoutUrls: ["example.com/bye"] },
    failure: {
      property: "allowedLogoutUrls[0]",
      reason: `${ORIGIN_REASON} (got "example.com/bye")`,
    },
  },
  {
    constraint: "grantTypes items are the grant types of the spec",
    accepted: { grantTypes: [...GRANT_TYPES] },
    rejected: { grantTypes: ["authorization_code", "urn:ietf:params:oauth:grant-type:jwt-bearer"] },
    failure: {
      property: "grantTypes[1]",
      reason: `must be one of ${GRANT_TYPE_LIST} (got "urn:ietf:params:oauth:grant-type:jwt-bearer")`,
    },
  },
  {
    constraint: "grantTypes items are not empty",
    accepted: { grantTypes: ["implicit"] },
    rejected: { grantTypes: [""] },
    failure: { property: "grantTypes[0]", reason: `must be one of ${GRANT_TYPE_LIST} (got "")` },
  },
  {
    constraint: "clientAliases items have at least one character",
    accepted: { clientAliases: ["a"] },
    rejected: { clientAliases: ["a", ""] },
    failure: { property: "clientAliases[1]", reason: "must be at least 1 character (got 0)" },
  },
  {
    constraint: "allowedClients items have at least one character",
    accepted: { allowedClients: ["c"] },
    rejected: { allowedClients: [""] },
    failure: { property: "allowedClients[0]", reason: "must be at least 1 character (got 0)" },
  },
  {
    constraint: "allowedClients is an array",
    accepted: { allowedClients: [] },
    rejected: { allowedClients: "c" },
    failure: { property: "allowedClients", reason: "must be an array (got string)" },
  },
  {
    constraint: "crossOriginLoc is an http(s) URL or null",
    accepted: { crossOriginLoc: null },
    rejected: { crossOriginLoc: "ftp://app.example.com/verify" },
    failure: {
      property: "crossOriginLoc",
      reason: 'must be an absolute http(s) URL or null (got "ftp://app.example.com/verify")',
    },
  },
  {
    constraint: "crossOriginLoc is a string or null",
    accepted: { crossOriginLoc: "https://app.example.com/verify" },
    rejected: { crossOriginLoc: false },
    failure: { property: "crossOriginLoc", reason: "must be a string or null (got boolean)" },
  },
  {
    constraint: "tokenEndpointAuthMethod is one of its values or null",
    accepted: { tokenEndpointAuthMethod: null },
    rejected: { tokenEndpointAuthMethod: "private_key_jwt" },
    failure: {
      property: "tokenEndpointAuthMethod",
      reason:
        'must be one of "none", "client_secret_post", "client_secret_basic", null (got "private_key_jwt")',
    },
  },
  {
    constraint: "appType is one of the named values",
    accepted: { appType: "oag" },
    rejected: { appType: "box" },
    failure: { property: "appType", reason: `must be one of ${APP_TYPE_LIST} (got "box")` },
  },
  {
    constraint: "appType is not null",
    accepted: { appType: "spa" },
    rejected: { appType: null },
    failure: { property: "appType", reason: `must be one of ${APP_TYPE_LIST} (got null)` },
  },
  {
    constraint: "sso is a boolean",
    accepted: { sso: false },
    rejected: { sso: "false" },
    failure: { property: "sso", reason: "must be a boolean (got string)" },
  },
  {
    constraint: "oidcConformant is not null",
    accepted: { oidcConformant: true },
    rejected: { oidcConformant: null },
    failure: { property: "oidcConformant", reason: "must be a boolean (got null)" },
  },
  {
    constraint: "clientMetadata has at most 10 properties",
    accepted: { clientMetadata: metadata(10) },
    rejected: { clientMetadata: metadata(11) },
    failure: { property: "clientMetadata", reason: "must have at most 10 properties (got 11)" },
  },
  {
    constraint: "clientMetadata keys have at most 255 characters",
    accepted: { clientMetadata: { ["k".repeat(255)]: "v" } },
    rejected: { clientMetadata: { ["k".repeat(256)]: "v" } },
    failure: {
      property: `clientMetadata.${"k".repeat(256)}`,
      reason: "key must be at most 255 characters (got 256)",
    },
  },
  {
    constraint: "clientMetadata keys use only the allowed characters",
    accepted: { clientMetadata: { 'aZ09:,-+=_*?"/()<>@\t ': "v" } },
    rejected: { clientMetadata: { "plan.tier": "gold" } },
    failure: { property: 'clientMetadata["plan.tier"]', reason: KEY_CHARSET_REASON },
  },
  {
    constraint: "clientMetadata values have at most 255 characters",
    accepted: { clientMetadata: { plan: "v".repeat(255) } },
    rejected: { clientMetadata: { plan: "v".repeat(256) } },
    failure: {
      property: "clientMetadata.plan",
      reason: "must be at most 255 characters (got 256)",
    },
  },
  {
    constraint: "clientMetadata values are strings",
    accepted: { clientMetadata: { retries: "3" } },
    rejected: { clientMetadata: { retries: 3 } },
    failure: { property: "clientMetadata.retries", reason: "must be a string (got number)" },
  },
  {
    constraint: "initiateLoginUri is https (placeholders allowed) or empty",
    accepted: { initiateLoginUri: "https://{tenant}.example.com/login" },
    rejected: { initiateLoginUri: "http://app.example.com/login" },
    failure: {
      property: "initiateLoginUri",
      reason:
        'must be an https:// URL ({placeholders} allowed), or empty (got "http://app.example.com/login")',
    },
  },
  {
    constraint: "organizationUsage is one of its values or null",
    accepted: { organizationUsage: "require" },
    rejected: { organizationUsage: "required" },
    failure: {
      property: "organizationUsage",
      reason: 'must be one of "deny", "allow", "require", null (got "required")',
    },
  },
  {
    constraint: "organizationRequireBehavior is one of its values or null",
    accepted: { organizationRequireBehavior: null },
    rejected: { organizationRequireBehavior: "prompt" },
    failure: {
      property: "organizationRequireBehavior",
      reason:
        'must be one of "no_prompt", "pre_login_prompt", "post_login_prompt", null (got "prompt")',
    },
  },
  {
    constraint: "organizationDiscoveryMethods has at least one item",
    accepted: { organizationDiscoveryMethods: ["email"] },
    rejected: { organizationDiscoveryMethods: [] },
    failure: {
      property: "organizationDiscoveryMethods",
      reason: "must have at least 1 item (got 0)",
    },
  },
  {
    constraint: "organizationDiscoveryMethods items are its methods",
    accepted: { organizationDiscoveryMethods: ["email", "organization_name"] },
    rejected: { organizationDiscoveryMethods: ["email", "phone"] },
    failure: {
      property: "organizationDiscoveryMethods[1]",
      reason: 'must be one of "email", "organization_name" (got "phone")',
    },
  },
  {
    constraint: "organizationDiscoveryMethods may be null",
    accepted: { organizationDiscoveryMethods: null },
    rejected: { organizationDiscoveryMethods: "email" },
    failure: {
      property: "organizationDiscoveryMethods",
      reason: "must be an array or null (got string)",
    },
  },
  {
    constraint: "complianceLevel is one of its values or null",
    accepted: { complianceLevel: "fapi2_sp_mtls_mtls" },
    rejected: { complianceLevel: "fapi2" },
    failure: {
      property: "complianceLevel",
      reason:
        'must be one of "none", "fapi1_adv_pkj_par", "fapi1_adv_mtls_par", "fapi2_sp_pkj_mtls", "fapi2_sp_mtls_mtls", null (got "fapi2")',
    },
  },
  {
    constraint: "skipNonVerifiableCallbackUriConfirmationPrompt is a boolean or null",
    accepted: { skipNonVerifiableCallbackUriConfirmationPrompt: null },
    rejected: { skipNonVerifiableCallbackUriConfirmationPrompt: "no" },
    failure: {
      property: "skipNonVerifiableCallbackUriConfirmationPrompt",
      reason: "must be a boolean or null (got string)",
    },
  },
  {
    constraint: "parRequestExpiry is at least 10",
    accepted: { parRequestExpiry: 10 },
    rejected: { parRequestExpiry: 9 },
    failure: { property: "parRequestExpiry", reason: "must be an integer from 10 to 600 (got 9)" },
  },
  {
    constraint: "parRequestExpiry is at most 600",
    accepted: { parRequestExpiry: 600 },
    rejected: { parRequestExpiry: 601 },
    failure: {
      property: "parRequestExpiry",
      reason: "must be an integer from 10 to 600 (got 601)",
    },
  },
  {
    constraint: "parRequestExpiry is an integer or null",
    accepted: { parRequestExpiry: null },
    rejected: { parRequestExpiry: 10.5 },
    failure: { property: "parRequestExpiry", reason: "must be an integer or null (got 10.5)" },
  },
  {
    constraint: "asyncApprovalNotificationChannels has at least one item",
    accepted: { asyncApprovalNotificationChannels: ["guardian-push"] },
    rejected: { asyncApprovalNotificationChannels: [] },
    failure: {
      property: "asyncApprovalNotificationChannels",
      reason: "must have at least 1 item (got 0)",
    },
  },
  {
    constraint: "asyncApprovalNotificationChannels items are its channels",
    accepted: { asyncApprovalNotificationChannels: ["email", "guardian-push"] },
    rejected: { asyncApprovalNotificationChannels: ["sms"] },
    failure: {
      property: "asyncApprovalNotificationChannels[0]",
      reason: 'must be one of "guardian-push", "email" (got "sms")',
    },
  },
  {
    constraint: "thirdPartySecurityMode is strict or permissive",
    accepted: { thirdPartySecurityMode: "permissive" },
    rejected: { thirdPartySecurityMode: "lenient" },
    failure: {
      property: "thirdPartySecurityMode",
      reason: 'must be one of "strict", "permissive" (got "lenient")',
    },
  },
  {
    constraint: "redirectionPolicy is one of its values",
    accepted: { redirectionPolicy: "open_redirect_protection" },
    rejected: { redirectionPolicy: null },
    failure: {
      property: "redirectionPolicy",
      reason: 'must be one of "allow_always", "open_redirect_protection" (got null)',
    },
  },
  {
    constraint: "sessionTransfer may be null",
    accepted: { sessionTransfer: null },
    rejected: { sessionTransfer: [] },
    failure: { property: "sessionTransfer", reason: "must be an object or null (got array)" },
  },
  {
    constraint: "jwtConfiguration is not null",
    accepted: { jwtConfiguration: {} },
    rejected: { jwtConfiguration: null },
    failure: { property: "jwtConfiguration", reason: "must be an object (got null)" },
  },
  {
    constraint: "jwtConfiguration.lifetimeInSeconds is an integer",
    accepted: { jwtConfiguration: { lifetimeInSeconds: 36000 } },
    rejected: { jwtConfiguration: { lifetimeInSeconds: 36000.5 } },
    failure: {
      property: "jwtConfiguration.lifetimeInSeconds",
      reason: "must be an integer (got 36000.5)",
    },
  },
  {
    constraint: "refreshToken.policies[].scope items are strings",
    accepted: { refreshToken: { policies: [{ audience: "https://api", scope: ["read"] }] } },
    rejected: { refreshToken: { policies: [{ audience: "https://api", scope: ["read", 1] }] } },
    failure: {
      property: "refreshToken.policies[0].scope[1]",
      reason: "must be a string (got number)",
    },
  },
  {
    constraint: "mobile.android.sha256CertFingerprints is an array of strings",
    accepted: { mobile: { android: { sha256CertFingerprints: ["AB:CD"] } } },
    rejected: { mobile: { android: { sha256CertFingerprints: "AB:CD" } } },
    failure: {
      property: "mobile.android.sha256CertFingerprints",
      reason: "must be an array (got string)",
    },
  },
  {
    constraint: "nativeSocialLogin members are { enabled }",
    accepted: { nativeSocialLogin: { apple: { enabled: true }, google_oauth2: {} } },
    rejected: { nativeSocialLogin: { apple: { enable: true } } },
    failure: {
      property: "nativeSocialLogin.apple.enable",
      reason: 'is not a known property; did you mean "enabled"?',
    },
  },
  {
    constraint: "fedcmLogin members are { isEnabled }",
    accepted: { fedcmLogin: { google: { isEnabled: false } } },
    rejected: { fedcmLogin: { google: { isEnabled: "no" } } },
    failure: { property: "fedcmLogin.google.isEnabled", reason: "must be a boolean (got string)" },
  },
  {
    constraint: "clientAuthenticationMethods credentials are { id }",
    accepted: {
      clientAuthenticationMethods: { privateKeyJwt: { credentials: [{ id: "cred_1" }] } },
    },
    rejected: { clientAuthenticationMethods: { privateKeyJwt: { credentials: [{ id: 1 }] } } },
    failure: {
      property: "clientAuthenticationMethods.privateKeyJwt.credentials[0].id",
      reason: "must be a string (got number)",
    },
  },
  {
    constraint: "tokenQuota.clientCredentials.perDay is an integer",
    accepted: { tokenQuota: { clientCredentials: { enforce: true, perDay: 0 } } },
    rejected: { tokenQuota: { clientCredentials: { perDay: "10" } } },
    failure: {
      property: "tokenQuota.clientCredentials.perDay",
      reason: "must be an integer (got string)",
    },
  },
  {
    constraint: "oidcBackchannelLogout accepts any object but nothing else",
    accepted: { oidcBackchannelLogout: { backchannel_logout_urls: [] } },
    rejected: { oidcBackchannelLogout: "on" },
    failure: { property: "oidcBackchannelLogout", reason: "must be an object (got string)" },
  },
  {
    constraint: "addons.samlp fields have their types (and values are never echoed)",
    accepted: { addons: { samlp: { lifetimeInSeconds: 3600, mappings: { "any key": 1 } } } },
    rejected: { addons: { samlp: { lifetimeInSeconds: 3600.5 } } },
    failure: {
      property: "addons.samlp.lifetimeInSeconds",
      reason: "must be an integer (got number)",
    },
  },
  {
    constraint: "addons.wsfed is an empty object",
    accepted: { addons: { wsfed: {} } },
    rejected: { addons: { wsfed: { realm: "x" } } },
    failure: { property: "addons.wsfed.realm", reason: "is not a known property" },
  },
  {
    constraint: "addons.sso_integration is { name, version }",
    accepted: { addons: { sso_integration: { name: "x", version: "1" } } },
    rejected: { addons: { sso_integration: { nam: "x" } } },
    failure: {
      property: "addons.sso_integration.nam",
      reason: 'is not a known property; did you mean "name"?',
    },
  },
  {
    constraint: "other addons use the spec's field sets with their types",
    accepted: {
      addons: { storage: { accountName: "acct", blob_read: true, expiration: 10 }, box: {} },
    },
    rejected: { addons: { storage: { accountName: "acct", blob_read: "yes" } } },
    failure: { property: "addons.storage.blob_read", reason: "must be a boolean (got string)" },
  },
  {
    constraint: "other addons have no field outside the spec's field sets",
    accepted: { addons: { cloud: { principal: "p", role: "r", lifetime_in_seconds: 60 } } },
    rejected: { addons: { cloud: { lifetimeInSeconds: 60 } } },
    failure: {
      property: "addons.cloud.lifetimeInSeconds",
      reason: 'is not a known property; did you mean "lifetime_in_seconds"?',
    },
  },
  {
    constraint: "addon members are objects",
    accepted: { addons: { oag: {} } },
    rejected: { addons: { oag: true } },
    failure: { property: "addons.oag", reason: "must be an object (got boolean)" },
  },
  {
    constraint: "clientId has at least one character",
    accepted: { clientId: "c" },
    rejected: { clientId: "" },
    failure: { property: "clientId", reason: "must be at least 1 character (got 0)" },
  },
];

function typeEdges(
  fields: readonly string[],
  accepted: unknown,
  rejected: unknown,
  constraint: string,
  reason: string,
): Edge[] {
  return fields.map((field) => ({
    constraint: `${field} ${constraint}`,
    accepted: { [field]: accepted },
    rejected: { [field]: rejected },
    // Pulumi would print a sensitive input's value with a failure that names it.
    failure: (SENSITIVE_CLIENT_FIELDS as readonly string[]).includes(field)
      ? { property: "", reason: `${field}: ${reason}` }
      : { property: field, reason },
  }));
}

edges.push(
  ...typeEdges(
    [
      "sso",
      "crossOriginAuthentication",
      "ssoDisabled",
      "customLoginPageOn",
      "isTokenEndpointIpHeaderTrusted",
      "isFirstParty",
      "oidcConformant",
      "requirePushedAuthorizationRequests",
      "requireProofOfPossession",
    ],
    true,
    null,
    "is a boolean, not null",
    "must be a boolean (got null)",
  ),
  ...typeEdges(
    ["customLoginPage", "customLoginPagePreview", "formTemplate"],
    "",
    1,
    "is a string, empty allowed",
    "must be a string (got number)",
  ),
  ...typeEdges(
    [
      "sessionTransfer",
      "encryptionKey",
      "tokenQuota",
      "nativeSocialLogin",
      "fedcmLogin",
      "refreshToken",
      "defaultOrganization",
      "clientAuthenticationMethods",
      "tokenExchange",
      "expressConfiguration",
      "myOrganizationConfiguration",
    ],
    null,
    "x",
    "is an object or null",
    "must be an object or null (got string)",
  ),
  ...typeEdges(
    [
      "oidcLogout",
      "oidcBackchannelLogout",
      "jwtConfiguration",
      "addons",
      "clientMetadata",
      "mobile",
      "signedRequestObject",
      "tokenVaultPrivilegedAccess",
    ],
    {},
    null,
    "is an object, not null",
    "must be an object (got null)",
  ),
  ...typeEdges(
    [
      "callbacks",
      "allowedOrigins",
      "webOrigins",
      "grantTypes",
      "clientAliases",
      "allowedClients",
      "allowedLogoutUrls",
    ],
    [],
    null,
    "is an array, empty allowed, not null",
    "must be an array (got null)",
  ),
);

describe.each(edges)("$constraint", ({ accepted, rejected, failure }) => {
  it("accepts the value at the edge", () => {
    expect(clientFailures(accepted)).toEqual([]);
  });

  it("rejects the value just past it with the exact failure", () => {
    expect(clientFailures(rejected)).toEqual([failure]);
  });
});

describe("the value lists", () => {
  it("accepts every one of the 12 grant types of the spec", () => {
    expect(GRANT_TYPES).toHaveLength(12);
    expect(clientFailures({ grantTypes: [...GRANT_TYPES] })).toEqual([]);
  });

  it.each(APP_TYPES)("accepts the app type %s", (appType) => {
    expect(clientFailures({ appType })).toEqual([]);
  });

  it("names the eight app types of the spec", () => {
    expect([...APP_TYPES]).toEqual(PLATFORM_APP_TYPES);
  });
});

describe("required and unknown properties", () => {
  it("requires clientId", () => {
    expect(checkInputs("ClientSettings", { name: "web" }).failures).toEqual([
      { property: "clientId", reason: "is required" },
    ]);
  });

  it("rejects an unknown property and suggests the nearest valid name", () => {
    expect(clientFailures({ oidcConformnt: true })).toEqual([
      // An input the schema does not know may hold anything: the failure names no property.
      {
        property: "",
        reason: 'oidcConformnt: is not a known property; did you mean "oidcConformant"?',
      },
    ]);
  });

  it("suggests the camelCase name for a property written in the API's snake_case", () => {
    expect(clientFailures({ organization_require_behavior: "no_prompt" })).toEqual([
      {
        property: "",
        reason:
          'organization_require_behavior: is not a known property; did you mean "organizationRequireBehavior"?',
      },
    ]);
  });

  it("suggests nothing when no valid name is close", () => {
    expect(clientFailures({ favouriteColour: "blue" })).toEqual([
      { property: "", reason: "favouriteColour: is not a known property" },
    ]);
  });

  it("rejects an unknown nested property with the path and a suggestion", () => {
    expect(clientFailures({ jwtConfiguration: { lifetime_in_seconds: 60 } })).toEqual([
      {
        property: "jwtConfiguration.lifetime_in_seconds",
        reason: 'is not a known property; did you mean "lifetimeInSeconds"?',
      },
    ]);
  });

  it("ignores keys starting with __ and keeps them in the normalised inputs", () => {
    const news = { clientId: CLIENT_ID, name: "web", __provider: "shim", __name: "web" };
    expect(checkInputs("ClientSettings", news)).toEqual({ inputs: news, failures: [] });
  });

  it("returns the news unchanged as the normalised inputs", () => {
    const news = { clientId: CLIENT_ID, description: "d".repeat(141), __provider: "shim" };
    expect(checkInputs("ClientSettings", news).inputs).toEqual(news);
  });
});

describe("the post_login_prompt rule", () => {
  it("accepts post_login_prompt with oidcConformant true", () => {
    expect(
      clientFailures({ organizationRequireBehavior: "post_login_prompt", oidcConformant: true }),
    ).toEqual([]);
  });

  it("rejects post_login_prompt with oidcConformant false, at organizationRequireBehavior", () => {
    expect(
      clientFailures({ organizationRequireBehavior: "post_login_prompt", oidcConformant: false }),
    ).toEqual([
      {
        property: "organizationRequireBehavior",
        reason: '"post_login_prompt" requires oidcConformant to be true',
      },
    ]);
  });

  it("leaves post_login_prompt without a declared oidcConformant to the live check", () => {
    expect(clientFailures({ organizationRequireBehavior: "post_login_prompt" })).toEqual([]);
  });

  it("does not judge post_login_prompt while oidcConformant is unknown", () => {
    expect(
      clientFailures({ organizationRequireBehavior: "post_login_prompt", oidcConformant: UNKNOWN }),
    ).toEqual([]);
  });

  it("does not apply to the other behaviours", () => {
    expect(
      clientFailures({ organizationRequireBehavior: "pre_login_prompt", oidcConformant: false }),
    ).toEqual([]);
  });
});

describe("all failures at once", () => {
  it("reports three mistakes in one ClientSettings as three failures from one check", () => {
    expect(
      clientFailures({
        description: "d".repeat(141),
        callbacks: ["https://app.example.com/cb", "https://app.example.com/cb2", "app/cb"],
        jwtConfiguration: { lifetimeInSeconds: "1h" },
      }),
    ).toEqual([
      { property: "description", reason: "must be at most 140 characters (got 141)" },
      { property: "callbacks[2]", reason: `${CALLBACK_REASON} (got "app/cb")` },
      { property: "jwtConfiguration.lifetimeInSeconds", reason: "must be an integer (got string)" },
    ]);
  });

  it("reports a wrong type once, not once per keyword", () => {
    expect(clientFailures({ organizationUsage: 5 })).toEqual([
      {
        property: "organizationUsage",
        reason: 'must be one of "deny", "allow", "require", null (got 5)',
      },
    ]);
  });
});

describe("unknown values during preview", () => {
  it.each([
    ["a boolean", { oidcConformant: UNKNOWN }],
    ["an integer", { parRequestExpiry: UNKNOWN }],
    ["an enum", { appType: UNKNOWN }],
    ["a string with a format", { logoUri: UNKNOWN, initiateLoginUri: UNKNOWN }],
    ["a string with a length limit", { description: UNKNOWN, name: UNKNOWN }],
    ["an array", { callbacks: UNKNOWN, organizationDiscoveryMethods: UNKNOWN }],
    [
      "an array item",
      { callbacks: ["https://app.example.com/cb", UNKNOWN], grantTypes: [UNKNOWN] },
    ],
    ["an object", { jwtConfiguration: UNKNOWN, clientMetadata: UNKNOWN, addons: UNKNOWN }],
    [
      "a nested field",
      { jwtConfiguration: { lifetimeInSeconds: UNKNOWN, secretEncoded: UNKNOWN } },
    ],
    ["a map value", { clientMetadata: { plan: UNKNOWN } }],
    ["an addon field", { addons: { samlp: { signResponse: UNKNOWN } } }],
    ["the client id", { clientId: UNKNOWN }],
  ])("are never a failure in %s", (_, fields) => {
    expect(clientFailures(fields)).toEqual([]);
  });

  it("are never a failure for the push provider or the event stream id", () => {
    expect(checkInputs("PushProviderSelection", { provider: UNKNOWN }).failures).toEqual([]);
    expect(checkInputs("EventStreamDeletion", { eventStreamId: UNKNOWN }).failures).toEqual([]);
  });

  it("do not hide a failure of another field", () => {
    expect(clientFailures({ oidcConformant: UNKNOWN, sso: "yes" })).toEqual([
      { property: "sso", reason: "must be a boolean (got string)" },
    ]);
  });
});

describe("sensitive and long values", () => {
  it("never echoes a client secret", () => {
    expect(clientFailures({ clientSecret: 12345 })).toEqual([
      { property: "", reason: "clientSecret: must be a string (got number)" },
    ]);
  });

  it("never echoes an addon value", () => {
    expect(clientFailures({ addons: { samlp: { audience: 4242 } } })).toEqual([
      { property: "addons.samlp.audience", reason: "must be a string (got number)" },
    ]);
  });

  it("shortens a long echoed value", () => {
    expect(clientFailures({ logoUri: `relative/${"x".repeat(100)}` })).toEqual([
      {
        property: "logoUri",
        reason: `must be an absolute URI with a scheme, or empty (got "relative/${"x".repeat(68)}"...)`,
      },
    ]);
  });
});

describe("PushProviderSelection", () => {
  it.each(PUSH_PROVIDERS)("accepts the provider %s", (provider) => {
    expect(checkInputs("PushProviderSelection", { provider }).failures).toEqual([]);
  });

  it("rejects another provider with the list of accepted ones", () => {
    expect(checkInputs("PushProviderSelection", { provider: "apns" }).failures).toEqual([
      { property: "provider", reason: 'must be one of "guardian", "sns", "direct" (got "apns")' },
    ]);
  });

  it("requires the provider", () => {
    expect(checkInputs("PushProviderSelection", { __provider: "shim" }).failures).toEqual([
      { property: "provider", reason: "is required" },
    ]);
  });

  it("rejects any other property", () => {
    expect(
      checkInputs("PushProviderSelection", { provider: "sns", providers: "sns" }).failures,
    ).toEqual([
      {
        property: "",
        reason: 'providers: is not a known property; did you mean "provider"?',
      },
    ]);
  });
});

describe("EventStreamDeletion", () => {
  it("accepts an id of exactly 26 characters", () => {
    expect(
      checkInputs("EventStreamDeletion", { eventStreamId: "est_0123456789abcdefghijkl" }).failures,
    ).toEqual([]);
  });

  it("rejects an id of 25 characters", () => {
    expect(
      checkInputs("EventStreamDeletion", { eventStreamId: "est_0123456789abcdefghijk" }).failures,
    ).toEqual([{ property: "eventStreamId", reason: "must be exactly 26 characters (got 25)" }]);
  });

  it("rejects an id of 27 characters", () => {
    expect(
      checkInputs("EventStreamDeletion", { eventStreamId: "est_0123456789abcdefghijklm" }).failures,
    ).toEqual([{ property: "eventStreamId", reason: "must be exactly 26 characters (got 27)" }]);
  });

  it("requires the id", () => {
    expect(checkInputs("EventStreamDeletion", {}).failures).toEqual([
      { property: "eventStreamId", reason: "is required" },
    ]);
  });
});

describe("validators", () => {
  it("are not compiled when the module is imported, only on first use", async () => {
    vi.resetModules();
    const fresh = await import("../provider/schema/index.js");
    const cache = await import("../provider/schema/validate.js");
    expect(cache.compiledValidatorCount()).toBe(0);
    fresh.checkInputs("PushProviderSelection", { provider: "sns" });
    expect(cache.compiledValidatorCount()).toBe(1);
  });

  it("are compiled once per process, not once per check", () => {
    checkInputs("ClientSettings", { clientId: CLIENT_ID });
    const after = compiledValidatorCount();
    for (let i = 0; i < 3; i++) checkInputs("ClientSettings", { clientId: CLIENT_ID, sso: true });
    expect(compiledValidatorCount()).toBe(after);
  });

  it("never throw, even on inputs that are not objects", () => {
    expect(
      checkInputs("ClientSettings", { clientId: CLIENT_ID, mobile: { android: [[[]]] } }).failures,
    ).toEqual([{ property: "mobile.android", reason: "must be an object (got array)" }]);
  });
});
