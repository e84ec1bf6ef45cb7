/**
 * What a generated program declares, decided from what the tenant answered: one `ClientSettings`
 * per client with its id and the chosen fields exactly as the tenant holds them, and one
 * `PushProviderSelection`. Pure: the reads happen elsewhere (`reads.ts`), the text elsewhere
 * (`project.ts`).
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
import {
  type ClientSettingsField,
  checkInputs,
  fieldFromWire,
  PUSH_PROVIDERS,
  wireName,
} from "../schema/index.js";
import {
  itemSchema,
  memberSchema,
  propertiesOf,
  SCHEMAS,
  type SchemaNode,
} from "../schema/kinds.js";
import { ADDON_KEY_MATERIAL, SECRET_FIELDS, writableFields } from "./fields.js";

/** What a program declares of one client, whatever the resource is named. */
export interface ClientDeclaration {
  readonly clientId: string;
  /** The declared fields in the user's camelCase, in the schema's order, values as the tenant holds them. */
  readonly values: Readonly<Partial<Record<ClientSettingsField, unknown>>>;
  /** What was left out of this client and why (never a value). */
  readonly notes: readonly string[];
}

/** One adopted client: the resource to declare. */
export interface AdoptedClient extends ClientDeclaration {
  /** The Pulumi resource name, from the client's name. */
  readonly resourceName: string;
}

/** Everything a generated program declares. */
export interface ProgramPlan {
  /** The selected push provider, or undefined when the tenant answered none the schema knows. */
  readonly pushProvider: string | undefined;
  readonly clients: readonly AdoptedClient[];
  /** Notes about the whole program (secret fields left out, push provider left out). */
  readonly notes: readonly string[];
}

/** Longest resource name taken from a client's name, before any suffix. */
const MAX_NAME_LENGTH = 48;

/**
 * The readable part of a resource name: the client's name lowercased, accents dropped, every run
 * of other characters one `-` (`Customer Portal` → `customer-portal`), cut to a few dozen
 * characters; `client` when nothing is left.
 *
 * @internal
 */
export function slugOf(name: unknown): string {
  const text = typeof name === "string" ? name : "";
  const slug = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_NAME_LENGTH)
    .replace(/-+$/, "");
  return slug === "" ? "client" : slug;
}

/**
 * Resource names for clients, in the order given (the tenant's creation order): the slug of the
 * name, and for a later client whose slug is taken, the slug and the first 8 characters of its id
 * (the whole id if that is taken too). The first client keeps the plain name, so a client created
 * later with the same name never renames an adopted one. Names depend only on the clients, so an
 * unchanged tenant gives the same names on every run.
 *
 * @internal
 */
export function resourceNames(
  clients: readonly { readonly clientId: string; readonly name: unknown }[],
): string[] {
  const taken = new Set<string>();
  return clients.map(({ clientId, name }) => {
    const slug = slugOf(name);
    const candidates = [slug, `${slug}-${clientId.slice(0, 8)}`, `${slug}-${clientId}`];
    // The whole id is unique among clients; the counter only guards against a name that happens
    // to look like another client's suffixed one.
    let chosen = candidates.find((candidate) => !taken.has(candidate));
    for (let n = 2; chosen === undefined && n <= clients.length + 1; n += 1) {
      const numbered = `${slug}-${clientId}-${n}`;
      if (!taken.has(numbered)) chosen = numbered;
    }
    const result = chosen ?? `${slug}-${clientId}-${clients.length + 2}`;
    taken.add(result);
    return result;
  });
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
 * generate makes it as each page arrives (see {@link planProgram}).
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

/**
 * The whole program: the clients (already selected, in the order to declare them) and the push
 * provider as the tenant answered it. `declared` holds declarations already made of some clients
 * with the same `fields`, by client id ({@link declarationOf}): generate makes them as the pages
 * arrive, in the time the rate limit has the next page wait, so that only the names (which depend
 * on every client) are left for the end.
 */
export function planProgram(input: {
  readonly clients: readonly WireClient[];
  readonly pushProvider: unknown;
  readonly fields: readonly ClientSettingsField[];
  readonly declared?: ReadonlyMap<string, ClientDeclaration>;
}): ProgramPlan {
  const names = resourceNames(
    input.clients.map((client) => ({ clientId: client.client_id, name: client.name })),
  );
  const clients = input.clients.map((client, index) => ({
    resourceName: names[index] ?? client.client_id,
    ...(input.declared?.get(client.client_id) ?? declarationOf(client, input.fields)),
  }));
  const notes: string[] = [];
  for (const field of input.fields) {
    const secret = SECRET_FIELDS[field];
    if (secret !== undefined) {
      notes.push(
        `${field} left out of every client: ${secret.what} is secret and never written. To ` +
          `manage it, declare ${field}: ${secret.read}("<client>-${field}") (config being a ` +
          `pulumi.Config) and set it with \`pulumi config set --secret <client>-${field}\``,
      );
    }
  }
  const known = (PUSH_PROVIDERS as readonly unknown[]).includes(input.pushProvider);
  if (!known) {
    notes.push(
      `PushProviderSelection left out: the tenant answered no known push provider ` +
        `(expected one of ${PUSH_PROVIDERS.join(", ")})`,
    );
  }
  return {
    pushProvider: known ? (input.pushProvider as string) : undefined,
    clients,
    notes,
  };
}
