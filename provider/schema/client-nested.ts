/**
 * The nested object shapes of a client's sign-in and sessions (docs/design/platform.md, "Client
 * fields": session transfer, logout, the native and mobile apps, FedCM), written in the user's
 * camelCase; its tokens' shapes are in `client-tokens.ts`, its organizations' in
 * `client-organizations.ts`. Each shape is
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
