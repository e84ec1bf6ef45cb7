/**
 * Key material a `ClientSettings` may send, remember or put back, and the credentials that may
 * not see it (docs/design/decisions.md, "Key material"; docs/design/platform.md, "Key material in
 * answers"): an answer holding no key material at all may be hiding it, and an object sent or put
 * back over a hidden one would lose the rest of it. Pure functions only.
 *
 * @module
 */

import { TenantValidationError } from "../errors.js";
import { CLIENT_FIELDS, type DeclaredClient, KEY_MATERIAL, type WireFields } from "./declared.js";

/** Key material declared as an object: what the program leaves out of it lives only in the tenant. */
export const KEY_OBJECTS = ["encryption_key", "client_authentication_methods"];

/**
 * The scopes that let credentials see {@link KEY_MATERIAL} in an answer (docs/design/platform.md,
 * "Key material in answers"); either one is enough.
 */
const KEY_READ_SCOPES = ["read:client_keys", "read:client_credentials"] as const;

/** Whether `live` holds no key material at all: the credentials may not be allowed to see it. */
export function keysHidden(live: WireFields): boolean {
  return KEY_MATERIAL.every((wire) => live[wire] === undefined);
}

/**
 * Refuses to send, or put back, a key-material object (`encryption_key`,
 * `client_authentication_methods`) the answer may be hiding: the rest of it would be lost and its
 * prior could not be recorded, so destroy could not repair it. The answer proves nothing is hidden
 * when it holds any key material. `fields` are the wire fields the operation sends, remembers or
 * puts back.
 *
 * @throws {TenantValidationError}.
 */
export function refuseHiddenKeys(
  declared: DeclaredClient,
  live: WireFields,
  fields: readonly string[],
): void {
  if (!keysHidden(live)) return;
  const error = hiddenKeysError(declared, fields);
  if (error !== undefined) throw error;
}

/**
 * The preview's refusal of key material at stake (`fields`) that the credentials' token does not
 * let them see: `scopes` are the scopes it grants, and neither `read:client_keys` nor
 * `read:client_credentials` is among them. The refusal `up` makes from the answer, made before
 * anything is sent. Undefined when the scopes could not be read (an opaque token, no token): `up`
 * stays the backstop.
 */
export function unscopedKeysError(
  declared: DeclaredClient,
  fields: readonly string[],
  scopes: readonly string[] | undefined,
): TenantValidationError | undefined {
  if (scopes === undefined || KEY_READ_SCOPES.some((scope) => scopes.includes(scope))) {
    return undefined;
  }
  return hiddenKeysError(declared, fields);
}

/**
 * The one refusal of key material the credentials may not see, for the first key-material object
 * among `fields`; undefined when there is none. Raised at `up` by what the answer holds
 * ({@link refuseHiddenKeys}) and at preview by the token's scopes ({@link unscopedKeysError}).
 */
function hiddenKeysError(
  declared: DeclaredClient,
  fields: readonly string[],
): TenantValidationError | undefined {
  const field = CLIENT_FIELDS.find(
    ({ wire }) => KEY_OBJECTS.includes(wire) && fields.includes(wire),
  );
  if (field === undefined) return undefined;
  return new TenantValidationError({
    subject: `${field.field} of client ${declared.clientId}`,
    reason:
      `cannot be seen: the tenant answers it only to credentials with ${KEY_READ_SCOPES[0]} (or ` +
      `${KEY_READ_SCOPES[1]}), and without it what the program does not declare there would be ` +
      "lost and nothing could be put back",
    remedy: `grant ${KEY_READ_SCOPES[0]} to the provider's credentials. Nothing was sent.`,
  });
}
