/**
 * The nested object shapes of a client that hold keys and credentials (docs/design/platform.md, "Client
 * fields"), in the user's camelCase; closed like the other nested shapes (`client-nested.ts`).
 *
 * @module
 */

const credentialList = {
  type: "array",
  description: "Credentials, each referenced by its `id`.",
  items: {
    type: "object",
    properties: {
      id: { type: "string", description: "The id of a credential registered on the client." },
    },
    additionalProperties: false,
  },
} as const;

/** `encryption_key`: the client's encryption key. */
export const encryptionKeySchema = {
  type: ["object", "null"],
  description: "The client's encryption key, or null. Sensitive: never printed.",
  "x-sensitive": "the client's key material",
  properties: {
    pub: { type: "string", description: "The public key, in PEM." },
    cert: { type: "string", description: "The certificate, in PEM." },
    subject: { type: "string", description: "The certificate's subject." },
  },
  additionalProperties: false,
} as const;

const credentialsHolder = {
  type: "object",
  description:
    "The credentials the client proves itself with by this method, each named by its id.",
  properties: { credentials: credentialList },
  additionalProperties: false,
} as const;

/** `client_authentication_methods`: credentials per authentication method. */
export const clientAuthenticationMethodsSchema = {
  type: ["object", "null"],
  description: "Client authentication methods, or null.",
  properties: {
    privateKeyJwt: credentialsHolder,
    tlsClientAuth: credentialsHolder,
    selfSignedTlsClientAuth: credentialsHolder,
  },
  additionalProperties: false,
} as const;

/** `signed_request_object`: JWT-secured authorization requests (JAR). */
export const signedRequestObjectSchema = {
  type: "object",
  "x-patch": "merge",
  description: "JWT-secured authorization request settings.",
  properties: {
    required: { type: "boolean", description: "Defaults to false." },
    credentials: credentialList,
  },
  additionalProperties: false,
} as const;

/** `token_vault_privileged_access` (EA). */
export const tokenVaultPrivilegedAccessSchema = {
  type: "object",
  description: "Token vault privileged access (early access).",
  properties: {
    credentials: credentialList,
    ipAllowlist: {
      type: "array",
      items: { type: "string" },
      description: "The IP addresses or ranges privileged access is allowed from.",
    },
  },
  additionalProperties: false,
} as const;
