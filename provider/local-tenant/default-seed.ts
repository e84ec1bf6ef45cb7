/**
 * The tenant the local tenant API starts with when no seed is given (docs/design/local-tenant.md "Seed
 * file format"): data only, with fixed ids so tests can name the client they mean.
 */

import { CREDENTIAL_CLIENTS, machineClient } from "./seed-defaults.js";
import type { TenantSeed } from "./seed-format.js";

/** The fixed ids of the default seed, so tests can name the client they mean. */
export const DEFAULT_SEED_IDS = {
  /** A first-party regular web application, not OIDC conformant. */
  regularWeb: "OOhOHam90WKZTIoUaAYPZzF1f0Wlnfa1",
  /** A single-page application, OIDC conformant. */
  spa: "T4qndmP50BA6aztVxtRVWGxCwFgWDETX",
  /** A third-party client with `third_party_security_mode: "strict"`. */
  strictThirdParty: "GYbdYoorpmT36DCgXSvFh0bSV7shxf65",
  /** The machine-to-machine client granted every scope. */
  admin: "1tr6DRqvs3cJOBWmQlSZxslV6kmpkixc",
  /** The machine-to-machine client granted read scopes only. */
  readOnly: "MNrMcw3g0NtAWxQ8mBpWPMCNFYrHfifU",
  /** The webhook event stream. */
  webhookStream: "est_O84nSDdMeE4qFON6OlztEs",
  /** The EventBridge event stream. */
  eventBridgeStream: "est_xdvcIfQlk0R2Hlls2DfZCl",
} as const;

/** The default tenant: three applications, two machine-to-machine clients, two event streams. */
export const DEFAULT_SEED: TenantSeed = {
  tenant: "local-tenant",
  pushProvider: "guardian",
  clients: [
    {
      client_id: DEFAULT_SEED_IDS.regularWeb,
      name: "Customer Portal",
      description: "Server-rendered customer portal",
      app_type: "regular_web",
      is_first_party: true,
      oidc_conformant: false,
      callbacks: ["https://portal.example.com/callback", "http://localhost:3000/callback"],
      allowed_logout_urls: ["https://portal.example.com/"],
      web_origins: ["https://portal.example.com"],
      grant_types: ["authorization_code", "refresh_token", "implicit"],
      token_endpoint_auth_method: "client_secret_post",
      client_metadata: { team: "identity", tier: "gold" },
      logo_uri: "",
      initiate_login_uri: "https://portal.example.com/login",
    },
    {
      client_id: DEFAULT_SEED_IDS.spa,
      name: "Dashboard SPA",
      description: "Single-page dashboard",
      app_type: "spa",
      is_first_party: true,
      oidc_conformant: true,
      callbacks: ["https://dashboard.example.com/callback"],
      allowed_origins: ["https://dashboard.example.com"],
      web_origins: ["https://dashboard.example.com"],
      allowed_logout_urls: ["https://dashboard.example.com/"],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "none",
      cross_origin_authentication: true,
      refresh_token: {
        rotation_type: "rotating",
        expiration_type: "expiring",
        leeway: 0,
        token_lifetime: 2592000,
        infinite_token_lifetime: false,
        idle_token_lifetime: 1296000,
        infinite_idle_token_lifetime: false,
      },
    },
    {
      client_id: DEFAULT_SEED_IDS.strictThirdParty,
      name: "Partner Integration",
      description: "Third-party partner application",
      app_type: "regular_web",
      is_first_party: false,
      oidc_conformant: true,
      third_party_security_mode: "strict",
      redirection_policy: "open_redirect_protection",
      callbacks: ["https://partner.example.net/oauth/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "client_secret_basic",
    },
    machineClient(DEFAULT_SEED_IDS.admin, CREDENTIAL_CLIENTS.admin.name),
    machineClient(DEFAULT_SEED_IDS.readOnly, CREDENTIAL_CLIENTS.readOnly.name),
  ],
  eventStreams: [
    {
      id: DEFAULT_SEED_IDS.webhookStream,
      name: "audit-webhook",
      status: "enabled",
      subscriptions: [{ event_type: "user.created" }, { event_type: "user.deleted" }],
      destination: {
        type: "webhook",
        configuration: {
          webhook_endpoint: "https://hooks.example.com/tenant-events",
          webhook_authorization: { method: "bearer" },
        },
      },
      created_at: "2025-01-15T09:30:00.000Z",
      updated_at: "2025-01-15T09:30:00.000Z",
    },
    {
      id: DEFAULT_SEED_IDS.eventBridgeStream,
      name: "analytics-eventbridge",
      status: "enabled",
      subscriptions: [{ event_type: "user.updated" }],
      destination: {
        type: "eventbridge",
        configuration: { aws_account_id: "123456789012", aws_region: "us-east-1" },
      },
      created_at: "2025-02-03T14:05:00.000Z",
      updated_at: "2025-02-03T14:05:00.000Z",
    },
  ],
  grants: [
    { client_id: DEFAULT_SEED_IDS.admin, scope: [...CREDENTIAL_CLIENTS.admin.scopes] },
    { client_id: DEFAULT_SEED_IDS.readOnly, scope: [...CREDENTIAL_CLIENTS.readOnly.scopes] },
  ],
  admin: DEFAULT_SEED_IDS.admin,
  readOnly: DEFAULT_SEED_IDS.readOnly,
};
