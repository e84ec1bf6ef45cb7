/**
 * What a program declares of one client, decided from what the tenant answered: its id and the
 * chosen fields exactly as the tenant holds them. `generate` writes it into a program, and
 * `pulumi import` of a `ClientSettings` answers it as the resource's inputs. Pure: the reads
 * happen elsewhere (`reads.ts`).
 *
 * A declared value must make `pulumi up` send nothing, so it must equal the live value in the
 * resource's own comparison (nested objects on the keys declared, everything else exactly), and it
 * must pass the resource's `check`. What cannot be declared is left out and said so in a note:
 * secrets, add-on key material, members the schema does not know (response-only), and values the
 * schema refuses (e.g. an empty list where the API accepts only null or a non-empty one).
 *
 * @module
 */

import type { WireClient } from "../api/client-read-policy.js";
import { isPlainObject } from "../json.js";
import { type ClientSettingsField, checkInputs, fieldFromWire, wireName } from "../schema/index.js";
import {
  itemSchema,
  memberSchema,
  propertiesOf,
  SCHEMAS,
  type SchemaNode,
} from "../schema/kinds.js";
import { ADDON_KEY_MATERIAL, writableFields } from "./catalogue.js";

/** What a program declares of one client, whatever the resource is named. */
export interface ClientDeclaration {
  readonly clientId: string;
  /** The declared fields in the user's camelCase, in the schema's order, values as the tenant holds them. */
  readonly values: Readonly<Partial<Record<ClientSettingsField, unknown>>>;
  /** What was left out of this client and why (never a value). */
  readonly notes: readonly string[];
}

/**
 * `value` without the object members its schema does not allow (a closed object's unknown keys,
 * which the platform may answer but a program cannot declare); `dropped` receives each removed
 * path. Free-form maps (no `properties`, or open `additionalProperties`) keep every key.
 */
function pruneUnknown(
  schema: SchemaNode | undefined,
  value: unknown,
  path: string,
  dropped: string[],
): unknown {
  if (schema === undefined) return value;
  if (Array.isArray(value)) {
    const items = itemSchema(schema);
    return value.map((item, index) => pruneUnknown(items, item, `${path}[${index}]`, dropped));
  }
  if (!isPlainObject(value)) return value;
  const declared = propertiesOf(schema);
  const closed = schema.additionalProperties === false;
  return Object.fromEntries(
    Object.entries(value).flatMap(([key, member]) => {
      const memberPath = `${path}.${key}`;
      if (closed && !Object.hasOwn(declared, key)) {
        dropped.push(memberPath);
        return [];
      }
      return [[key, pruneUnknown(memberSchema(schema, key), member, memberPath, dropped)]];
    }),
  );
}

/** `addons` without key material; `dropped` receives each removed path. */
function withoutKeyMaterial(addons: unknown, dropped: string[]): unknown {
  if (!isPlainObject(addons)) return addons;
  return Object.fromEntries(
    Object.entries(addons).map(([member, settings]) => {
      if (!isPlainObject(settings)) return [member, settings];
      const kept = Object.entries(settings).filter(([key]) => {
        if (!ADDON_KEY_MATERIAL.has(key)) return true;
        dropped.push(`addons.${member}.${key}`);
        return false;
      });
      return [member, Object.fromEntries(kept)];
    }),
  );
}

/** The top-level field a check failure's property belongs to (`refreshToken.leeway` → `refreshToken`). */
function topField(property: string): string {
  return property.split(/[.[]/, 1)[0] ?? property;
}

/**
 * The declaration of one client: its values for `fields` (camelCase, renamed from the wire by the
 * schema), with what cannot be declared left out and noted. It depends on the client alone, so
 * `generate` makes it as each page arrives (its `planProgram`).
 */
export function declarationOf(
  client: WireClient,
  fields: readonly ClientSettingsField[],
): ClientDeclaration {
  const notes: string[] = [];
  const values: Partial<Record<ClientSettingsField, unknown>> = {};
  for (const field of writableFields(fields)) {
    const wire = client[wireName(field)];
    if (wire === undefined) continue;
    let value = fieldFromWire(field, wire);
    const dropped: string[] = [];
    if (field === "addons") value = withoutKeyMaterial(value, dropped);
    for (const path of dropped) notes.push(`${path} left out: key material`);
    const unknown: string[] = [];
    value = pruneUnknown(
      SCHEMAS.ClientSettings.properties[field] as SchemaNode,
      value,
      field,
      unknown,
    );
    for (const path of unknown) notes.push(`${path} left out: not a field a program can declare`);
    values[field] = value;
  }
  // A value the schema refuses would fail `check`: leave the field out. Removing fields only
  // removes failures, except the cross-field rule, hence a second round at most per field.
  for (let round = 0; round <= fields.length; round += 1) {
    const { failures } = checkInputs("ClientSettings", { clientId: client.client_id, ...values });
    if (failures.length === 0) break;
    for (const failure of failures) {
      const field = topField(failure.property) as ClientSettingsField;
      if (!Object.hasOwn(values, field)) continue;
      delete values[field];
      notes.push(`${field} left out: ${failure.property}: ${failure.reason}`);
    }
  }
  return { clientId: client.client_id, values, notes };
}
