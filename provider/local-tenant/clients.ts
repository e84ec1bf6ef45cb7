/**
 * The stored client: its response shape, the defaults the platform fills in on create (how a
 * PATCH applies is `client-patch.ts`), and the rules that need the stored client (docs/design/platform.md, "Rules across fields").
 *
 * Clients are kept in wire form (the spec's snake_case), exactly as the API answers them. The type
 * deliberately does not restate the fields: the schema module under `provider/schema/` is the one
 * description of them (docs/design/decisions.md), and it validates every body before it gets here.
 */

import { isPlainObject } from "../json.js";
import type { PathFailure } from "../schema/check-failures.js";
import { postLoginPromptReason } from "../schema/index.js";

/** A client as stored and answered: a JSON object keyed by wire names, with its id. */
/**
 * The stored client's field that holds its registered keys. The platform keeps them apart from
 * the client (its credentials API), so no client read answers this field.
 */
export const CREDENTIALS_FIELD = "credentials";

export interface WireClient {
  /** Identifier of the client (32 letters and digits on the platform). */
  client_id: string;
  /** Every other field, spelled as on the wire (docs/design/platform.md, "Client fields" and "Response-only fields"). */
  [field: string]: unknown;
}

/** Fields that appear only in a response (docs/design/platform.md, "Response-only fields"): a PATCH cannot set them. */
export const RESPONSE_ONLY_FIELDS: readonly string[] = [
  "client_id",
  "tenant",
  "global",
  "signing_keys",
  "resource_server_identifier",
  "external_metadata_type",
  "external_metadata_created_by",
  "external_client_id",
  "jwks_uri",
];

/**
 * The members a `default_organization` sent must have together: the platform refuses one without
 * the other (recorded: TestAccClientWithDefaultOrganization #53 and #55); `{}` is not recorded and
 * is taken.
 */
const DEFAULT_ORGANIZATION_MEMBERS = ["organization_id", "flows"] as const;

/** Most properties `client_metadata` may hold (docs/design/platform.md, "Limits"). */
const CLIENT_METADATA_MAX_KEYS = 10;

/**
 * `jwt_configuration` of a client created without one (recorded: the POST answers of
 * TestAccClientMobile and 61 more): no `alg`, except for the app types below.
 */
const JWT_CONFIGURATION_DEFAULTS = { secret_encoded: false, lifetime_in_seconds: 36000 };

/** `jwt_configuration` of a created `resource_server` or `express_configuration` client (recorded). */
const JWT_CONFIGURATION_DEFAULTS_BY_APP_TYPE: Readonly<Record<string, Record<string, unknown>>> = {
  resource_server: { secret_encoded: false, alg: "RS256" },
  express_configuration: { secret_encoded: false, alg: "RS256" },
};

const REFRESH_TOKEN_DEFAULTS = {
  rotation_type: "non-rotating",
  expiration_type: "non-expiring",
  leeway: 0,
  token_lifetime: 2592000,
  infinite_token_lifetime: true,
  idle_token_lifetime: 1296000,
  infinite_idle_token_lifetime: true,
};

/**
 * The lifetimes of `refresh_token` for a client created with a secret-based
 * `token_endpoint_auth_method` (recorded: 25 POST answers, e.g. TestAccClientJWTConfiguration #0).
 */
const SECRET_CLIENT_REFRESH_LIFETIMES = { token_lifetime: 31557600, idle_token_lifetime: 2592000 };

/** App types the platform creates OIDC conformant (recorded: TestAccClientExpressApp #0, TestAccClientResourceServer #2). */
const OIDC_CONFORMANT_APP_TYPES: ReadonlySet<unknown> = new Set([
  "express_configuration",
  "resource_server",
]);

/**
 * The members the platform fills in when `session_transfer` is first given to a client, on create
 * or by a PATCH (recorded: TestAccClientSessionTransfer #0 and #24).
 */
export const SESSION_TRANSFER_DEFAULTS: Readonly<Record<string, unknown>> = {
  can_create_session_transfer_token: false,
  allowed_authentication_methods: [],
  enforce_device_binding: "ip",
  allow_refresh_token: false,
  enforce_online_refresh_tokens: true,
  enforce_cascade_revocation: true,
};

