/**
 * What a seed gets where it leaves something out (docs/design/local-tenant.md "Seed file format"): the
 * tenant's name and push provider, a fresh secret for each confidential client, and the two
 * machine-to-machine clients whose credentials are handed out, with their scopes.
 */

import { newClientSecret } from "./generated.js";
import { SECRET_PLACEHOLDER, type SeedClient } from "./seed-format.js";
import type { PushProvider } from "./store.js";

/** The tenant's name when a seed gives none, shown in each client's `tenant` field. */
export const DEFAULT_TENANT = "local-tenant";

/**
 * The push provider selected when a seed names none: the platform's own push service, one of the
 * three selections (docs/design/platform.md, "Push providers").
 */
export const DEFAULT_PUSH_PROVIDER: PushProvider = "guardian";

/** Every scope the routes of this server check (docs/design/platform.md). */
export const ADMIN_SCOPES: readonly string[] = [
  "read:clients",
  "update:clients",
  "update:client_keys",
  "read:client_keys",
  "read:guardian_factors",
  "update:guardian_factors",
  "read:event_streams",
  "delete:event_streams",
];

/** The scopes of the read-only machine-to-machine client, which tests use to provoke 403s. */
export const READ_ONLY_SCOPES: readonly string[] = [
  "read:clients",
  "read:guardian_factors",
  "read:event_streams",
];

/** The two clients whose credentials a tenant hands out: the seed member naming each. */
export type CredentialRole = "admin" | "readOnly";

/**
 * The name and scopes of the client added for each {@link CredentialRole} a seed leaves out; the
 * default seed names its own clients the same way.
 */
export const CREDENTIAL_CLIENTS: Record<
  CredentialRole,
  { name: string; scopes: readonly string[] }
> = {
  admin: { name: "Tenant API admin (seeded)", scopes: ADMIN_SCOPES },
  readOnly: { name: "Tenant API read-only (seeded)", scopes: READ_ONLY_SCOPES },
};

/**
 * A machine-to-machine client that calls the management API with a secret: what the tenant adds
 * for a {@link CredentialRole} that a seed leaves out (`clientId` undefined: generated).
 */
export function machineClient(clientId: string | undefined, name: string): SeedClient {
  return {
    client_id: clientId,
    name,
    description: "Machine-to-machine application that calls the management API",
    app_type: "non_interactive",
    is_first_party: true,
    oidc_conformant: true,
    grant_types: ["client_credentials"],
    token_endpoint_auth_method: "client_secret_post",
    custom_login_page_on: true,
  };
}

/** Whether a client authenticates with a secret, so the seed must give it one. */
function isConfidential(client: SeedClient): boolean {
  return (
    client.app_type === "non_interactive" ||
    (client.token_endpoint_auth_method !== undefined &&
      client.token_endpoint_auth_method !== null &&
      client.token_endpoint_auth_method !== "none")
  );
}

/**
 * A seeded client with the secret it starts with: a confidential client without one, or with the
 * snapshot's {@link SECRET_PLACEHOLDER}, gets a fresh one, since a seed never holds a live secret.
 */
export function withSeedSecret(seedClient: SeedClient): SeedClient {
  const client: SeedClient = { ...seedClient };
  if (client.client_secret === SECRET_PLACEHOLDER) delete client.client_secret;
  if (client.client_secret === undefined && isConfidential(client)) {
    client.client_secret = newClientSecret();
  }
  return client;
}
