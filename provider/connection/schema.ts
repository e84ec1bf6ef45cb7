import type { FromSchema } from "json-schema-to-ts";
import { CLIENT_ASSERTION_ALGS } from "../api/client-assertion.js";

/**
 * The `tenant` input every resource accepts: which tenant to reach and with which credentials,
 * instead of the stack config (`tenant:domain`, ...). One program can so manage several tenants
 * (docs/design/decisions.md, "Several tenants").
 *
 * The members mean what the stack config keys of the same names mean
 * (docs/installation-configuration.md, "Configuration reference").
 * Which credentials must be present (exactly one of an API token, a client id with its secret, or
 * a client id with a private key for client assertions) is a rule of the connection's parse
 * (`parse.ts`), the same for the stack config and this input. The `anyOf` below states it for the
 * TypeScript type only (its three shapes): {@link connectionSchemaToValidate}, what Ajv sees,
 * leaves it out, so the rule is judged, and worded, in one place.
 *
 * `rateLimitReserve` and `maxRequestsPerSecond` are the run's pacing budget (`budget.ts`), not
 * part of where or as whom: a change of them is an update that sends nothing.
 *
 * Members marked `"x-sensitive": true` are credentials: the resources register them as secrets,
 * and no failure echoes them. The domain, the client id and the audience are identifiers; errors
 * name them, as they do for the stack config.
 */
const tenantConnectionSchema = {
  type: "object",
  description: "The tenant this resource belongs to, and the credentials to reach it.",
  properties: {
    domain: {
      type: "string",
      description:
        "The tenant's host (`acme.tenants.example`, meaning https) or an origin; `http://` only for loopback hosts.",
    },
    apiToken: {
      type: "string",
      description: "A management API token.",
      "x-sensitive": true,
    },
    clientId: {
      type: "string",
      description: "The id of a machine-to-machine client, whose token is fetched and cached.",
    },
    clientSecret: {
      type: "string",
      description: "The secret of that client.",
      "x-sensitive": true,
    },
    clientAssertionPrivateKey: {
      type: "string",
      description:
        "The PEM private key of that client, whose public key is registered on it, to log in by private key JWT (RFC 7523) instead of a secret.",
      "x-sensitive": true,
    },
    clientAssertionSigningAlg: {
      type: "string",
      enum: CLIENT_ASSERTION_ALGS,
      description:
        "The algorithm that signs the client assertions: RS256 (default), RS384 or PS256.",
    },
    audience: {
      type: "string",
      description: "The audience to ask tokens for; default `https://{domain}/api/v2/`.",
    },
    rateLimitReserve: {
      type: "number",
      minimum: 0,
      exclusiveMaximum: 1,
      description:
        "The share of the tenant's rate limit (its bucket) never spent, left to the tenant's other callers: 0 takes everything; default 0.25.",
    },
    maxRequestsPerSecond: {
      type: "number",
      exclusiveMinimum: 0,
      description: "A ceiling on this run's own requests per second to the tenant; default none.",
    },
  },
  required: ["domain"],
  // Ajv's strict mode wants each required name declared next to it; the types are declared above.
  anyOf: [
    { properties: { apiToken: {} }, required: ["apiToken"] },
    { properties: { clientId: {}, clientSecret: {} }, required: ["clientId", "clientSecret"] },
    {
      properties: { clientId: {}, clientAssertionPrivateKey: {} },
      required: ["clientId", "clientAssertionPrivateKey"],
    },
  ],
  additionalProperties: false,
} as const;

/** The name of the input that holds the connection, on every resource. */
export const TENANT_KEY = "tenant";

/**
 * The output that records the stack config's connection a resource without a `tenant` input was
 * made or last updated with, credentials included (a secret output: `SECRET_OUTPUTS`): the engine
 * configures the provider with the current stack config only, so once the stack config names
 * another tenant this copy is all that still reaches the old one (docs/design/decisions.md, "A move of
 * the stack config's tenant", and `change.ts`).
 */
export const STACK_TENANT_KEY = "stackConfigTenant";

/**
 * A connection as the provider receives it (values resolved): `{ domain, apiToken }`,
 * `{ domain, clientId, clientSecret, audience? }` or `{ domain, clientId,
 * clientAssertionPrivateKey, clientAssertionSigningAlg?, audience? }`, derived from the schema.
 */
export type TenantConnection = FromSchema<typeof tenantConnectionSchema>;

/**
 * One member of a connection: `domain`, `apiToken`, `clientId`, `clientSecret`,
 * `clientAssertionPrivateKey`, `clientAssertionSigningAlg`, `audience`, `rateLimitReserve` or
 * `maxRequestsPerSecond`.
 */
export type ConnectionSetting = keyof typeof tenantConnectionSchema.properties;

/** The members of a connection, in the schema's order. */
export const CONNECTION_SETTINGS = Object.keys(
  tenantConnectionSchema.properties,
) as readonly ConnectionSetting[];

/**
 * The credential members (`"x-sensitive": true`): `apiToken`, `clientSecret` and
 * `clientAssertionPrivateKey`.
 */
export const SENSITIVE_CONNECTION_SETTINGS: readonly ConnectionSetting[] =
  CONNECTION_SETTINGS.filter(
    (setting) => "x-sensitive" in tenantConnectionSchema.properties[setting],
  );

/**
 * The connection's schema as `check` validates it: the members and their types, without the
 * `anyOf` of the credentials, which the parse judges (`parse.ts`).
 */
export const connectionSchemaToValidate: object = (() => {
  const { anyOf: _typeOnly, ...validated } = tenantConnectionSchema;
  return validated;
})();
