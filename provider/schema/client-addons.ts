/**
 * The `addons` object of a client. Addon member names and their fields are spelled exactly as the
 * platform spells them (`sso_integration`, `accountName`, `blob_read`,
 * `lifetime_in_seconds`, and `lifetimeInSeconds` inside `samlp`), by the user and on the wire, so
 * every object of this subtree is marked `"x-wire-keys": "verbatim"`.
 *
 * @module
 */

const verbatim = "verbatim";
const emptyAddon = {
  type: "object",
  "x-wire-keys": verbatim,
  properties: {},
  additionalProperties: false,
} as const;

/**
 * The fields of every addon member named for a third-party product, with their types: the union of
 * addon field sets the platform documents (strings unless a type is given). The product names
 * themselves are not documented (docs/design/platform.md, "Client fields"), so any member other than `samlp`, `wsfed`, `oag` and `sso_integration` must be an
 * object made of these fields.
 */
const productAddonSchema = {
  type: "object",
  description:
    "An addon named for a third-party product: its fields must come from the platform's addon field sets.",
  "x-wire-keys": verbatim,
  properties: {
    principal: { type: "string" },
    role: { type: "string" },
    lifetime_in_seconds: { type: "integer" },
    accountName: { type: "string" },
    storageAccessKey: { type: "string", "x-sensitive": true },
    containerName: { type: "string" },
    blobName: { type: "string" },
    expiration: { type: "integer" },
    signedIdentifier: { type: "string" },
    blob_read: { type: "boolean" },
    blob_write: { type: "boolean" },
    blob_delete: { type: "boolean" },
    container_read: { type: "boolean" },
    container_write: { type: "boolean" },
    container_delete: { type: "boolean" },
    container_list: { type: "boolean" },
    namespace: { type: "string" },
    sasKeyName: { type: "string" },
    sasKey: { type: "string", "x-sensitive": true },
    entityPath: { type: "string" },
    url: { type: "string" },
    team: { type: "string" },
    org_slug: { type: "string" },
    base_url: { type: "string" },
    domain: { type: "string" },
    secret: { type: "string", "x-sensitive": true },
    private_key_id: { type: "string" },
    private_key: { type: "string", "x-sensitive": true },
    client_email: { type: "string" },
    account: { type: "string" },
    connection: { type: "string" },
    entity_id: { type: "string" },
    clientid: { type: "string" },
    communityName: { type: "string" },
    community_url_section: { type: "string" },
    providerId: { type: "string" },
    keyId: { type: "string" },
    privateKey: { type: "string", "x-sensitive": true },
    usernameAttribute: { type: "string" },
    tokenEndpointUrl: { type: "string" },
    scope: { type: "string" },
    servicePassword: { type: "string", "x-sensitive": true },
    nameIdentifierFormat: { type: "string" },
    external_url: { type: "array", items: { type: "string" } },
    acsurl: { type: "string" },
    masterkey: { type: "string", "x-sensitive": true },
  },
  additionalProperties: false,
} as const;

/** The `samlp` addon: SAML2 web app settings. */
const samlpAddonSchema = {
  type: "object",
  description: "SAML2 web app addon.",
  "x-wire-keys": verbatim,
  "x-patch": "replace",
  properties: {
    mappings: {
      type: "object",
      description: "Free-form claim mappings; keys are sent exactly as written.",
      "x-wire-keys": verbatim,
      "x-patch": "replace",
    },
    audience: { type: "string" },
    recipient: { type: "string" },
    createUpnClaim: { type: "boolean" },
    mapUnknownClaimsAsIs: { type: "boolean" },
    passthroughClaimsWithNoMapping: { type: "boolean" },
    mapIdentities: { type: "boolean" },
    signResponse: { type: "boolean" },
    signatureAlgorithm: { type: "string" },
    digestAlgorithm: { type: "string" },
    issuer: { type: "string" },
    destination: { type: "string" },
    lifetimeInSeconds: { type: "integer" },
    nameIdentifierFormat: { type: "string" },
    nameIdentifierProbes: { type: "array", items: { type: "string" } },
    authnContextClassRef: { type: "string" },
  },
  additionalProperties: false,
} as const;

/** `addons`: one optional member per addon kind; the values are sensitive (keys, secrets). */
export const addonsSchema = {
  type: "object",
  description:
    "Addons enabled for the client and their settings, spelled exactly as the API spells them. " +
    "Sensitive: values are never printed.",
  "x-wire-keys": verbatim,
  "x-sensitive": true,
  properties: {
    samlp: samlpAddonSchema,
    wsfed: { ...emptyAddon, description: "WS-Federation addon; it has no fields." },
    oag: { ...emptyAddon, description: "OAG addon; it has no fields." },
    sso_integration: {
      type: "object",
      description: "SSO integration addon.",
      "x-wire-keys": verbatim,
      properties: {
        name: { type: "string" },
        version: { type: "string" },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: productAddonSchema,
} as const;