/** A signing key entry as the platform shows it; the certificate text is a stand-in. */
function placeholderSigningKey(tenant: string): Record<string, string> {
  const body = Buffer.from(`local tenant api signing key of ${tenant}`).toString("base64");
  return {
    cert: `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`,
    pkcs7: `-----BEGIN PKCS7-----\n${body}\n-----END PKCS7-----\n`,
    subject: "deprecated",
  };
}

/**
 * The fields the platform answers on a client created without them (docs/design/local-tenant.md,
 * "How a PATCH applies"), for a client of `tenant` and `appType`: what the recorded POST answers carry, plus
 * the two response-only fields this tenant always answers (`tenant`, `global`: the client list's
 * `is_global` filter reads it). Nothing else: the platform answers no `description`,
 * `token_endpoint_auth_method`, `callbacks` or `false` it was not given. A fresh object each call.
 */
export function clientResponseDefaults(
  tenant: string,
  appType?: unknown,
  tokenEndpointAuthMethod?: unknown,
): Record<string, unknown> {
  const secretClient =
    tokenEndpointAuthMethod === "client_secret_post" ||
    tokenEndpointAuthMethod === "client_secret_basic";
  return {
    tenant,
    global: false,
    is_first_party: true,
    is_token_endpoint_ip_header_trusted: false,
    oidc_conformant: OIDC_CONFORMANT_APP_TYPES.has(appType),
    jwt_configuration: {
      ...(JWT_CONFIGURATION_DEFAULTS_BY_APP_TYPE[String(appType)] ?? JWT_CONFIGURATION_DEFAULTS),
    },
    signing_keys: [placeholderSigningKey(tenant)],
    sso_disabled: false,
    cross_origin_authentication: false,
    // The platform answers a list by app type (test/fixtures/recorded/ignored-fields.ts); the
    // local tenant keeps answering none, which `audit --seed` judges (docs/design/local-tenant.md).
    grant_types: [],
    custom_login_page_on: true,
    refresh_token: {
      ...REFRESH_TOKEN_DEFAULTS,
      ...(secretClient ? SECRET_CLIENT_REFRESH_LIFETIMES : {}),
    },
  };
}

/**
 * Fills the defaults the platform adds inside objects given on create: `refresh_token`'s and
 * `session_transfer`'s members left out, and `jwt_configuration.secret_encoded` (recorded POST
 * answers, e.g. TestAccClientJWTConfiguration #5, TestAccClientSessionTransfer #0).
 */
function fillNestedDefaults(client: Record<string, unknown>): void {
  const jwt = client.jwt_configuration;
  if (isPlainObject(jwt)) client.jwt_configuration = { secret_encoded: false, ...jwt };
  if (!("oidc_backchannel_logout" in client)) mirrorBackchannelLogout(client);
  const refresh = client.refresh_token;
  if (isPlainObject(refresh)) client.refresh_token = { ...REFRESH_TOKEN_DEFAULTS, ...refresh };
  const transfer = client.session_transfer;
  if (isPlainObject(transfer)) {
    client.session_transfer = { ...SESSION_TRANSFER_DEFAULTS, ...transfer };
  }
}

/**
 * Sets `oidc_backchannel_logout`, the older name of the back-channel logout settings, to the URLs
 * of `oidc_logout`, as the platform answers it once `oidc_logout` is written with URLs (recorded:
 * TestAccClientOIDCLogout #0 and #4).
 */
export function mirrorBackchannelLogout(client: Record<string, unknown>): void {
  const logout = client.oidc_logout;
  if (isPlainObject(logout) && Array.isArray(logout.backchannel_logout_urls)) {
    client.oidc_backchannel_logout = {
      backchannel_logout_urls: structuredClone(logout.backchannel_logout_urls),
    };
  }
}

/**
 * A copy of `client` as the platform answers it once created with these fields: every default
 * response field the client lacks set ({@link clientResponseDefaults}).
 */
export function withResponseDefaults(client: WireClient, tenant: string): WireClient {
  // client_id first, as the platform answers it.
  const { client_id, ...fields } = structuredClone(client);
  const filled: WireClient = {
    client_id,
    ...clientResponseDefaults(tenant, fields.app_type, fields.token_endpoint_auth_method),
    ...fields,
  };
  fillNestedDefaults(filled);
  return filled;
}

