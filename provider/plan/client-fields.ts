/**
 * The client fields as the plan sees them (wire name, strategy), and the conversions at the edge
 * of the plan: declared inputs and stored outputs into the wire's spelling, once; reported values
 * back into the user's; prior values in and out of the state.
 *
 * @module
 */

import { isPlainObject } from "../json.js";
import {
  CLIENT_SETTINGS_FIELDS,
  type ClientSettingsField,
  fieldFromWire,
  fieldToWire,
  wireName,
} from "../schema/index.js";
import { clientFieldSchema, isUserSpelled } from "../schema/wire.js";
import { type FieldStrategy, strategyOf } from "./field-strategies.js";

/** Values keyed by the wire names of client fields (`jwt_configuration`), in the wire's spelling. */
export type WireFields = Record<string, unknown>;

/** One client field: its name for the user and on the wire, and how it behaves. */
export interface ClientField {
  readonly field: ClientSettingsField;
  readonly wire: string;
  readonly strategy: FieldStrategy;
}

/** Every client field, in the schema's order. */
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

/**
 * The client fields that inputs or outputs declare (reserved keys and `clientId` left out), in
 * the wire's spelling: the one conversion of what the user wrote.
 */
export function declaredFields(props: Record<string, unknown>): WireFields {
  const fields: WireFields = {};
  for (const { field, wire } of CLIENT_FIELDS) {
    if (props[field] !== undefined) fields[wire] = fieldToWire(field, props[field]);
  }
  return fields;
}

/** A reported value: the wire value in the user's spelling (only reported values are converted). */
export function reportedValue(wire: string, value: unknown): unknown {
  return fieldFromWire(fieldByWireName(wire).field, value);
}

/**
 * The prior values of a stored state, by wire name. The state keeps them under the user's field
 * names (the `prior` output has kept that shape since 0.1.0) with values in the wire's spelling,
 * so that keys the platform added inside an object are kept exactly. Version 0.1.0 stored the
 * values in the user's spelling: such a value is recognised by a declared member spelled the
 * user's way and converted as 0.1.0 itself did (docs/decisions.md, "Prior values in the state").
 */
export function loadPrior(stored: unknown): WireFields {
  const prior: WireFields = {};
  if (!isPlainObject(stored)) return prior;
  for (const { field, wire } of CLIENT_FIELDS) {
    if (!Object.hasOwn(stored, field) || stored[field] === undefined) continue;
    const value = stored[field];
    prior[wire] = isUserSpelled(field, value) ? fieldToWire(field, value) : value;
  }
  return prior;
}

/** The prior values as the state keeps them: see {@link loadPrior}. */
export function storePrior(prior: WireFields): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(prior).map(([wire, value]) => [fieldByWireName(wire).field, value]),
  );
}
