/**
 * The stored client: its response shape, the defaults the platform fills in, how a PATCH applies,
 * and the two rules that need the stored client (docs/design/platform.md, "Rules across fields").
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

/** Most properties `client_metadata` may hold (docs/design/platform.md, "Limits"). */
const CLIENT_METADATA_MAX_KEYS = 10;

const JWT_CONFIGURATION_DEFAULTS = {
  alg: "RS256",
  lifetime_in_seconds: 36000,
  secret_encoded: false,
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
 * Fields the response declares "never null" (docs/design/platform.md, "Response-only fields"): the request accepts null for them, and
 * the platform then answers the default, so null resets them.
 */
const NULL_MEANS_DEFAULT: Readonly<Record<string, unknown>> = {
  token_endpoint_auth_method: "none",
  organization_usage: "deny",
  organization_require_behavior: "no_prompt",
  skip_non_verifiable_callback_uri_confirmation_prompt: false,
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
 * The defaults of the response shape (docs/design/platform.md, "Response-only fields"), for a client of
 * `tenant`. A fresh object each call, so callers may keep it.
 */
export function clientResponseDefaults(tenant: string): Record<string, unknown> {
  return {
    tenant,
    global: false,
    is_first_party: false,
    oidc_conformant: false,
    sso: false,
    sso_disabled: false,
    is_token_endpoint_ip_header_trusted: false,
    cross_origin_authentication: false,
    custom_login_page_on: true,
    custom_login_page: "",
    custom_login_page_preview: "",
    form_template: "",
    description: "",
    token_endpoint_auth_method: "none",
    organization_usage: "deny",
    organization_require_behavior: "no_prompt",
    skip_non_verifiable_callback_uri_confirmation_prompt: false,
    require_pushed_authorization_requests: false,
    require_proof_of_possession: false,
    callbacks: [],
    allowed_origins: [],
    web_origins: [],
    allowed_logout_urls: [],
    client_aliases: [],
    allowed_clients: [],
    grant_types: [],
    client_metadata: {},
    jwt_configuration: { ...JWT_CONFIGURATION_DEFAULTS },
    refresh_token: { ...REFRESH_TOKEN_DEFAULTS },
    signing_keys: [placeholderSigningKey(tenant)],
  };
}

/**
 * Fills the defaults the platform adds inside two objects when a client is created or one of them
 * is replaced by a PATCH. A provider must therefore compare such objects on the keys it declared
 * (docs/design/platform.md, "How a PATCH applies"); this server reproduces the trap instead of hiding it.
 */
function fillNestedDefaults(client: Record<string, unknown>): void {
  const jwt = client.jwt_configuration;
  if (isPlainObject(jwt)) client.jwt_configuration = { ...JWT_CONFIGURATION_DEFAULTS, ...jwt };
  const refresh = client.refresh_token;
  if (isPlainObject(refresh)) client.refresh_token = { ...REFRESH_TOKEN_DEFAULTS, ...refresh };
}

/** A copy of `client` with every response field the client lacks set to its default. */
export function withResponseDefaults(client: WireClient, tenant: string): WireClient {
  // client_id first, as the platform answers it.
  const { client_id, ...fields } = structuredClone(client);
  const filled: WireClient = { client_id, ...clientResponseDefaults(tenant), ...fields };
  fillNestedDefaults(filled);
  return filled;
}

/**
 * Applies a PATCH body (already valid against the schema) to a stored client and returns the new
 * client; the stored one is not touched. Only the fields sent change. A top-level object sent
 * replaces the stored one, except `client_metadata`, which merges key by key, a null value removing
 * the key. A null sent for a field the response declares never null resets it to its default.
 */
export function applyClientPatch(stored: WireClient, patch: Record<string, unknown>): WireClient {
  const next: WireClient = structuredClone(stored);
  for (const [field, value] of Object.entries(patch)) {
    if (field === "client_metadata" && isPlainObject(value)) {
      const metadata: Record<string, unknown> = isPlainObject(next.client_metadata)
        ? { ...next.client_metadata }
        : {};
      for (const [key, item] of Object.entries(value)) {
        if (item === null) delete metadata[key];
        else metadata[key] = item;
      }
      next.client_metadata = metadata;
    } else if (value === null && field in NULL_MEANS_DEFAULT) {
      next[field] = NULL_MEANS_DEFAULT[field];
    } else {
      next[field] = structuredClone(value);
    }
  }
  fillNestedDefaults(next);
  return next;
}

/**
 * The rules (docs/design/platform.md, "Rules across fields") that need the stored client, checked against the stored client merged
 * with the PATCH: `third_party_security_mode` cannot change; `post_login_prompt` needs
 * `oidc_conformant`; and `client_metadata` stays within its limit once merged.
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
 * A client as a read answers it: the stored client narrowed to the selected fields (`client_id`
 * too is left out when an include list does not name it, as on the platform), without the key
 * material unless `showKeys`. The single-client GET and the list answer through this one function,
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
    if (wanted !== undefined && wanted.has(field) !== selection?.include) continue;
    answer[field] = value;
  }
  return answer;
}
