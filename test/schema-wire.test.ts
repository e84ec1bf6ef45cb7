import { describe, expect, it } from "vitest";
import { fromWire, toWire, validateWire, wireSchema } from "../provider/local-tenant/wire.js";
import { clientSettingsSchema } from "../provider/schema/client-settings.js";
import { eventStreamDeletionSchema } from "../provider/schema/event-stream-deletion.js";
import {
  CLIENT_SETTINGS_FIELDS,
  type ClientSettingsInputs,
  checkInputs,
  fieldFromWire,
  fieldToWire,
  SENSITIVE_CLIENT_FIELDS,
  wireName,
} from "../provider/schema/index.js";
import { pushProviderSelectionSchema } from "../provider/schema/push-provider-selection.js";
import { UNKNOWN } from "../provider/schema/unknown.js";
import { camelToSnake, snakeToCamel } from "../provider/schema/wire.js";

/** The 55 client fields as the platform spells them, in its order (docs/design/platform.md). */
const SPEC_FIELDS = [
  "name",
  "description",
  "client_secret",
  "logo_uri",
  "callbacks",
  "oidc_logout",
  "oidc_backchannel_logout",
  "session_transfer",
  "allowed_origins",
  "web_origins",
  "grant_types",
  "client_aliases",
  "allowed_clients",
  "allowed_logout_urls",
  "jwt_configuration",
  "encryption_key",
  "sso",
  "cross_origin_authentication",
  "cross_origin_loc",
  "sso_disabled",
  "custom_login_page_on",
  "token_endpoint_auth_method",
  "is_token_endpoint_ip_header_trusted",
  "app_type",
  "is_first_party",
  "oidc_conformant",
  "custom_login_page",
  "custom_login_page_preview",
  "token_quota",
  "form_template",
  "addons",
  "client_metadata",
  "mobile",
  "initiate_login_uri",
  "native_social_login",
  "fedcm_login",
  "refresh_token",
  "default_organization",
  "organization_usage",
  "organization_require_behavior",
  "organization_discovery_methods",
  "client_authentication_methods",
  "require_pushed_authorization_requests",
  "require_proof_of_possession",
  "signed_request_object",
  "token_vault_privileged_access",
  "compliance_level",
  "skip_non_verifiable_callback_uri_confirmation_prompt",
  "token_exchange",
  "par_request_expiry",
  "express_configuration",
  "my_organization_configuration",
  "async_approval_notification_channels",
  "third_party_security_mode",
  "redirection_policy",
];

