/**
 * What a `ClientSettings` program declares, worked out once from its inputs (or, for the last
 * update, from the stored outputs): which client fields, in the API's form, each with the strategy
 * its schema annotates. Every decision of the plan (`plan/client-settings.ts`) takes this value,
 * never the raw inputs.
 *
 * @module
 */

import { connectionOutput } from "../connection/change.js";
import type { Props } from "../json.js";
import {
  CLIENT_SETTINGS_FIELDS,
  type ClientSettingsField,
  fieldToWire,
  NAME_KEY,
  wireName,
} from "../schema/index.js";
import { clientFieldSchema } from "../schema/wire.js";
import { type FieldStrategy, strategyOf } from "./field-strategies.js";
import { type OwnedPath, ownedPaths } from "./owned-paths.js";

/** Values keyed by the wire names of client fields (`jwt_configuration`), in the wire's spelling. */
export type WireFields = Record<string, unknown>;

/** One client field: its name for the user and on the wire, and how it behaves. */
export interface ClientField {
  readonly field: ClientSettingsField;
  readonly wire: string;
  readonly strategy: FieldStrategy;
}

/** Every client field, in the schema's order, with the strategy its schema's annotation chooses. */
export const CLIENT_FIELDS: readonly ClientField[] = CLIENT_SETTINGS_FIELDS.map((field) => ({
  field,
  wire: wireName(field),
  strategy: strategyOf(clientFieldSchema(field)),
}));

const BY_WIRE_NAME: ReadonlyMap<string, ClientField> = new Map(
  CLIENT_FIELDS.map((entry) => [entry.wire, entry]),
);

/** The field behind a wire name; every key of a {@link WireFields} has one. */
export function fieldByWireName(wire: string): ClientField {
  const entry = BY_WIRE_NAME.get(wire);
  if (entry === undefined) throw new Error(`not a client field: ${wire}`);
  return entry;
}

/** What a program declares of one client, in the API's form: see {@link declaredClient}. */
export interface DeclaredClient {
  /** The client whose settings these are. */
  readonly clientId: string;
  /** The declared fields (reserved keys and `clientId` left out), in the schema's order. */
  readonly fields: readonly ClientField[];
  /** Their values by wire name, in the wire's spelling. */
  readonly values: WireFields;
  /** The paths those values own (`plan/owned-paths.ts`), worked out once. */
  readonly owned: readonly OwnedPath[];
  /** What every report begins with: the resource's name, the client and the connection. */
  readonly identity: Props;
}

/**
 * The fields the tenant answers only to credentials with `read:client_keys` (or
 * `read:client_credentials`), whether they are set or not (docs/design/platform.md, "Key material in
 * answers"). An answer that holds none of them may be hiding them all.
 */
export const KEY_MATERIAL: readonly string[] = [
  "client_secret",
  "encryption_key",
  "client_authentication_methods",
];

/**
 * What `props` (the inputs, or the outputs stored for the last ones) declare: the one conversion
 * of what the user wrote into the wire's spelling (docs/design/platform.md, "Names on the wire"). A
 * declared null stays null: it is sent as null, which removes the field, and compares equal to a
 * field the answer leaves out (docs/design/platform.md, "How a PATCH applies").
 */
export function declaredClient(props: Props): DeclaredClient {
  const fields = CLIENT_FIELDS.filter(({ field }) => props[field] !== undefined);
  const values: WireFields = {};
  for (const { field, wire } of fields) {
    values[wire] = fieldToWire(field, props[field]);
  }
  const owned = ownedPaths(values);
  const identity = { [NAME_KEY]: props[NAME_KEY], clientId: props.clientId };
  return {
    clientId: String(props.clientId),
    fields,
    values,
    owned,
    identity: { ...identity, ...connectionOutput(props) },
  };
}
