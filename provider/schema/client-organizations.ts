/**
 * The nested shapes of a client's organizations (docs/design/platform.md, "Client fields"): the
 * default organization, the integration network's express configuration and the My Organization
 * configuration, written in the user's camelCase and closed like the other nested shapes
 * (`client-nested.ts`).
 *
 * @module
 */

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
