/**
 * Whole requests in the API's spelling, derived from the provider's schemas (one source of truth):
 * the wire schemas the local tenant API validates request bodies with, and the mapping of whole
 * resource inputs to and from a body, which the tests use. Test-only, so it lives here rather than
 * in the published package.
 *
 * @module
 */

import type { ValidateFunction } from "ajv";
import { type PathFailure, toFailures } from "../schema/check-failures.js";
import { SENSITIVE_CLIENT_FIELDS } from "../schema/client-settings.js";
import { postLoginPromptFailure } from "../schema/cross-field.js";
import {
  isSchemaNode,
  propertiesOf,
  type ResourceKind,
  SCHEMAS,
  type SchemaNode,
} from "../schema/kinds.js";
import { compileSchema, errorsOf } from "../schema/validate.js";
import {
  camelToSnake,
  isVerbatim,
  valueFromWire,
  valueToWire,
  WIRE_NULL_VALUES_KEYWORD,
  wireName,
} from "../schema/wire.js";

/** Input keys that identify the resource rather than describe its settings (never in a body). */
const IDENTITY_KEYS: Readonly<Record<ResourceKind, readonly string[]>> = {
  PushProviderSelection: [],
  ClientSettings: ["clientId"],
  EventStreamDeletion: [],
};

/**
 * A resource's inputs as the API's body: keys renamed by the rule, `__` keys (`__provider`) and the
 * identity keys that travel in the path (`clientId`) dropped.
 */
export function toWire(
  kind: ResourceKind,
  inputs: Record<string, unknown>,
): Record<string, unknown> {
  const skipped = IDENTITY_KEYS[kind];
  const body = Object.fromEntries(
    Object.entries(inputs).filter(([key]) => !key.startsWith("__") && !skipped.includes(key)),
  );
  return valueToWire(SCHEMAS[kind] as SchemaNode, body) as Record<string, unknown>;
}

/**
 * An API answer in the user's spelling, restricted to the fields the resource's schema declares
 * (minus the identity keys): response-only fields are left out; inside a declared object, members
 * the platform added are kept, renamed by the rule.
 */
export function fromWire(
  kind: ResourceKind,
  wireObject: Record<string, unknown>,
): Record<string, unknown> {
  const schema = SCHEMAS[kind] as SchemaNode;
  const declared = new Set(Object.keys(propertiesOf(schema)));
  for (const key of IDENTITY_KEYS[kind]) declared.delete(key);
  const mapped = valueFromWire(schema, wireObject) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(mapped).filter(([key]) => declared.has(key)));
}

function deriveWireSchema(schema: SchemaNode): SchemaNode {
  const rename = (key: string) => (isVerbatim(schema) ? key : camelToSnake(key));
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

/**
 * `schema` (a wire schema) with every member of every object, at every depth, also taking `null`:
 * the platform takes `null` anywhere in a PATCH and removes what it names (docs/design/local-tenant.md,
 * "How a PATCH applies"), the fields the spec calls never null included.
 */
function withNullableMembers(schema: SchemaNode): SchemaNode {
  const out: Record<string, unknown> = { ...schema };
  const properties = schema.properties;
  if (isSchemaNode(properties)) {
    out.properties = Object.fromEntries(
      Object.entries(properties).map(([key, member]) => [key, nullable(member as SchemaNode)]),
    );
  }
  if (isSchemaNode(schema.additionalProperties)) {
    out.additionalProperties = nullable(schema.additionalProperties);
  }
  return out;
}

/** A member's schema that also takes `null` (its own members too). */
function nullable(schema: SchemaNode): SchemaNode {
  const out: Record<string, unknown> = { ...withNullableMembers(schema) };
  if (out.type !== undefined) out.type = [...new Set([out.type, "null"].flat())];
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  return out;
}

/** The request shapes the local tenant API validates with {@link validateWire}. */
export type WireKind = "pushProviderSelection" | "clientUpdate" | "eventStreamId";

/**
 * The wire form of a request, derived from the user schema: snake_case keys, verbatim objects
 * untouched, `client_metadata` values also `null` (a PATCH removes those keys). `clientUpdate` has
 * no `client_id` (it travels in the path) and no required field, and takes `null` for any member
 * at any depth ({@link withNullableMembers}); `eventStreamId` describes the id string itself.
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
      return withNullableMembers(deriveWireSchema({ ...rest, properties: fields }));
    }
  }
}

const validators: Partial<Record<WireKind, ValidateFunction>> = {};

/**
 * Validates a request as the API receives it, in wire spelling, and returns every failure with its
 * path in wire spelling (`jwt_configuration.lifetime_in_seconds`, `callbacks[2]`, `""` for the root).
 * - `pushProviderSelection`: the PUT body (`{ provider }`, nothing else).
 * - `clientUpdate`: the PATCH body (any subset of the client fields; `client_metadata` values may
 *   be `null`, which removes the key). The post-login-prompt rule is applied when the body holds
 *   both fields; against the stored client it is the caller's to apply.
 * - `eventStreamId`: the id string of the path (exactly 26 characters).
 * The unknown placeholder gets no special treatment here. Never throws.
 */
export function validateWire(kind: WireKind, value: unknown): PathFailure[] {
  validators[kind] ??= compileSchema(wireSchema(kind));
  const found = toFailures(errorsOf(validators[kind], value), value, {
    skipUnknowns: false,
    sensitive: kind === "clientUpdate" ? SENSITIVE_CLIENT_FIELDS.map(wireName) : [],
  });
  if (kind === "clientUpdate" && isSchemaNode(value)) {
    const crossField = postLoginPromptFailure(value, {
      organizationRequireBehavior: wireName("organizationRequireBehavior"),
      oidcConformant: wireName("oidcConformant"),
    });
    if (crossField !== undefined) found.push(crossField);
  }
  return found;
}
