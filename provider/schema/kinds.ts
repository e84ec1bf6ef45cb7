import { connectionSchemaToValidate, TENANT_KEY } from "../connection/schema.js";
import { isPlainObject } from "../json.js";
import { clientSettingsSchema } from "./client-settings.js";
import { eventStreamDeletionSchema } from "./event-stream-deletion.js";
import { pushProviderSelectionSchema } from "./push-provider-selection.js";

/** The three resources whose inputs this module describes. */
export type ResourceKind = "PushProviderSelection" | "ClientSettings" | "EventStreamDeletion";

/**
 * The hidden input that carries the resource's logical name into the provider core (not `__name`,
 * which Pulumi's own Resource class uses): the dynamic provider protocol passes no URN to check,
 * create, update or delete, and an error that says `ClientSettings "web"` is worth a lot more than
 * one that says `ClientSettings`. Both faces set it (the dynamic resources at registration, the
 * plugin from the URN); `check` leaves keys starting with `__` unvalidated, and the outputs keep it
 * so that refresh and destroy name the resource too. How a message shows it: `describeResource`
 * (providers/run-operation.ts).
 */
export const NAME_KEY = "__resourceName";

/**
 * The settings schema (user form, camelCase) of each resource: what it manages in the tenant, the
 * source of the wire mapping and of the local tenant API's validation.
 */
export const SCHEMAS = {
  PushProviderSelection: pushProviderSelectionSchema,
  ClientSettings: clientSettingsSchema,
  EventStreamDeletion: eventStreamDeletionSchema,
} as const satisfies Record<ResourceKind, object>;

/**
 * The input schema of each resource, what `check` validates: its settings and the optional
 * `tenant` connection (`connection/schema.ts`), which says where the settings go and is never sent.
 */
export const INPUT_SCHEMAS: Readonly<Record<ResourceKind, SchemaNode>> = {
  PushProviderSelection: withConnection(pushProviderSelectionSchema),
  ClientSettings: withConnection(clientSettingsSchema),
  EventStreamDeletion: withConnection(eventStreamDeletionSchema),
};

function withConnection(schema: SchemaNode): SchemaNode {
  return {
    ...schema,
    properties: { ...propertiesOf(schema), [TENANT_KEY]: connectionSchemaToValidate },
  };
}

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
