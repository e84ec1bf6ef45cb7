import type { FromSchema } from "json-schema-to-ts";
import { addonsSchema } from "./client-addons.js";
import {
  clientAuthenticationMethodsSchema,
  encryptionKeySchema,
  signedRequestObjectSchema,
  tokenVaultPrivilegedAccessSchema,
} from "./client-credentials.js";
import {
  fedcmLoginSchema,
  mobileSchema,
  nativeSocialLoginSchema,
  oidcBackchannelLogoutSchema,
  oidcLogoutSchema,
  sessionTransferSchema,
} from "./client-nested.js";
import {
  defaultOrganizationSchema,
  expressConfigurationSchema,
  myOrganizationConfigurationSchema,
} from "./client-organizations.js";
import {
  jwtConfigurationSchema,
  refreshTokenSchema,
  tokenExchangeSchema,
  tokenQuotaSchema,
} from "./client-tokens.js";

/**
 * The `app_type` values the platform names (docs/design/platform.md, "Client fields"). It also accepts
 * seventeen values named for third-party products, which are not documented; add them here when
 * they are known, and every
 * validator and message follows.
 */
export const APP_TYPES = [
  "native",
  "spa",
  "regular_web",
  "non_interactive",
  "resource_server",
  "express_configuration",
  "sso_integration",
  "oag",
] as const;

/**
 * The twelve `grant_types` values, with `example` standing for the platform's own name.
 *
 * @internal
 */
export const GRANT_TYPES = [
  "authorization_code",
  "implicit",
  "refresh_token",
  "client_credentials",
  "password",
  "http://example/oauth/grant-type/password-realm",
  "http://example/oauth/grant-type/mfa-oob",
  "http://example/oauth/grant-type/mfa-otp",
  "http://example/oauth/grant-type/mfa-recovery-code",
  "urn:openid:params:grant-type:ciba",
  "urn:ietf:params:oauth:grant-type:device_code",
  "urn:example:params:oauth:grant-type:token-exchange:federated-connection-access-token",
] as const;

const urlList = (description: string, format: "callback-url" | "url-with-placeholders") =>
  ({ type: "array", description, items: { type: "string", format } }) as const;

const nonEmptyStringList = (description: string) =>
  ({ type: "array", description, items: { type: "string", minLength: 1 } }) as const;

/**
 * Inputs of `ClientSettings`: `clientId` (required) plus any subset of the 55 client fields, in
 * camelCase, with every constraint the platform states (docs/design/platform.md, "Client fields" and
 * "Limits"). Defaults are stated in the descriptions only: a `default` keyword would make the
 * field required in the derived type and would crash Pulumi's closure serializer.
 *
 * Two constraints are written in a form equivalent to the platform's but giving one failure per
 * mistake: `name` is `minLength: 1` plus `^[^<>]*$` (the platform's `^[^<>]+$`), and `grantTypes`
 * items are an enum, which already excludes the empty string.
 */