/** A client that uses every field and every nested member, in the user's spelling. */
const everyField = {
  clientId: "aBcD1234efGH5678",
  name: "Web app",
  description: "The web front end",
  clientSecret: "s3cr3t",
  logoUri: "https://cdn.example.com/logo.png",
  callbacks: ["https://app.example.com/callback", "com.example.app://callback"],
  oidcLogout: {
    backchannelLogoutUrls: ["https://app.example.com/bcl"],
    backchannelLogoutInitiators: { selectedInitiators: ["rp-logout", "idp-logout"] },
    backchannelLogoutSessionMetadata: { include: true },
  },
  oidcBackchannelLogout: { backchannel_logout_urls: ["https://app.example.com/old-bcl"] },
  sessionTransfer: {
    canCreateSessionTransferToken: true,
    enforceCascadeRevocation: true,
    allowedAuthenticationMethods: ["cookie", "query"],
    enforceDeviceBinding: "ip",
    allowRefreshToken: false,
    enforceOnlineRefreshTokens: true,
    delegation: { allowDelegatedAccess: true, enforceDeviceBinding: "asn" },
  },
  allowedOrigins: ["https://*.example.com"],
  webOrigins: ["https://app.example.com"],
  grantTypes: ["authorization_code", "refresh_token"],
  clientAliases: ["urn:example:sp"],
  allowedClients: ["otherClient"],
  allowedLogoutUrls: ["https://app.example.com/bye"],
  jwtConfiguration: {
    lifetimeInSeconds: 36000,
    secretEncoded: false,
    scopes: { "read:users": { actions: ["read"] }, camelScope: {} },
    alg: "RS256",
  },
  encryptionKey: { pub: "pub", cert: "cert", subject: "CN=app" },
  sso: false,
  crossOriginAuthentication: true,
  crossOriginLoc: "https://app.example.com/verify",
  ssoDisabled: false,
  customLoginPageOn: true,
  tokenEndpointAuthMethod: "client_secret_post",
  isTokenEndpointIpHeaderTrusted: false,
  appType: "regular_web",
  isFirstParty: true,
  oidcConformant: true,
  customLoginPage: "<html></html>",
  customLoginPagePreview: "<html>preview</html>",
  tokenQuota: { clientCredentials: { enforce: true, perDay: 1000, perHour: 100 } },
  formTemplate: "<form></form>",
  addons: {
    samlp: {
      mappings: { user_id: "http://schemas/nameid", emailAddress: "http://schemas/email" },
      audience: "urn:sp",
      recipient: "https://sp.example.com/acs",
      createUpnClaim: true,
      mapUnknownClaimsAsIs: false,
      passthroughClaimsWithNoMapping: true,
      mapIdentities: true,
      signResponse: false,
      signatureAlgorithm: "rsa-sha256",
      digestAlgorithm: "sha256",
      issuer: "urn:idp",
      destination: "https://sp.example.com/acs",
      lifetimeInSeconds: 3600,
      nameIdentifierFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified",
      nameIdentifierProbes: ["http://schemas/email"],
      authnContextClassRef: "urn:oasis:names:tc:SAML:2.0:ac:classes:unspecified",
    },
    wsfed: {},
    oag: {},
    sso_integration: { name: "portal", version: "2" },
    blobStore: {
      accountName: "acct",
      storageAccessKey: "key",
      containerName: "c",
      blobName: "b",
      expiration: 10,
      signedIdentifier: "id",
      blob_read: true,
      blob_write: false,
      blob_delete: false,
      container_read: true,
      container_write: false,
      container_delete: false,
      container_list: true,
    },
    cloudRole: { principal: "p", role: "r", lifetime_in_seconds: 900 },
    pushMessaging: {
      secret: "x",
      private_key_id: "k1",
      private_key: "pem",
      client_email: "a@b.c",
      lifetime_in_seconds: 60,
    },
    documentPortal: {
      url: "https://portal.example.com",
      external_url: ["https://ext.example.com"],
    },
  },
  clientMetadata: { planTier: "gold", "release date": "2024-01-01", region_code: "eu" },
  mobile: {
    android: { appPackageName: "com.example.app", sha256CertFingerprints: ["AB:CD"] },
    ios: { teamId: "TEAM1", appBundleIdentifier: "com.example.app" },
  },
  initiateLoginUri: "https://app.example.com/login",
  nativeSocialLogin: { apple: { enabled: true }, facebook: { enabled: false }, google: {} },
  fedcmLogin: { google: { isEnabled: true } },
  refreshToken: {
    rotationType: "rotating",
    expirationType: "expiring",
    leeway: 0,
    tokenLifetime: 2592000,
    infiniteTokenLifetime: false,
    idleTokenLifetime: 1296000,
    infiniteIdleTokenLifetime: false,
    policies: [{ audience: "https://api.example.com", scope: ["read:things"] }],
  },
  defaultOrganization: { organizationId: "org_1", flows: ["client_credentials"] },
  organizationUsage: "require",
  organizationRequireBehavior: "post_login_prompt",
  organizationDiscoveryMethods: ["email", "organization_name"],
  clientAuthenticationMethods: {
    privateKeyJwt: { credentials: [{ id: "cred_1" }] },
    tlsClientAuth: { credentials: [{ id: "cred_2" }] },
    selfSignedTlsClientAuth: { credentials: [] },
  },
  requirePushedAuthorizationRequests: true,
  requireProofOfPossession: false,
  signedRequestObject: { required: true, credentials: [{ id: "cred_3" }] },
  tokenVaultPrivilegedAccess: { credentials: [{ id: "cred_4" }], ipAllowlist: ["10.0.0.0/8"] },
  complianceLevel: "fapi2_sp_pkj_mtls",
  skipNonVerifiableCallbackUriConfirmationPrompt: false,
  tokenExchange: { allowAnyProfileOfType: ["custom_authentication"] },
  parRequestExpiry: 60,
  expressConfiguration: {
    initiateLoginUriTemplate: "https://{domain}/login",
    userAttributeProfileId: "uap_1",
    connectionProfileId: "cp_1",
    enableClient: true,
    enableOrganization: false,
    exampleOinClientId: "oin_1",
    adminLoginDomain: "admin.example.com",
    linkedClients: [{ clientId: "linked_1" }],
    oinSubmissionId: "sub_1",
  },
  myOrganizationConfiguration: {
    allowedStrategies: ["oidc"],
    connectionDeletionBehavior: "allow",
    connectionProfileId: "cp_2",
    userAttributeProfileId: "uap_2",
    invitationLandingClientId: "client_3",
  },
  asyncApprovalNotificationChannels: ["guardian-push", "email"],
  thirdPartySecurityMode: "strict",
  redirectionPolicy: "open_redirect_protection",
} satisfies ClientSettingsInputs;

