/**
 * The nested object shapes of a client (docs/design/platform.md, "Client fields"), written in the user's
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
  "x-patch": "merge",
  description: "Native-to-web single sign-on configuration, or null.",
  properties: {
    canCreateSessionTransferToken: {
      type: "boolean",
      description:
        "Whether the client may create session transfer tokens, which carry a native app's session into a web session.",
    },
    enforceCascadeRevocation: {
      type: "boolean",
      description: "Whether ending the native session also ends the web sessions made from it.",
    },
    allowedAuthenticationMethods: {
      type: "array",
      description: "The ways a session transfer token may be handed to the web application.",
    },
    enforceDeviceBinding: {
      type: "string",
      description:
        "How a web session made from a session transfer token is bound to the device the token came from.",
    },
    allowRefreshToken: {
      type: "boolean",
      description: "Whether a session made from a session transfer token may get refresh tokens.",
    },
    enforceOnlineRefreshTokens: {
      type: "boolean",
      description: "Whether refresh tokens issued in a transferred session end with that session.",
    },
    delegation: {
      type: "object",
      description: "Session transfer by delegation.",
      properties: {
        allowDelegatedAccess: {
          type: "boolean",
          description: "Whether sessions may be transferred to this client by delegation.",
        },
        enforceDeviceBinding: {
          type: "string",
          description: "How a delegated session transfer is bound to the device it came from.",
        },
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
    backchannelLogoutUrls: {
      type: "array",
      items: { type: "string" },
      description:
        "The URLs the tenant sends OIDC back-channel logout tokens to when a session of the client ends.",
    },
    backchannelLogoutInitiators: {
      type: "object",
      description: "Which events start a back-channel logout.",
      properties: {
        selectedInitiators: {
          type: "array",
          description: "The events chosen to start a back-channel logout.",
        },
      },
      additionalProperties: false,
    },
    backchannelLogoutSessionMetadata: {
      type: "object",
      description: "What of the session the logout token carries.",
      properties: {
        include: {
          type: "boolean",
          description: "Whether the logout token carries the session's metadata.",
        },
      },
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
  "x-patch": "merge",
  description: "Settings for how JWTs are created.",
  properties: {
    lifetimeInSeconds: {
      type: "integer",
      description: "How long the ID tokens issued to the client stay valid, in seconds.",
    },
    secretEncoded: {
      type: "boolean",
      description:
        "Whether the client secret is base64-encoded, for tokens signed with it (HS256).",
    },
    scopes: {
      type: "object",
      description: "Free-form scopes map; keys are sent exactly as written.",
      "x-wire-keys": "verbatim",
    },
    alg: {
      type: "string",
      description:
        "The algorithm the client's ID tokens are signed with, such as `RS256` or `HS256`.",
    },
  },
  additionalProperties: false,
} as const;

/** `mobile`: native mobile app configuration. */
export const mobileSchema = {
  type: "object",
  "x-patch": "merge",
  description: "Native mobile app configuration.",
  properties: {
    android: {
      type: "object",
      description: "The Android app (for app links).",
      properties: {
        appPackageName: { type: "string", description: "The Android app's package name." },
        sha256CertFingerprints: {
          type: "array",
          items: { type: "string" },
          description: "The SHA-256 fingerprints of the Android app's signing certificates.",
        },
      },
      additionalProperties: false,
    },
    ios: {
      type: "object",
      description: "The iOS app (for universal links).",
      properties: {
        teamId: { type: "string", description: "The Apple developer team id of the iOS app." },
        appBundleIdentifier: { type: "string", description: "The iOS app's bundle identifier." },
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
  "x-patch": "merge",
  description:
    "Native social settings per identity provider (member names sent as written), or null. " +
    "enabled defaults to false.",
  "x-wire-keys": "verbatim",
  additionalProperties: {
    type: "object",
    properties: {
      enabled: {
        type: "boolean",
        description: "Whether native social login with this identity provider is on.",
      },
    },
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
    properties: {
      isEnabled: {
        type: "boolean",
        description: "Whether FedCM login with this identity provider is on.",
      },
    },
    additionalProperties: false,
  },
} as const;

/** `refresh_token`: refresh token configuration. */
export const refreshTokenSchema = {
  type: ["object", "null"],
  description: "Refresh token configuration, or null.",
  properties: {
    rotationType: {
      type: "string",
      description:
        "`rotating` (each use exchanges the refresh token for a new one) or `non-rotating`.",
    },
    expirationType: {
      type: "string",
      description: "`expiring` (the lifetimes below apply) or `non-expiring`.",
    },
    leeway: {
      type: "integer",
      description:
        "Seconds during which a rotated refresh token may still be used, for a client that retries.",
    },
    tokenLifetime: {
      type: "integer",
      description: "The absolute lifetime of a refresh token, in seconds.",
    },
    infiniteTokenLifetime: {
      type: "boolean",
      description:
        "Whether refresh tokens have no absolute lifetime (tokenLifetime is then not used).",
    },
    idleTokenLifetime: {
      type: "integer",
      description: "Seconds a refresh token stays valid without being used.",
    },
    infiniteIdleTokenLifetime: {
      type: "boolean",
      description:
        "Whether refresh tokens never expire for lack of use (idleTokenLifetime is then not used).",
    },
    policies: {
      type: "array",
      description: "Which APIs and scopes a refresh token may be used for.",
      items: {
        type: "object",
        properties: {
          audience: {
            type: "string",
            description: "The API (audience) the policy lets a refresh token be used for.",
          },
          scope: {
            type: "array",
            items: { type: "string" },
            description: "The scopes the policy allows for that API.",
          },
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
    organizationId: {
      type: "string",
      description: "The id of the organization used when a request names none.",
    },
    flows: {
      type: "array",
      items: { type: "string" },
      description: "The flows the default organization applies to, such as `client_credentials`.",
    },
  },
  additionalProperties: false,
} as const;

/** `token_exchange` (GA). */
export const tokenExchangeSchema = {
  type: ["object", "null"],
  description: "Token exchange configuration, or null.",
  properties: {
    allowAnyProfileOfType: {
      type: "array",
      description: "The token exchange profile types the client may use, any profile of each.",
    },
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
      description: "The quota on tokens the client gets by the client credentials grant.",
      properties: {
        enforce: { type: "boolean", description: "Whether tokens beyond the quota are refused." },
        perDay: {
          type: "integer",
          description: "The most tokens the client may get by client credentials in a day.",
        },
        perHour: {
          type: "integer",
          description: "The most tokens the client may get by client credentials in an hour.",
        },
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
    initiateLoginUriTemplate: {
      type: "string",
      description:
        "The template of the URI that starts a login at the application, filled in per organization.",
    },
    userAttributeProfileId: {
      type: "string",
      description: "The id of the user attribute profile the express configuration uses.",
    },
    connectionProfileId: {
      type: "string",
      description: "The id of the connection profile the express configuration uses.",
    },
    enableClient: {
      type: "boolean",
      description: "Whether the express configuration enables the client for an organization.",
    },
    enableOrganization: {
      type: "boolean",
      description: "Whether the express configuration enables the organization.",
    },
    exampleOinClientId: {
      type: "string",
      description: "The id of the integration network's example client.",
    },
    adminLoginDomain: {
      type: "string",
      description: "The domain the application's administrators log in at.",
    },
    linkedClients: {
      type: "array",
      description: "The clients linked to this one.",
      items: {
        type: "object",
        properties: { clientId: { type: "string", description: "The id of a linked client." } },
        additionalProperties: false,
      },
    },
    oinSubmissionId: {
      type: "string",
      description: "The id of the application's integration network submission.",
    },
  },
  additionalProperties: false,
} as const;

/** `my_organization_configuration` (EA). */
export const myOrganizationConfigurationSchema = {
  type: ["object", "null"],
  description: "My-organization configuration (early access), or null.",
  properties: {
    allowedStrategies: {
      type: "array",
      description: "The connection strategies an organization's administrators may set up.",
    },
    connectionDeletionBehavior: {
      type: "string",
      description: "What deleting a connection from an organization does to the connection.",
    },
    connectionProfileId: {
      type: "string",
      description: "The id of the connection profile organizations use.",
    },
    userAttributeProfileId: {
      type: "string",
      description: "The id of the user attribute profile organizations use.",
    },
    invitationLandingClientId: {
      type: "string",
      description: "The id of the client that invitations to an organization land on.",
    },
  },
  additionalProperties: false,
} as const;
