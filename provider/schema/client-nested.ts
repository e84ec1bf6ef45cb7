/**
 * The nested object shapes of a client (docs/platform.md, "Client fields"), written in the user's
 * camelCase. Each shape is
 * closed (`additionalProperties: false`) so that a misspelt member fails with a suggestion; all
 * members are optional, as on the platform. Arrays whose item type the platform leaves open accept any
 * items. Objects marked `"x-wire-keys": "verbatim"` keep their own keys on the wire (see
 * `wire.ts`); their member schemas are mapped as usual.
 *
 * @module
 */

/** `session_transfer`: native-to-web single sign-on. */
export const sessionTransferSchema = {
  type: ["object", "null"],
  description: "Native-to-web single sign-on configuration, or null.",
  properties: {
    canCreateSessionTransferToken: { type: "boolean" },
    enforceCascadeRevocation: { type: "boolean" },
    allowedAuthenticationMethods: { type: "array" },
    enforceDeviceBinding: { type: "string" },
    allowRefreshToken: { type: "boolean" },
    enforceOnlineRefreshTokens: { type: "boolean" },
    delegation: {
      type: "object",
      properties: {
        allowDelegatedAccess: { type: "boolean" },
        enforceDeviceBinding: { type: "string" },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

/** `oidc_logout`: back-channel logout. */
export const oidcLogoutSchema = {
  type: "object",
  description: "Back-channel logout configuration.",
  properties: {
    backchannelLogoutUrls: { type: "array", items: { type: "string" } },
    backchannelLogoutInitiators: {
      type: "object",
      properties: { selectedInitiators: { type: "array" } },
      additionalProperties: false,
    },
    backchannelLogoutSessionMetadata: {
      type: "object",
      properties: { include: { type: "boolean" } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

/**
 * `oidc_backchannel_logout`: deprecated in favour of `oidc_logout`. The platform does not show its
 * members, so any object is accepted and its keys are sent exactly as written.
 */
export const oidcBackchannelLogoutSchema = {
  type: "object",
  description:
    "Deprecated: use oidcLogout. Members are not specified; keys are sent exactly as written.",
  "x-wire-keys": "verbatim",
} as const;

/** `jwt_configuration`: how JWTs are created for the client. */
export const jwtConfigurationSchema = {
  type: "object",
  description: "Settings for how JWTs are created.",
  properties: {
    lifetimeInSeconds: { type: "integer" },
    secretEncoded: { type: "boolean" },
    scopes: {
      type: "object",
      description: "Free-form scopes map; keys are sent exactly as written.",
      "x-wire-keys": "verbatim",
    },
    alg: { type: "string" },
  },
  additionalProperties: false,
} as const;

/** `mobile`: native mobile app configuration. */
export const mobileSchema = {
  type: "object",
  description: "Native mobile app configuration.",
  properties: {
    android: {
      type: "object",
      properties: {
        appPackageName: { type: "string" },
        sha256CertFingerprints: { type: "array", items: { type: "string" } },
      },
      additionalProperties: false,
    },
    ios: {
      type: "object",
      properties: {
        teamId: { type: "string" },
        appBundleIdentifier: { type: "string" },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

/**
 * `native_social_login`: one member per social identity provider. The platform does not name the
 * providers, so member names are free and sent as written; each member is `{ enabled }`.
 */
export const nativeSocialLoginSchema = {
  type: ["object", "null"],
  description:
    "Native social settings per identity provider (member names sent as written), or null. " +
    "enabled defaults to false.",
  "x-wire-keys": "verbatim",
  additionalProperties: {
    type: "object",
    properties: { enabled: { type: "boolean" } },
    additionalProperties: false,
  },
} as const;

/**
 * `fedcm_login`: federated credential management login, one member named for an identity provider
 * (sent as written), each `{ isEnabled }`.
 */
export const fedcmLoginSchema = {
  type: ["object", "null"],
  description:
    "FedCM login settings per identity provider (member names sent as written), or null. " +
    "isEnabled defaults to false.",
  "x-wire-keys": "verbatim",
  additionalProperties: {
    type: "object",
    properties: { isEnabled: { type: "boolean" } },
    additionalProperties: false,
  },
} as const;

/** `refresh_token`: refresh token configuration. */
export const refreshTokenSchema = {
  type: ["object", "null"],
  description: "Refresh token configuration, or null.",
  properties: {
    rotationType: { type: "string" },
    expirationType: { type: "string" },
    leeway: { type: "integer" },
    tokenLifetime: { type: "integer" },
    infiniteTokenLifetime: { type: "boolean" },
    idleTokenLifetime: { type: "integer" },
    infiniteIdleTokenLifetime: { type: "boolean" },
    policies: {
      type: "array",
      items: {
        type: "object",
        properties: {
          audience: { type: "string" },
          scope: { type: "array", items: { type: "string" } },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
} as const;

/** `default_organization`: the default organization and the flows it applies to. */
export const defaultOrganizationSchema = {
  type: ["object", "null"],
  description: "Default organization identifier and flows, or null.",
  properties: {
    organizationId: { type: "string" },
    flows: { type: "array", items: { type: "string" } },
  },
  additionalProperties: false,
} as const;

/** `token_exchange` (GA). */
export const tokenExchangeSchema = {
  type: ["object", "null"],
  description: "Token exchange configuration, or null.",
  properties: {
    allowAnyProfileOfType: { type: "array" },
  },
  additionalProperties: false,
} as const;

/** `token_quota` (EA). */
export const tokenQuotaSchema = {
  type: ["object", "null"],
  description: "Token quota (early access), or null.",
  properties: {
    clientCredentials: {
      type: "object",
      properties: {
        enforce: { type: "boolean" },
        perDay: { type: "integer" },
        perHour: { type: "integer" },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

/** `express_configuration`: the integration-network express configuration feature. */
export const expressConfigurationSchema = {
  type: ["object", "null"],
  description: "Express configuration for the integration network, or null.",
  properties: {
    initiateLoginUriTemplate: { type: "string" },
    userAttributeProfileId: { type: "string" },
    connectionProfileId: { type: "string" },
    enableClient: { type: "boolean" },
    enableOrganization: { type: "boolean" },
    exampleOinClientId: { type: "string" },
    adminLoginDomain: { type: "string" },
    linkedClients: {
      type: "array",
      items: {
        type: "object",
        properties: { clientId: { type: "string" } },
        additionalProperties: false,
      },
    },
    oinSubmissionId: { type: "string" },
  },
  additionalProperties: false,
} as const;

/** `my_organization_configuration` (EA). */
export const myOrganizationConfigurationSchema = {
  type: ["object", "null"],
  description: "My-organization configuration (early access), or null.",
  properties: {
    allowedStrategies: { type: "array" },
    connectionDeletionBehavior: { type: "string" },
    connectionProfileId: { type: "string" },
    userAttributeProfileId: { type: "string" },
    invitationLandingClientId: { type: "string" },
  },
  additionalProperties: false,
} as const;