/** {@link everyField} as the API spells it, written out by hand from the spec. */
const everyFieldOnTheWire = {
  name: "Web app",
  description: "The web front end",
  client_secret: "s3cr3t",
  logo_uri: "https://cdn.example.com/logo.png",
  callbacks: ["https://app.example.com/callback", "com.example.app://callback"],
  oidc_logout: {
    backchannel_logout_urls: ["https://app.example.com/bcl"],
    backchannel_logout_initiators: { selected_initiators: ["rp-logout", "idp-logout"] },
    backchannel_logout_session_metadata: { include: true },
  },
  oidc_backchannel_logout: { backchannel_logout_urls: ["https://app.example.com/old-bcl"] },
  session_transfer: {
    can_create_session_transfer_token: true,
    enforce_cascade_revocation: true,
    allowed_authentication_methods: ["cookie", "query"],
    enforce_device_binding: "ip",
    allow_refresh_token: false,
    enforce_online_refresh_tokens: true,
    delegation: { allow_delegated_access: true, enforce_device_binding: "asn" },
  },
  allowed_origins: ["https://*.example.com"],
  web_origins: ["https://app.example.com"],
  grant_types: ["authorization_code", "refresh_token"],
  client_aliases: ["urn:example:sp"],
  allowed_clients: ["otherClient"],
  allowed_logout_urls: ["https://app.example.com/bye"],
  jwt_configuration: {
    lifetime_in_seconds: 36000,
    secret_encoded: false,
    scopes: { "read:users": { actions: ["read"] }, camelScope: {} },
    alg: "RS256",
  },
  encryption_key: { pub: "pub", cert: "cert", subject: "CN=app" },
  sso: false,
  cross_origin_authentication: true,
  cross_origin_loc: "https://app.example.com/verify",
  sso_disabled: false,
  custom_login_page_on: true,
  token_endpoint_auth_method: "client_secret_post",
  is_token_endpoint_ip_header_trusted: false,
  app_type: "regular_web",
  is_first_party: true,
  oidc_conformant: true,
  custom_login_page: "<html></html>",
  custom_login_page_preview: "<html>preview</html>",
  token_quota: { client_credentials: { enforce: true, per_day: 1000, per_hour: 100 } },
  form_template: "<form></form>",
  addons: everyField.addons,
  client_metadata: { planTier: "gold", "release date": "2024-01-01", region_code: "eu" },
  mobile: {
    android: { app_package_name: "com.example.app", sha256_cert_fingerprints: ["AB:CD"] },
    ios: { team_id: "TEAM1", app_bundle_identifier: "com.example.app" },
  },
  initiate_login_uri: "https://app.example.com/login",
  native_social_login: { apple: { enabled: true }, facebook: { enabled: false }, google: {} },
  fedcm_login: { google: { is_enabled: true } },
  refresh_token: {
    rotation_type: "rotating",
    expiration_type: "expiring",
    leeway: 0,
    token_lifetime: 2592000,
    infinite_token_lifetime: false,
    idle_token_lifetime: 1296000,
    infinite_idle_token_lifetime: false,
    policies: [{ audience: "https://api.example.com", scope: ["read:things"] }],
  },
  default_organization: { organization_id: "org_1", flows: ["client_credentials"] },
  organization_usage: "require",
  organization_require_behavior: "post_login_prompt",
  organization_discovery_methods: ["email", "organization_name"],
  client_authentication_methods: {
    private_key_jwt: { credentials: [{ id: "cred_1" }] },
    tls_client_auth: { credentials: [{ id: "cred_2" }] },
    self_signed_tls_client_auth: { credentials: [] },
  },
  require_pushed_authorization_requests: true,
  require_proof_of_possession: false,
  signed_request_object: { required: true, credentials: [{ id: "cred_3" }] },
  token_vault_privileged_access: { credentials: [{ id: "cred_4" }], ip_allowlist: ["10.0.0.0/8"] },
  compliance_level: "fapi2_sp_pkj_mtls",
  skip_non_verifiable_callback_uri_confirmation_prompt: false,
  token_exchange: { allow_any_profile_of_type: ["custom_authentication"] },
  par_request_expiry: 60,
  express_configuration: {
    initiate_login_uri_template: "https://{domain}/login",
    user_attribute_profile_id: "uap_1",
    connection_profile_id: "cp_1",
    enable_client: true,
    enable_organization: false,
    example_oin_client_id: "oin_1",
    admin_login_domain: "admin.example.com",
    linked_clients: [{ client_id: "linked_1" }],
    oin_submission_id: "sub_1",
  },
  my_organization_configuration: {
    allowed_strategies: ["oidc"],
    connection_deletion_behavior: "allow",
    connection_profile_id: "cp_2",
    user_attribute_profile_id: "uap_2",
    invitation_landing_client_id: "client_3",
  },
  async_approval_notification_channels: ["guardian-push", "email"],
  third_party_security_mode: "strict",
  redirection_policy: "open_redirect_protection",
};

