import { isPlainObject } from "../json.js";
import { clientSettingsSchema } from "./client-settings.js";
import { eventStreamDeletionSchema } from "./event-stream-deletion.js";
import { pushProviderSelectionSchema } from "./push-provider-selection.js";

/** The three resources whose inputs this module describes. */
export type ResourceKind = "PushProviderSelection" | "ClientSettings" | "EventStreamDeletion";

/** The input schema (user form, camelCase) of each resource. */
export const SCHEMAS = {
  PushProviderSelection: pushProviderSelectionSchema,
  ClientSettings: clientSettingsSchema,
  EventStreamDeletion: eventStreamDeletionSchema,
} as const satisfies Record<ResourceKind, object>;

/**
 * A JSON Schema node as the walkers of this module see it: a read-only bag of keywords. (The typed
 * `as const` schemas are for `FromSchema`; walking them generically needs this looser view.)
 */
export type SchemaNode = { readonly [keyword: string]: unknown };

/** Whether `value` is a schema node (an object, not an array). */
export function isSchemaNode(value: unknown): value is SchemaNode {
  return isPlainObject(value);
}

/** The `properties` of a schema node, or an empty record. */
export function propertiesOf(schema: SchemaNode): Readonly<Record<string, SchemaNode>> {
  const properties = schema.properties;
  return isSchemaNode(properties) ? (properties as Record<string, SchemaNode>) : {};
}

/**
 * The schema of the member `key` of an object described by `schema`: the declared property, else
 * the `additionalProperties` schema, else `undefined` (free-form, no schema).
 */
export function memberSchema(schema: SchemaNode, key: string): SchemaNode | undefined {
  const properties = propertiesOf(schema);
  if (Object.hasOwn(properties, key)) return properties[key];
  return isSchemaNode(schema.additionalProperties) ? schema.additionalProperties : undefined;
}

/** The schema of the items of an array described by `schema`, or `undefined`. */
export function itemSchema(schema: SchemaNode): SchemaNode | undefined {
  return isSchemaNode(schema.items) ? schema.items : undefined;
}