/**
 * The rules (docs/design/platform.md, "Rules across fields") that need the stored client, checked against the stored client merged
 * with the PATCH: `third_party_security_mode` cannot change; `post_login_prompt` needs
 * `oidc_conformant`; a `default_organization` sent has both its members; and `client_metadata`
 * stays within its limit once merged.
 */
export function storedClientRuleFailures(
  stored: WireClient,
  patch: Record<string, unknown>,
  merged: WireClient,
): PathFailure[] {
  const failures: PathFailure[] = [];
  if (
    "third_party_security_mode" in patch &&
    patch.third_party_security_mode !== stored.third_party_security_mode
  ) {
    const current =
      stored.third_party_security_mode === undefined
        ? "not set"
        : JSON.stringify(stored.third_party_security_mode);
    failures.push({
      path: "third_party_security_mode",
      reason: `cannot be modified after creation (current: ${current}, requested: ${JSON.stringify(patch.third_party_security_mode)})`,
    });
  }
  if (
    merged.organization_require_behavior === "post_login_prompt" &&
    merged.oidc_conformant !== true
  ) {
    failures.push({
      path: "organization_require_behavior",
      reason: postLoginPromptReason("oidc_conformant"),
    });
  }
  const organization = patch.default_organization;
  if (
    isPlainObject(organization) &&
    DEFAULT_ORGANIZATION_MEMBERS.filter((member) => member in organization).length === 1
  ) {
    failures.push({
      path: "default_organization",
      reason: `must have both ${DEFAULT_ORGANIZATION_MEMBERS.join(" and ")}`,
    });
  }
  const metadata = merged.client_metadata;
  if (isPlainObject(metadata) && Object.keys(metadata).length > CLIENT_METADATA_MAX_KEYS) {
    failures.push({
      path: "client_metadata",
      reason: `must NOT have more than ${CLIENT_METADATA_MAX_KEYS} properties once merged with the stored ones (would have ${Object.keys(metadata).length})`,
    });
  }
  return failures;
}

/** The 400 message for a list of failures: `Payload validation error: path: reason; ...`. */
export function payloadValidationMessage(failures: readonly PathFailure[]): string {
  const parts = failures.map((f) => (f.path === "" ? f.reason : `${f.path}: ${f.reason}`));
  return `Payload validation error: ${parts.join("; ")}`;
}

/**
 * Fields the platform answers only to a caller whose token has `read:client_keys` or
 * `read:client_credentials`, whether one client is read or a list.
 */
export const KEY_MATERIAL_FIELDS: readonly string[] = [
  "client_secret",
  "encryption_key",
  "client_authentication_methods",
];

/** Scopes, any one of which lets a caller see {@link KEY_MATERIAL_FIELDS}. */
export const KEY_READ_SCOPES: readonly string[] = ["read:client_keys", "read:client_credentials"];

/** What the `fields` and `include_fields` query parameters ask for. */
export interface FieldSelection {
  /** Wire names, as given (unknown names select nothing). */
  fields: readonly string[];
  /** true: only these fields; false: every field but these. */
  include: boolean;
}

/**
 * A client as a read (or a PATCH) answers it: the stored client narrowed to the selected fields
 * (`client_id` too is left out when an include list does not name it, as on the platform), without
 * the key material unless `showKeys`, and without the secret of a client that has
 * `client_authentication_methods`. The single-client GET and the list answer through this one function,
 * so both hide the same fields the same way.
 */
export function clientAsAnswered(
  client: WireClient,
  options: { selection?: FieldSelection | undefined; showKeys: boolean },
): Record<string, unknown> {
  const { selection, showKeys } = options;
  const wanted = selection === undefined ? undefined : new Set(selection.fields);
  const answer: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(client)) {
    // The registered keys are the client credentials API's, never a client read's.
    if (field === CREDENTIALS_FIELD) continue;
    if (!showKeys && KEY_MATERIAL_FIELDS.includes(field)) continue;
    // A client that authenticates by its registered methods (private key JWT, mTLS) has its
    // secret left out of every answer, though it is kept: it is answered again once the methods
    // are removed (recorded: TestAccClientAuthenticationMethodsPrivateKeyJWT #13 and #70).
    if (field === "client_secret" && isPlainObject(client.client_authentication_methods)) continue;
    if (wanted !== undefined && wanted.has(field) !== selection?.include) continue;
    answer[field] = value;
  }
  return answer;
}