const { clientId: _clientId, ...everyFieldWithoutId } = everyField;

type Node = { readonly [keyword: string]: unknown };

/** Every property name declared in a schema whose keys follow the rule (not verbatim). */
function mappedPropertyNames(schema: Node, names: Set<string> = new Set()): Set<string> {
  const properties = (schema.properties ?? {}) as Record<string, Node>;
  for (const [name, member] of Object.entries(properties)) {
    if (schema["x-wire-keys"] !== "verbatim") names.add(name);
    mappedPropertyNames(member, names);
  }
  for (const keyword of ["additionalProperties", "items"]) {
    const child = schema[keyword];
    if (typeof child === "object" && child !== null) mappedPropertyNames(child as Node, names);
  }
  return names;
}

function keywordsUsed(value: unknown, found: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) for (const item of value) keywordsUsed(item, found);
  else if (typeof value === "object" && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      found.add(key);
      keywordsUsed(child, found);
    }
  }
  return found;
}

describe("the client fields", () => {
  it("are the fields of a client, in the API's order, by the naming rule", () => {
    expect(CLIENT_SETTINGS_FIELDS.map(wireName)).toEqual(SPEC_FIELDS);
  });

  it("mark clientSecret and addons as sensitive", () => {
    expect([...SENSITIVE_CLIENT_FIELDS]).toEqual(["clientSecret", "encryptionKey", "addons"]);
  });
});

describe("the naming rule", () => {
  const names = [
    ...mappedPropertyNames(clientSettingsSchema),
    ...mappedPropertyNames(pushProviderSelectionSchema),
    ...mappedPropertyNames(eventStreamDeletionSchema),
  ];

  it("finds over a hundred property names to check in the schemas", () => {
    expect(names.length).toBeGreaterThan(100);
  });

  it.each(names)("round-trips %s", (name) => {
    expect(snakeToCamel(camelToSnake(name))).toBe(name);
  });

  it("maps digits as part of a word", () => {
    expect(camelToSnake("sha256CertFingerprints")).toBe("sha256_cert_fingerprints");
    expect(snakeToCamel("sha256_cert_fingerprints")).toBe("sha256CertFingerprints");
  });
});

