/**
 * A tenant whose clients use every kind of field a generated program must declare exactly:
 * nested objects (three levels deep), lists of strings and of objects, free-form maps with keys
 * that are not identifiers, nullable fields holding null, add-ons with key material, a global
 * client, names that collide once slugged, and a secret and an encryption key that must never be
 * written. Shared by the generator's unit and end-to-end tests.
 */
import type { TenantSeed } from "../../provider/local-tenant/seed.js";

/** The ids of {@link RICH_SEED}'s clients. */
export const RICH_IDS = {
  mobile: "RichMobileBanking000000000000001",
  docs: "RichDocsPortalSaml00000000000002",
  docsTwin: "RichDocsPortalTwin00000000000003",
  global: "RichGlobalClient0000000000000004",
} as const;

/** Values that must never appear in a generated project. */
export const RICH_SECRETS = {
  sasKey: "sas-key-0f1e2d3c4b5a-never-printed",
  clientSecret: "docs-client-secret-never-written-0123456789abcdef0123456789abcdef",
  encryptionPub:
    "-----BEGIN PUBLIC KEY-----\nMIIBrichpublickeymaterial\n-----END PUBLIC KEY-----\n",
} as const;

export const RICH_SEED: TenantSeed = {
  tenant: "rich-tenant",
  pushProvider: "direct",
  clients: [
    {
      client_id: RICH_IDS.mobile,
      name: "Mobile Banking",
      description:
        "Native banking app for iOS and Android; session transfer to the web, refresh tokens with per-audience policies.",
      app_type: "native",
      is_first_party: true,
      oidc_conformant: true,
      callbacks: ["com.example.bank://callback", "http://localhost:8080/callback"],
      allowed_origins: ["https://*.bank.example.com"],
      web_origins: [],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "none",
      client_aliases: ["urn:example:bank"],
      allowed_clients: ["RichDocsPortalSaml00000000000002"],
      cross_origin_loc: null,
      default_organization: null,
      par_request_expiry: null,
      compliance_level: null,
      organization_usage: "allow",
      organization_discovery_methods: ["email", "organization_name"],
      async_approval_notification_channels: ["guardian-push", "email"],
      client_metadata: { owner: "mobile-team", "cost center": "cc-7", "x:tier": 'gold "plus"' },
      jwt_configuration: {
        lifetime_in_seconds: 600,
        alg: "RS256",
        scopes: { "read:accounts": { description: "Read accounts" } },
      },
      refresh_token: {
        rotation_type: "rotating",
        expiration_type: "expiring",
        token_lifetime: 86400,
        idle_token_lifetime: 43200,
        infinite_token_lifetime: false,
        infinite_idle_token_lifetime: false,
        policies: [
          { audience: "https://api.bank.example.com", scope: ["read:accounts", "transfer"] },
          { audience: "https://cards.bank.example.com", scope: [] },
        ],
      },
      mobile: {
        android: {
          app_package_name: "com.example.bank",
          sha256_cert_fingerprints: ["AB:CD:EF:01:23", "45:67:89:AB:CD"],
        },
        ios: { team_id: "ABCDE12345", app_bundle_identifier: "com.example.bank" },
      },
      native_social_login: { apple: { enabled: true }, facebook: { enabled: false } },
      session_transfer: {
        can_create_session_transfer_token: true,
        allowed_authentication_methods: ["cookie", "query"],
        enforce_device_binding: "ip",
        delegation: { allow_delegated_access: true, enforce_device_binding: "asn" },
      },
      oidc_logout: {
        backchannel_logout_urls: ["https://bank.example.com/logout"],
        backchannel_logout_initiators: { selected_initiators: ["rp-logout", "idp-logout"] },
        backchannel_logout_session_metadata: { include: true },
      },
      token_quota: { client_credentials: { enforce: true, per_day: 1000, per_hour: 100 } },
      token_exchange: { allow_any_profile_of_type: ["custom_authentication"] },
    },
    {
      client_id: RICH_IDS.docs,
      name: 'Docs "Portal"',
      description: "Documentation portal signing in with SAML",
      app_type: "regular_web",
      is_first_party: true,
      callbacks: ["https://docs.example.com/login/callback"],
      token_endpoint_auth_method: "client_secret_post",
      client_secret: RICH_SECRETS.clientSecret,
      encryption_key: { pub: RICH_SECRETS.encryptionPub, subject: "/CN=docs" },
      session_transfer: null,
      addons: {
        samlp: {
          mappings: { email: "http://schemas.example.com/claims/emailaddress", "given name": "gn" },
          audience: "urn:docs",
          signResponse: true,
          lifetimeInSeconds: 3600,
          nameIdentifierProbes: ["http://schemas.example.com/claims/emailaddress"],
        },
        wsfed: {},
        service_bus: {
          namespace: "docs-bus",
          sasKeyName: "RootManageSharedAccessKey",
          sasKey: RICH_SECRETS.sasKey,
          entityPath: "events",
          expiration: 3600,
        },
      },
      client_metadata: {},
    },
    {
      client_id: RICH_IDS.docsTwin,
      name: "Docs Portal",
      app_type: "spa",
      callbacks: ["https://docs-next.example.com/callback"],
      token_endpoint_auth_method: "none",
    },
    {
      client_id: RICH_IDS.global,
      name: "All Applications",
      global: true,
      app_type: "regular_web",
    },
  ],
};
