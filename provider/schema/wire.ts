/**
 * The mapping between the user's camelCase inputs and the API's wire names, derived from the
 * schemas by one rule: a key `fooBarBaz` is sent as `foo_bar_baz` (an `_` before each capital
 * letter, which is lowercased) and read back by the inverse. An object marked
 * `"x-wire-keys": "verbatim"` keeps its own keys unchanged in both directions: free-form maps
 * (`clientMetadata`, `jwtConfiguration.scopes`, `addons.samlp.mappings`), maps keyed by provider
 * names, and the whole `addons` subtree, whose names the platform spells its own way
 * (docs/design/platform.md, "Names on the wire"). Values are never changed, only keys.
 *
 * @module
 */

import { isPlainObject } from "../json.js";
import { isUnknown } from "../unknown.js";
import type { ClientSettingsField } from "./client-settings.js";
import { itemSchema, memberSchema, propertiesOf, SCHEMAS, type SchemaNode } from "./kinds.js";

/** The annotation keyword that keeps an object's keys unchanged on the wire. */
const WIRE_KEYS_KEYWORD = "x-wire-keys";

/**
 * The annotation keyword of a map whose values may also be `null` on the wire (a PATCH of
 * `client_metadata` removes the keys sent as `null`), though users write strings only.
 *
 * @internal
 */
export const WIRE_NULL_VALUES_KEYWORD = "x-wire-null-values";

/**
 * `sha256CertFingerprints` → `sha256_cert_fingerprints`.
 *
 * @internal
 */
export function camelToSnake(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/**
 * `sha256_cert_fingerprints` → `sha256CertFingerprints`; the inverse of {@link camelToSnake}.
 *
 * @internal
 */
export function snakeToCamel(name: string): string {
  return name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * Whether the object `schema` describes keeps its own keys on the wire.
 *
 * @internal
 */
export function isVerbatim(schema: SchemaNode | undefined): boolean {
  return schema?.[WIRE_KEYS_KEYWORD] === "verbatim";
}

type Direction = "toWire" | "fromWire";

function mapKey(schema: SchemaNode, key: string, direction: Direction): string {
  if (isVerbatim(schema)) return key;
  return direction === "toWire" ? camelToSnake(key) : snakeToCamel(key);
}

function mapValue(schema: SchemaNode | undefined, value: unknown, direction: Direction): unknown {
  if (schema === undefined || isUnknown(value)) return value;
  if (Array.isArray(value)) {
    const items = itemSchema(schema);
    return value.map((item) => mapValue(items, item, direction));
  }
  if (!isPlainObject(value)) return value;
  // Built with fromEntries, not assignment: a free-form map may hold a `__proto__` key, which an
  // assignment would swallow (it would set the prototype instead of a property).
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => {
      const mapped = mapKey(schema, key, direction);
      const userKey = direction === "toWire" ? key : mapped;
      return [mapped, mapValue(memberSchema(schema, userKey), member, direction)];
    }),
  );
}

/**
 * `value`, described by `schema` in the user's spelling, in the wire's spelling. Without a schema
 * (a free-form value) nothing is renamed. The {@link UNKNOWN} placeholder is returned as it is.
 *
 * @internal
 */
export function valueToWire(schema: SchemaNode | undefined, value: unknown): unknown {
  return mapValue(schema, value, "toWire");
}

/**
 * The inverse of {@link valueToWire}: a value in the wire's spelling in the user's.
 *
 * @internal
 */
export function valueFromWire(schema: SchemaNode | undefined, wireValue: unknown): unknown {
  return mapValue(schema, wireValue, "fromWire");
}

/** The schema of one client field. */
export function clientFieldSchema(field: ClientSettingsField): SchemaNode {
  return SCHEMAS.ClientSettings.properties[field] as SchemaNode;
}

/**
 * The wire name of a client field: `oidcConformant` → `oidc_conformant`,
 * `skipNonVerifiableCallbackUriConfirmationPrompt` → `skip_non_verifiable_callback_uri_confirmation_prompt`.
 */
export function wireName(field: ClientSettingsField): string {
  return camelToSnake(field);
}

/**
 * The value of one client field as the API expects it: nested keys renamed by the rule, verbatim
 * maps and addons untouched. The {@link UNKNOWN} placeholder is returned as it is.
 */
export function fieldToWire(field: ClientSettingsField, value: unknown): unknown {
  return mapValue(clientFieldSchema(field), value, "toWire");
}

/**
 * The inverse of {@link fieldToWire}: one field of an API answer in the user's spelling. Members
 * the platform added inside a declared object are renamed by the rule too, so callers convert only
 * what they report, cut down to the declared keys.
 */
export function fieldFromWire(field: ClientSettingsField, wireValue: unknown): unknown {
  return mapValue(clientFieldSchema(field), wireValue, "fromWire");
}

/**
 * Whether `value` of `field` is in the user's spelling rather than the wire's: whether an object
 * in it, whose keys are renamed, holds a member the schema declares under a name the rule changes
 * (`lifetimeInSeconds` rather than `lifetime_in_seconds`). A wire value never does, unless the
 * platform spelled a declared member the user's way. Values without such members read the same in
 * both spellings, apart from keys the platform added.
 */
export function isUserSpelled(field: ClientSettingsField, value: unknown): boolean {
  return hasUserSpelledMember(clientFieldSchema(field), value);
}

function hasUserSpelledMember(schema: SchemaNode | undefined, value: unknown): boolean {
  if (schema === undefined) return false;
  if (Array.isArray(value))
    return value.some((item) => hasUserSpelledMember(itemSchema(schema), item));
  if (!isPlainObject(value)) return false;
  const declared = propertiesOf(schema);
  return Object.entries(value).some(
    ([key, member]) =>
      (!isVerbatim(schema) && Object.hasOwn(declared, key) && camelToSnake(key) !== key) ||
      hasUserSpelledMember(memberSchema(schema, key), member),
  );
}