describe("toWire and fromWire", () => {
  it("send a client that uses every field with the spec's names", () => {
    expect(toWire("ClientSettings", everyField)).toEqual(everyFieldOnTheWire);
  });

  it("read the API's answer back into exactly the inputs", () => {
    expect(fromWire("ClientSettings", everyFieldOnTheWire)).toEqual(everyFieldWithoutId);
  });

  it("round-trip a client that uses every field", () => {
    expect(fromWire("ClientSettings", toWire("ClientSettings", everyField))).toEqual(
      everyFieldWithoutId,
    );
  });

  it("accept the client that uses every field in check", () => {
    expect(checkInputs("ClientSettings", everyField).failures).toEqual([]);
  });

  it("never rename the keys of clientMetadata", () => {
    expect(fieldToWire("clientMetadata", { planTier: "gold", region_code: "eu" })).toEqual({
      planTier: "gold",
      region_code: "eu",
    });
  });

  it("never rename the keys of jwtConfiguration.scopes", () => {
    expect(fieldToWire("jwtConfiguration", { scopes: { readUsers: {} } })).toEqual({
      scopes: { readUsers: {} },
    });
  });

  it("never rename the keys of addons.samlp.mappings", () => {
    expect(
      fieldFromWire("addons", {
        samlp: { mappings: { email_address: "x" }, lifetimeInSeconds: 1 },
      }),
    ).toEqual({ samlp: { mappings: { email_address: "x" }, lifetimeInSeconds: 1 } });
  });

  it("keep addon fields as the spec spells them", () => {
    const addons = { box: { accountName: "a", blob_read: true, lifetime_in_seconds: 5 } };
    expect(fieldToWire("addons", addons)).toEqual(addons);
  });

  it("keep the provider names of fedcmLogin while mapping their members", () => {
    expect(fieldFromWire("fedcmLogin", { google_one_tap: { is_enabled: true } })).toEqual({
      google_one_tap: { isEnabled: true },
    });
  });

  it("drop __ keys and clientId from the body", () => {
    expect(toWire("ClientSettings", { clientId: "c", __provider: "x", sso: true })).toEqual({
      sso: true,
    });
  });

  it("leave out the fields that only appear in a response", () => {
    expect(
      fromWire("ClientSettings", { client_id: "c", tenant: "t", global: false, sso: true }),
    ).toEqual({ sso: true });
  });

  it("keep members the platform added inside a declared object, named by the rule", () => {
    expect(fieldFromWire("refreshToken", { rotation_type: "rotating", new_setting: 1 })).toEqual({
      rotationType: "rotating",
      newSetting: 1,
    });
  });

  it("pass the unknown placeholder through untouched", () => {
    expect(toWire("ClientSettings", { clientId: "c", jwtConfiguration: UNKNOWN })).toEqual({
      jwt_configuration: UNKNOWN,
    });
  });

  it("keep null values", () => {
    expect(toWire("ClientSettings", { clientId: "c", refreshToken: null })).toEqual({
      refresh_token: null,
    });
  });

  it("map the push provider selection and the event stream id by the same rule", () => {
    expect(toWire("PushProviderSelection", { provider: "sns", __provider: "x" })).toEqual({
      provider: "sns",
    });
    expect(fromWire("EventStreamDeletion", { event_stream_id: "x" })).toEqual({
      eventStreamId: "x",
    });
  });
});

describe("wireName", () => {
  it.each([
    ["oidcConformant", "oidc_conformant"],
    ["organizationRequireBehavior", "organization_require_behavior"],
    [
      "skipNonVerifiableCallbackUriConfirmationPrompt",
      "skip_non_verifiable_callback_uri_confirmation_prompt",
    ],
    ["sso", "sso"],
  ] as const)("maps %s to %s", (field, wire) => {
    expect(wireName(field)).toBe(wire);
  });
});

describe("the schemas", () => {
  it("hold no default keyword anywhere, which the closure serializer cannot carry", () => {
    for (const schema of [
      clientSettingsSchema,
      pushProviderSelectionSchema,
      eventStreamDeletionSchema,
    ]) {
      expect(keywordsUsed(schema).has("default")).toBe(false);
    }
  });

  it("are plain data that survive a JSON round trip", () => {
    expect(JSON.parse(JSON.stringify(clientSettingsSchema))).toEqual(clientSettingsSchema);
  });

  it("derive a wire schema for the client update without client_id and with every field", () => {
    const properties = wireSchema("clientUpdate").properties as Record<string, unknown>;
    expect(Object.keys(properties)).toEqual(SPEC_FIELDS);
  });
});

