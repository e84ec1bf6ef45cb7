/**
 * The mapping between the user's camelCase inputs and the API's wire names, derived from the
 * schemas by one rule: a key `fooBarBaz` is sent as `foo_bar_baz` (an `_` before each capital
 * letter, which is lowercased) and read back by the inverse. An object marked
 * `"x-wire-keys": "verbatim"` keeps its own keys unchanged in both directions: free-form maps
 * (`clientMetadata`, `jwtConfiguration.scopes`, `addons.samlp.mappings`), maps keyed by provider
 * names, and the whole `addons` subtree, whose names the spec spells its own way. Values are never
 * changed, only keys.
 *
 * @module
 */

import type { ClientSettingsField } from "./client-settings.js";
import {
  IDENTITY_KEYS,
  isSchemaNode,
  itemSchema,
  memberSchema,
  propertiesOf,
  type ResourceKind,
  SCHEMAS,
  type SchemaNode,
} from "./kinds.js";
import { isUnknown } from "./unknown.js";

/** The annotation keyword that keeps an object's keys unchanged on the wire. */
export const WIRE_KEYS_KEYWORD = "x-wire-keys";

/**
 * The annotation keyword of a map whose values may also be `null` on the wire (a PATCH of
 * `client_metadata` removes the keys sent as `null`), though users write strings only.
 */
export const WIRE_NULL_VALUES_KEYWORD = "x-wire-null-values";

/** `sha256CertFingerprints` → `sha256_cert_fingerprints`. */
export function camelToSnake(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** `sha256_cert_fingerprints` → `sha256CertFingerprints`; the inverse of {@link camelToSnake}. */
export function snakeToCamel(name: string): string {
  return name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

function isVerbatim(schema: SchemaNode | undefined): boolean {
  return schema?.[WIRE_KEYS_KEYWORD] === "verbatim";
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
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

function clientFieldSchema(field: ClientSettingsField): SchemaNode {
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

/** The inverse of {@link fieldToWire}: one field of an API answer in the user's spelling. */
export function fieldFromWire(field: ClientSettingsField, wireValue: unknown): unknown {
  return mapValue(clientFieldSchema(field), wireValue, "fromWire");
}

/**
 * A resource's inputs as the API's body: keys renamed by the rule, `__` keys (`__provider`) and the
 * identity keys that travel in the path (`clientId`) dropped. Keys the schema does not know are
 * renamed by the rule too (they cannot pass `check`, so this only matters to callers that skip it).
 */
export function toWire(
  kind: ResourceKind,
  inputs: Record<string, unknown>,
): Record<string, unknown> {
  const skipped = IDENTITY_KEYS[kind];
  const body = Object.fromEntries(
    Object.entries(inputs).filter(([key]) => !key.startsWith("__") && !skipped.includes(key)),
  );
  return mapValue(SCHEMAS[kind] as SchemaNode, body, "toWire") as Record<string, unknown>;
}

/**
 * An API answer in the user's spelling, restricted to the fields the resource's schema declares
 * (minus the identity keys): a client answer's `client_id`, `tenant`, `signing_keys` and other
 * response-only fields are left out. Inside a declared object, members the platform added are kept,
 * renamed by the rule. `fromWire(kind, toWire(kind, inputs))` gives back `inputs` without its
 * `__` and identity keys.
 */
export function fromWire(
  kind: ResourceKind,
  wireObject: Record<string, unknown>,
): Record<string, unknown> {
  const schema = SCHEMAS[kind] as SchemaNode;
  const declared = new Set(Object.keys(propertiesOf(schema)));
  for (const key of IDENTITY_KEYS[kind]) declared.delete(key);
  const mapped = mapValue(schema, wireObject, "fromWire") as Record<string, unknown>;
  return Object.fromEntries(Object.entries(mapped).filter(([key]) => declared.has(key)));
}

function deriveWireSchema(schema: SchemaNode): SchemaNode {
  const verbatim = isVerbatim(schema);
  const rename = (key: string) => (verbatim ? key : camelToSnake(key));
  const out: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === "properties" && isSchemaNode(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([key, member]) => [
          rename(key),
          deriveWireSchema(member as SchemaNode),
        ]),
      );
    } else if (keyword === "required" && Array.isArray(value)) {
      out.required = value.map((key: string) => rename(key));
    } else if (
      (keyword === "additionalProperties" || keyword === "items" || keyword === "propertyNames") &&
      isSchemaNode(value)
    ) {
      out[keyword] = deriveWireSchema(value);
    } else {
      out[keyword] = value;
    }
  }
  if (schema[WIRE_NULL_VALUES_KEYWORD] === true && isSchemaNode(out.additionalProperties)) {
    const values = out.additionalProperties;
    out.additionalProperties = { ...values, type: [values.type, "null"].flat() };
  }
  return out;
}

/** The request shapes the local tenant API validates with {@link validateWire}. */
export type WireKind = "pushProviderSelection" | "clientUpdate" | "eventStreamId";

/**
 * The wire form of a request, derived from the user schema: snake_case keys, verbatim objects
 * untouched, `client_metadata` values also `null` (a PATCH removes those keys). `clientUpdate` has
 * no `client_id` (it travels in the path) and no required field; `eventStreamId` describes the id
 * string itself.
 */
export function wireSchema(kind: WireKind): SchemaNode {
  switch (kind) {
    case "pushProviderSelection":
      return deriveWireSchema(SCHEMAS.PushProviderSelection);
    case "eventStreamId":
      return deriveWireSchema(SCHEMAS.EventStreamDeletion.properties.eventStreamId);
    case "clientUpdate": {
      const { clientId: _clientId, ...fields } = SCHEMAS.ClientSettings.properties;
      const { required: _required, ...rest } = SCHEMAS.ClientSettings;
      return deriveWireSchema({ ...rest, properties: fields });
    }
  }
}