export const clientSettingsSchema = {
  type: "object",
  description: "Settings of an existing client (application) of the tenant.",
  properties: {
    clientId: {
      type: "string",
      minLength: 1,
      // A lone surrogate cannot be put in a URL path: refuse it here, at preview.
      pattern: "^[^\\uD800-\\uDFFF]*$",
      "x-pattern-reason": "must be valid Unicode text (it holds a lone surrogate)",
      description: "Identifier of the client to manage; changing it replaces the resource.",
    },
    name: {
      type: "string",
      minLength: 1,
      pattern: "^[^<>]*$",
      "x-pattern-reason": 'must not contain "<" or ">"',
      description: "Name of the client; at least one character, without `<` or `>`.",
    },
    description: {
      type: "string",
      maxLength: 140,
      description: "Free-text description, at most 140 characters.",
    },
    clientSecret: {
      type: "string",
      minLength: 1,
      "x-sensitive": "the client secret",
      description: "Secret used to sign tokens for the client. Sensitive: never printed.",
    },
    logoUri: {
      type: "string",
      format: "absolute-uri-or-empty",
      description: "URL of the logo (150x150 recommended), or empty.",
    },
    callbacks: urlList("URLs valid as return targets after authentication.", "callback-url"),
    oidcLogout: oidcLogoutSchema,
    oidcBackchannelLogout: oidcBackchannelLogoutSchema,
    sessionTransfer: sessionTransferSchema,
    allowedOrigins: urlList(
      "Origins allowed to make cross-origin requests.",
      "url-with-placeholders",
    ),
    webOrigins: urlList(
      "Origins allowed for the web message response mode.",
      "url-with-placeholders",
    ),
    grantTypes: {
      type: "array",
      description: "Grant types the client may use.",
      items: { type: "string", enum: GRANT_TYPES },
    },
    clientAliases: nonEmptyStringList("Audiences for the SAML protocol."),
    allowedClients: nonEmptyStringList(
      "Clients allowed to make delegation requests; all clients when empty or absent.",
    ),
    allowedLogoutUrls: urlList("Valid redirect targets after logout.", "url-with-placeholders"),
    jwtConfiguration: jwtConfigurationSchema,
    encryptionKey: encryptionKeySchema,
    sso: {
      type: "boolean",
      description:
        "true: the platform, not the external identity provider, performs single sign-on. Default false.",
    },
    crossOriginAuthentication: {
      type: "boolean",
      description: "Whether the client may make cross-origin authentication requests.",
    },
    crossOriginLoc: {
      type: ["string", "null"],
      format: "url-or-null",
      description: "URL where cross-origin verification takes place, or null.",
    },
    ssoDisabled: { type: "boolean", description: "true disables single sign-on. Default false." },
    customLoginPageOn: { type: "boolean", description: "true uses the custom login page." },
    tokenEndpointAuthMethod: {
      type: ["string", "null"],
      enum: ["none", "client_secret_post", "client_secret_basic", null],
      description: "How the client authenticates at the token endpoint. Default `none`.",
    },
    isTokenEndpointIpHeaderTrusted: {
      type: "boolean",
      description:
        "true trusts the forwarded-for header as the end user's address on the token endpoint. Default false.",
    },
    appType: {
      type: "string",
      enum: APP_TYPES,
      description: "Type of application.",
    },
    isFirstParty: { type: "boolean", description: "Whether the client is a first-party client." },
    oidcConformant: {
      type: "boolean",
      description: "Strict OIDC conformance. Default false.",
    },
    customLoginPage: { type: "string", description: "HTML, CSS and JS of the custom login page." },
    customLoginPagePreview: {
      type: "string",
      description: "Preview content of the custom login page.",
    },
    tokenQuota: tokenQuotaSchema,
    formTemplate: { type: "string", description: "Form template for WS-Federation." },
    addons: addonsSchema,
    clientMetadata: {
      type: "object",
      description:
        "Free-form string metadata; at most 10 keys. Keys (at most 255 characters) are sent exactly " +
        "as written.",
      "x-wire-keys": "verbatim",
      "x-wire-null-values": true,
      "x-strategy": "map",
      "x-patch": "merge",
      maxProperties: 10,
      propertyNames: {
        type: "string",
        maxLength: 255,
        pattern: '^[A-Za-z0-9:,\\-+=_*?"/()<>@\\t ]*$',
        "x-pattern-reason":
          'must contain only letters, digits, spaces, tabs and the characters :,-+=_*?"/()<>@',
      },
      additionalProperties: { type: "string", maxLength: 255 },
    },
    mobile: mobileSchema,
    initiateLoginUri: {
      type: "string",
      format: "absolute-https-uri-with-placeholders-or-empty",
      description: "https URL that starts a login at the client, or empty.",
    },
    nativeSocialLogin: nativeSocialLoginSchema,
    fedcmLogin: fedcmLoginSchema,
    refreshToken: refreshTokenSchema,
    defaultOrganization: defaultOrganizationSchema,
    organizationUsage: {
      type: ["string", "null"],
      enum: ["deny", "allow", "require", null],
      description: "Whether users log in through an organization. Default `deny`.",
    },
    organizationRequireBehavior: {
      type: ["string", "null"],
      enum: ["no_prompt", "pre_login_prompt", "post_login_prompt", null],
      description:
        "How the organization is chosen when organizationUsage is `require`. Default `no_prompt`; " +
        "`post_login_prompt` requires oidcConformant to be true.",
    },
    organizationDiscoveryMethods: {
      type: ["array", "null"],
      minItems: 1,
      items: { type: "string", enum: ["email", "organization_name"] },
      description: "Methods to find the organization during `pre_login_prompt` (early access).",
    },
    clientAuthenticationMethods: clientAuthenticationMethodsSchema,
    requirePushedAuthorizationRequests: {
      type: "boolean",
      description: "Makes pushed authorization requests mandatory. Default false.",
    },
    requireProofOfPossession: {
      type: "boolean",
      description: "Makes proof-of-possession mandatory. Default false.",
    },
    signedRequestObject: signedRequestObjectSchema,
    tokenVaultPrivilegedAccess: tokenVaultPrivilegedAccessSchema,
    complianceLevel: {
      type: ["string", "null"],
      enum: [
        "none",
        "fapi1_adv_pkj_par",
        "fapi1_adv_mtls_par",
        "fapi2_sp_pkj_mtls",
        "fapi2_sp_mtls_mtls",
        null,
      ],
      description: "Compliance level; may restrict the client's capabilities.",
    },
    skipNonVerifiableCallbackUriConfirmationPrompt: {
      type: ["boolean", "null"],
      description:
        "true suppresses the confirmation prompt for non-verifiable redirect URIs; false is recommended.",
    },
    tokenExchange: tokenExchangeSchema,
    parRequestExpiry: {
      type: ["integer", "null"],
      minimum: 10,
      maximum: 600,
      description: "Seconds a pushed authorization request URI stays valid, 10 to 600.",
    },
    expressConfiguration: expressConfigurationSchema,
    myOrganizationConfiguration: myOrganizationConfigurationSchema,
    asyncApprovalNotificationChannels: {
      type: ["array", "null"],
      minItems: 1,
      items: { type: "string", enum: ["guardian-push", "email"] },
      description: "Channels used to reach the user when approval is required.",
    },
    thirdPartySecurityMode: {
      type: "string",
      enum: ["strict", "permissive"],
      description: "Set when the client is created; it can never change.",
      "x-strategy": "fixed",
    },
    redirectionPolicy: {
      type: "string",
      enum: ["allow_always", "open_redirect_protection"],
      description:
        "Whether users are sent to the callback URL on errors. Applies to strict third-party clients.",
    },
  },
  required: ["clientId"],
  additionalProperties: false,
} as const;

