/**
 * The authentication API: the client credentials grant at `POST /oauth/token` (a client secret
 * or a client assertion) and the key set
 * that verifies its tokens. Errors use the OAuth 2.0 shape `{error, error_description}` (RFC 6749
 * section 5.2), as the platform's authentication API does, not the management API's shape.
 */

import type { FastifyInstance } from "fastify";
import { CLIENT_ASSERTION_TYPE } from "../api/client-assertion.js";
import { secretsEqual } from "./auth.js";
import {
  privateKeyJwtCredentialIds,
  privateKeyJwtKeys,
  verifyClientAssertion,
} from "./client-keys.js";
import type { ServerContext } from "./context.js";
import { OAuthError } from "./errors.js";
import type { TenantStore } from "./store.js";

/** Path of the token endpoint (a trailing slash, as the spec writes it, is accepted too). */
export const TOKEN_ROUTE = "/oauth/token";
/** Path of the public key set. */
export const JWKS_ROUTE = "/.well-known/jwks.json";

/** The token endpoint's successful answer (RFC 6749 section 5.1). */
export interface TokenResponse {
  /** The signed JWT. */
  access_token: string;
  /** Always `"Bearer"`. */
  token_type: "Bearer";
  /** Seconds until the token expires. */
  expires_in: number;
  /** The granted scopes, space-separated. */
  scope: string;
}

function parameter(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    throw new OAuthError(400, "invalid_request", `Parameter ${name} must be a string`);
  }
  return value;
}

/** Client credentials from HTTP Basic authentication (`client_secret_basic`), if present. */
function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const match = /^Basic +([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "");
  if (match?.[1] === undefined) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) throw new OAuthError(400, "invalid_request", "Malformed Basic credentials");
  return {
    id: decodeURIComponent(decoded.slice(0, colon)),
    secret: decodeURIComponent(decoded.slice(colon + 1)),
  };
}

/** The token request's parameters; only the client credentials grant is served. */
function tokenParameters(raw: unknown): Record<string, unknown> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new OAuthError(400, "invalid_request", "The body must be an object of parameters");
  }
  const body = raw as Record<string, unknown>;
  const grantType = parameter(body, "grant_type");
  if (grantType === undefined) {
    throw new OAuthError(400, "invalid_request", "Missing required parameter: grant_type");
  }
  if (grantType !== "client_credentials") {
    throw new OAuthError(400, "unsupported_grant_type", `Unsupported grant type: ${grantType}`);
  }
  return body;
}

/**
 * The id of the client the request authenticates, by one method only: HTTP Basic, the body's
 * `client_id` and `client_secret`, or a client assertion (`client_assertion_type` and
 * `client_assertion`, RFC 7523) for a client whose `private_key_jwt` names keys; such a client
 * cannot use its secret, as on the platform. The client must be allowed the client credentials
 * grant.
 */
async function authenticatedClient(
  context: ServerContext,
  authorization: string | undefined,
  body: Record<string, unknown>,
): Promise<string> {
  const { store } = context;
  const basic = basicCredentials(authorization);
  const bodyId = parameter(body, "client_id");
  const bodySecret = parameter(body, "client_secret");
  const assertionType = parameter(body, "client_assertion_type");
  const assertion = parameter(body, "client_assertion");
  const byAssertion = assertionType !== undefined || assertion !== undefined;
  if (
    (basic !== undefined && (bodyId !== undefined || bodySecret !== undefined || byAssertion)) ||
    (bodySecret !== undefined && byAssertion)
  ) {
    throw new OAuthError(400, "invalid_request", "Use only one client authentication method");
  }
  if (byAssertion) return assertedClient(context, bodyId, assertionType, assertion);
  const clientId = basic?.id ?? bodyId;
  const secret = basic?.secret ?? bodySecret;
  if (clientId === undefined) {
    throw new OAuthError(400, "invalid_request", "Missing required parameter: client_id");
  }
  const client = store.getClient(clientId);
  if (client !== undefined && privateKeyJwtCredentialIds(client).length > 0) {
    throw new OAuthError(
      401,
      "invalid_client",
      "Client authentication with a client secret is not allowed: the client authenticates with private_key_jwt",
    );
  }
  const expected = client?.client_secret;
  if (secret === undefined || typeof expected !== "string" || !secretsEqual(secret, expected)) {
    throw new OAuthError(401, "access_denied", "Unauthorized");
  }
  return grantedClient(store, clientId);
}