describe("validateWire", () => {
  it("accepts a client update that uses every field", () => {
    expect(validateWire("clientUpdate", everyFieldOnTheWire)).toEqual([]);
  });

  it("reports paths in the wire spelling", () => {
    expect(
      validateWire("clientUpdate", {
        jwt_configuration: { lifetime_in_seconds: "1h" },
        callbacks: ["https://a.example.com", "https://b.example.com", "nope"],
      }),
    ).toEqual([
      {
        path: "callbacks[2]",
        reason:
          'must be an absolute URL such as https://app.example.com/callback or com.example.app://callback ("*" allowed in a subdomain) (got "nope")',
      },
      // A PATCH takes null for any member, as the platform does (docs/design/local-tenant.md).
      {
        path: "jwt_configuration.lifetime_in_seconds",
        reason: "must be an integer or null (got string)",
      },
    ]);
  });

  it("takes null for a member at any depth of a client PATCH", () => {
    expect(
      validateWire("clientUpdate", {
        token_endpoint_auth_method: null,
        addons: null,
        session_transfer: { delegation: null },
        mobile: { ios: { team_id: null } },
      }),
    ).toEqual([]);
  });

  it("suggests wire names for unknown properties", () => {
    expect(validateWire("clientUpdate", { oidcConformant: true })).toEqual([
      {
        path: "oidcConformant",
        reason: 'is not a known property; did you mean "oidc_conformant"?',
      },
    ]);
  });

  it("rejects client_id in the body, since it travels in the path", () => {
    expect(validateWire("clientUpdate", { client_id: "c" })).toEqual([
      { path: "client_id", reason: "is not a known property" },
    ]);
  });

  it("accepts null values in client_metadata, which remove keys", () => {
    expect(validateWire("clientUpdate", { client_metadata: { plan: null, tier: "gold" } })).toEqual(
      [],
    );
  });

  it("still limits client_metadata values to strings of at most 255 characters", () => {
    expect(validateWire("clientUpdate", { client_metadata: { plan: "v".repeat(256) } })).toEqual([
      { path: "client_metadata.plan", reason: "must be at most 255 characters (got 256)" },
    ]);
  });

  it("applies the post_login_prompt rule when the body holds both fields", () => {
    expect(
      validateWire("clientUpdate", {
        organization_require_behavior: "post_login_prompt",
        oidc_conformant: false,
      }),
    ).toEqual([
      {
        path: "organization_require_behavior",
        reason: '"post_login_prompt" requires oidc_conformant to be true',
      },
    ]);
  });

  it("rejects a body that is not an object at the root", () => {
    expect(validateWire("clientUpdate", [])).toEqual([
      { path: "", reason: "must be an object (got array)" },
    ]);
  });

  it("validates the push provider selection body", () => {
    expect(validateWire("pushProviderSelection", { provider: "apns", extra: 1 })).toEqual([
      { path: "extra", reason: "is not a known property" },
      { path: "provider", reason: 'must be one of "guardian", "sns", "direct" (got "apns")' },
    ]);
  });

  it("requires the provider in the push provider selection body", () => {
    expect(validateWire("pushProviderSelection", {})).toEqual([
      { path: "provider", reason: "is required" },
    ]);
  });

  it("validates an event stream id with the root path", () => {
    expect(validateWire("eventStreamId", "est_0123456789abcdefghijk")).toEqual([
      { path: "", reason: "must be exactly 26 characters (got 25)" },
    ]);
  });

  it("accepts an event stream id of 26 characters", () => {
    expect(validateWire("eventStreamId", "est_0123456789abcdefghijkl")).toEqual([]);
  });

  it("never echoes a client secret", () => {
    expect(validateWire("clientUpdate", { client_secret: "" })).toEqual([
      { path: "client_secret", reason: "must be at least 1 character" },
    ]);
  });
});