/** The plain (already resolved) inputs of `ClientSettings`, derived from its schema. */
export type ClientSettingsInputs = FromSchema<typeof clientSettingsSchema>;

/** The name of one of the 55 client fields, in camelCase (every input but `clientId`). */
export type ClientSettingsField = Exclude<keyof typeof clientSettingsSchema.properties, "clientId">;

/** The 55 client fields in camelCase, in the platform's order (the schema adds `clientId`). */
export const CLIENT_SETTINGS_FIELDS = Object.keys(clientSettingsSchema.properties).filter(
  (key) => key !== "clientId",
) as readonly ClientSettingsField[];

/**
 * The client fields whose values must never be printed (in a failure, a diff or a log) and that
 * Pulumi keeps secret: those annotated `"x-sensitive"` in the schema, i.e. `clientSecret`,
 * `encryptionKey` and `addons`. Typed as the whole field union so that
 * `SENSITIVE_CLIENT_FIELDS.includes(field)` accepts any field.
 */
export const SENSITIVE_CLIENT_FIELDS: readonly ClientSettingsField[] =
  CLIENT_SETTINGS_FIELDS.filter((field) => "x-sensitive" in clientSettingsSchema.properties[field]);

/**
 * What a sensitive field's annotation says is secret in it (`"x-sensitive": "the client secret"`),
 * for messages that explain why a value is left out; undefined for a field that is not sensitive
 * or whose annotation is a bare `true`.
 */
export function secretDescription(field: ClientSettingsField): string | undefined {
  const annotation = (clientSettingsSchema.properties[field] as { "x-sensitive"?: unknown })[
    "x-sensitive"
  ];
  return typeof annotation === "string" ? annotation : undefined;
}

/**
 * The names of the members annotated `"x-sensitive"` anywhere inside `schema`: the key material
 * inside `addons` (storage access keys, service bus keys, private keys, passwords, master keys),
 * which is secret while the rest of an add-on's settings is not.
 */
export function sensitiveMemberNames(schema: object): ReadonlySet<string> {
  const names = new Set<string>();
  const visit = (node: unknown): void => {
    if (typeof node !== "object" || node === null) return;
    const properties = (node as { properties?: unknown }).properties;
    if (typeof properties === "object" && properties !== null) {
      for (const [name, member] of Object.entries(properties)) {
        if (typeof member === "object" && member !== null && "x-sensitive" in member) {
          names.add(name);
        }
      }
    }
    for (const child of Object.values(node)) visit(child);
  };
  visit(schema);
  return names;
}