/** The client a client assertion proves, verified against its registered keys. */
async function assertedClient(
  context: ServerContext,
  bodyId: string | undefined,
  assertionType: string | undefined,
  assertion: string | undefined,
): Promise<string> {
  if (assertionType !== CLIENT_ASSERTION_TYPE) {
    throw new OAuthError(
      400,
      "invalid_request",
      `client_assertion_type must be ${CLIENT_ASSERTION_TYPE}`,
    );
  }
  if (assertion === undefined) {
    throw new OAuthError(400, "invalid_request", "Missing required parameter: client_assertion");
  }
  const clientId = bodyId ?? subjectOf(assertion);
  const client = clientId === undefined ? undefined : context.store.getClient(clientId);
  if (clientId === undefined || client === undefined) {
    throw new OAuthError(401, "invalid_client", "Unknown client");
  }
  if (privateKeyJwtKeys(client).length === 0) {
    throw new OAuthError(
      401,
      "invalid_client",
      "The client has no credentials for private_key_jwt authentication",
    );
  }
  await verifyClientAssertion(assertion, {
    client,
    audience: context.auth.issuer,
    nowMs: context.clock(),
    replays: context.assertionReplays,
  });
  return grantedClient(context.store, clientId);
}

/** The `sub` of an assertion, read without verifying it, to find the client whose keys verify it. */
function subjectOf(assertion: string): string | undefined {
  try {
    const payload = JSON.parse(
      Buffer.from(assertion.split(".")[1] ?? "", "base64url").toString("utf8"),
    ) as { sub?: unknown };
    return typeof payload.sub === "string" ? payload.sub : undefined;
  } catch {
    return undefined;
  }
}

/** `clientId`, once it is known to be allowed the client credentials grant. */
function grantedClient(store: TenantStore, clientId: string): string {
  const grantTypes = store.getClient(clientId)?.grant_types;
  if (!Array.isArray(grantTypes) || !grantTypes.includes("client_credentials")) {
    throw new OAuthError(
      403,
      "unauthorized_client",
      "Grant type 'client_credentials' not allowed for the client.",
    );
  }
  return clientId;
}

/**
 * The scopes a token for `clientId` carries: its grant for this server's audience, narrowed to
 * the requested ones if the request names some (OAuth lets the caller ask for fewer scopes than
 * it was granted; it never gets more).
 */
function tokenScopes(
  context: ServerContext,
  clientId: string,
  body: Record<string, unknown>,
): string[] {
  const audience = parameter(body, "audience");
  if (audience === undefined) {
    throw new OAuthError(
      403,
      "access_denied",
      "No audience parameter was provided, and no default audience has been configured",
    );
  }
  if (audience !== context.auth.audience) {
    throw new OAuthError(403, "access_denied", `Service not found: ${audience}`);
  }
  const granted = context.store.grantedScopes(clientId);
  if (granted === undefined) {
    throw new OAuthError(
      403,
      "access_denied",
      `Client is not authorized to access "${audience}". You need to create a "client-grant" associated to this API.`,
    );
  }
  const requested = parameter(body, "scope");
  if (requested === undefined || requested.trim() === "") return granted;
  const wanted = requested.split(/\s+/).filter((s) => s !== "");
  const scopes = granted.filter((scope) => wanted.includes(scope));
  if (scopes.length === 0) {
    throw new OAuthError(
      403,
      "access_denied",
      `Client has not been granted scopes: ${wanted.join(", ")}`,
    );
  }
  return scopes;
}

/** Registers the token endpoint and the key set. */
export function registerOAuthRoutes(app: FastifyInstance, context: ServerContext): void {
  app.post(TOKEN_ROUTE, async (request, reply): Promise<TokenResponse> => {
    const body = tokenParameters(request.body ?? {});
    const clientId = await authenticatedClient(context, request.headers.authorization, body);
    const scopes = tokenScopes(context, clientId, body);
    const accessToken = await context.auth.issue(clientId, scopes, context.tokenTtlSeconds);
    reply.header("cache-control", "no-store").header("pragma", "no-cache");
    return {
      access_token: accessToken,
      token_type: "Bearer",
      expires_in: context.tokenTtlSeconds,
      scope: scopes.join(" "),
    };
  });

  app.get(JWKS_ROUTE, async () => context.auth.jwks());
}
