/**
 * The nested shapes of a client's tokens (docs/design/platform.md, "Client fields"): how its JWTs
 * are made, its refresh tokens, token exchange and token quotas, written in the user's camelCase
 * and closed like the other nested shapes (`client-nested.ts`).
 *
 * @module
 */

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
