/**
 * How each kind of client field is compared, and how a whole field is put back: one
 * strategy per kind, chosen for a field by the `x-strategy` annotation of its schema (see
 * {@link strategyOf}). What is remembered and put back is decided per owned path
 * (`plan/prior-paths.ts`). Every value here is in the wire's spelling: declared values converted
 * once, live values as the API answered them, prior values as they were remembered. Pure
 * functions only.
 *
 * The platform facts behind them are in docs/design/platform.md ("How a PATCH applies"), the choices in
 * docs/design/decisions.md ("Field strategies", "What a resource owns").
 *
 * @module
 */

import { isPlainObject } from "../json.js";
import type { SchemaNode } from "../schema/kinds.js";
import { matchesDeclared } from "./compare.js";

/** The kinds of client field, as the `x-strategy` annotation names them. */
type StrategyName = "value" | "object" | "map" | "fixed";

/** The annotation keyword that names a field's strategy. */
const STRATEGY_KEYWORD = "x-strategy";

/** How one kind of field behaves. `current` is the live value, or the last reported one. */
export interface FieldStrategy {
  readonly name: StrategyName;
  /** Whether `current` already holds what the program declares. */
  same(current: unknown, wanted: unknown): boolean;
  /** Whether an update must read the live client to send this field's declared value. */
  needsLive(changed: boolean, wanted: unknown): boolean;
  /** What to PATCH to put the whole field back to `prior`, undefined when it is never put back. */
  putBack(prior: unknown): unknown;
  /**
   * What a PATCH sends for "no value" in this field, undefined when the API cannot express it
   * (docs/design/decisions.md, "What a resource owns"): null for a nullable field, the empty string for
   * an `-or-empty` format, an empty object for an object that cannot be null.
   */
  readonly absent: unknown;
}

/**
 * A plain value: compared whole, sent whole, restored whole. A list that may be null but not
 * empty (`emptyListAsNull`) is restored as null when it was empty: the platform takes both to
 * mean "none" but refuses an empty one in a PATCH (docs/design/platform.md).
 */
function valueStrategy(options: { emptyListAsNull: boolean; absent: unknown }): FieldStrategy {
  return {
    name: "value",
    same: matchesDeclared,
    needsLive: () => false,
    putBack: (prior) =>
      options.emptyListAsNull && Array.isArray(prior) && prior.length === 0 ? null : prior,
    absent: options.absent,
  };
}

/**
 * An object compared on the keys the program declares (the platform adds defaults inside it) and
 * written path by path (`plan/writes.ts`); where the object may be replaced, the rest of it is
 * sent as it is live (`plan/patch-body.ts`), which needs the live object.
 */
function objectStrategy(absent: unknown): FieldStrategy {
  const value = valueStrategy({ emptyListAsNull: false, absent });
  return {
    ...value,
    name: "object",
    needsLive: (changed, wanted) => changed && isPlainObject(wanted),
  };
}

/**
 * A free-form map the platform merges key by key (`clientMetadata`), where a `null` value removes
 * a key. Only declared keys are ever sent; a key that leaves the program goes back to its prior
 * value, or is removed if the client did not have it (the plan puts back per key). A newly
 * declared key needs the live client, to remember its prior.
 */
function mapStrategy(): FieldStrategy {
  return {
    name: "map",
    same: (current, wanted) => {
      // Keys that left the map are a change too: they must be put back or removed.
      if (isPlainObject(current) && isPlainObject(wanted)) {
        const left = Object.keys(current).some((key) => !Object.hasOwn(wanted, key));
        if (left) return false;
      }
      return matchesDeclared(current, wanted);
    },
    needsLive: () => false,
    putBack: () => undefined,
    absent: undefined,
  };
}

/**
 * A value the platform fixes when the client is created (`thirdPartySecurityMode`): never sent
 * (an equal value needs no PATCH, a different one is refused before anything is sent, see
 * `refuseFixedChange` in the plan), never restored. A declared change needs the live value.
 */
function fixedStrategy(): FieldStrategy {
  const value = valueStrategy({ emptyListAsNull: false, absent: undefined });
  return {
    ...value,
    name: "fixed",
    needsLive: (changed) => changed,
    putBack: () => undefined,
  };
}

/**
 * The strategy of a field from its schema: the `x-strategy` annotation when there is one, else
 * `object` for a field that may hold an object and `value` for any other.
 */
export function strategyOf(schema: SchemaNode): FieldStrategy {
  const annotated = schema[STRATEGY_KEYWORD];
  const types = [schema.type].flat();
  const name: StrategyName =
    annotated === "value" || annotated === "object" || annotated === "map" || annotated === "fixed"
      ? annotated
      : types.includes("object")
        ? "object"
        : "value";
  switch (name) {
    case "object":
      return objectStrategy(absentOf(schema));
    case "map":
      return mapStrategy();
    case "fixed":
      return fixedStrategy();
    case "value":
      return valueStrategy({
        emptyListAsNull:
          types.includes("null") && typeof schema.minItems === "number" && schema.minItems > 0,
        absent: absentOf(schema),
      });
  }
}

/**
 * How the API is told a field has no value, from its schema (the spec's field table): null when
 * the field may be null, the empty string for an `-or-empty` format, an empty object for an object
 * that cannot be null; undefined when it cannot be told (a boolean, an enum or a list without
 * null: the platform keeps a value there, or its default).
 */
function absentOf(schema: SchemaNode): unknown {
  const types = [schema.type].flat();
  if (types.includes("null")) return null;
  if (typeof schema.format === "string" && schema.format.endsWith("-or-empty")) return "";
  if (types.includes("object")) return {};
  return undefined;
}
