/**
 * How each kind of client field is compared, sent, remembered and restored: one strategy per kind,
 * chosen for a field by the `x-strategy` annotation of its schema (see {@link strategyOf}). Every
 * value here is in the wire's spelling: declared values converted once, live values as the API
 * answered them, prior values as they were remembered. Pure functions only.
 *
 * The platform facts behind them are in docs/platform.md ("How a PATCH applies"), the choices in
 * docs/decisions.md ("Declared objects", "Client metadata", "Fields fixed at creation").
 *
 * @module
 */

import { isPlainObject, own } from "../json.js";
import type { SchemaNode } from "../schema/kinds.js";
import { matchesDeclared, overlay } from "./compare.js";

/** The kinds of client field, as the `x-strategy` annotation names them. */
type StrategyName = "value" | "object" | "map" | "fixed";

/** The annotation keyword that names a field's strategy. */
const STRATEGY_KEYWORD = "x-strategy";

/** How one kind of field behaves. `current` is the live value, or the last reported one. */
export interface FieldStrategy {
  readonly name: StrategyName;
  /** Whether `current` already holds what the program declares. */
  same(current: unknown, wanted: unknown): boolean;
  /**
   * What to PATCH for a declared value, undefined when nothing needs sending. `before` is the
   * value the program declared last time and `prior` the remembered one (undefined at create).
   */
  send(current: unknown, wanted: unknown, before: unknown, prior: unknown): unknown;
  /** Whether an update must read the live client to decide this field. */
  needsLive(changed: boolean, wanted: unknown, prior: unknown): boolean;
  /**
   * The prior value to remember from now on, undefined for none. `known` is the one remembered so
   * far, `live` the client's value when it was read, `added` whether the program just declared
   * the field, `changed` whether its declared value changed.
   */
  remember(
    known: unknown,
    live: unknown,
    wanted: unknown,
    state: { added: boolean; changed: boolean },
  ): unknown;
  /** What to PATCH to put a field that left the program back, undefined when nothing. */
  restore(prior: unknown, current: unknown): unknown;
}

/**
 * A plain value: compared whole, sent whole, restored whole. A list that may be null but not
 * empty (`emptyListAsNull`) is restored as null when it was empty: the platform takes both to
 * mean "none" but refuses an empty one in a PATCH (docs/platform.md).
 */
function valueStrategy(options: { emptyListAsNull: boolean }): FieldStrategy {
  return {
    name: "value",
    same: matchesDeclared,
    send: (current, wanted) => (matchesDeclared(current, wanted) ? undefined : wanted),
    needsLive: () => false,
    remember: (known, live, _wanted, { added }) => (added && live !== undefined ? live : known),
    restore: (prior, current) => {
      if (prior === undefined) return undefined;
      if (matchesDeclared(current, prior) && current !== undefined) return undefined;
      return options.emptyListAsNull && Array.isArray(prior) && prior.length === 0 ? null : prior;
    },
  };
}

/**
 * An object compared on the keys the program declares (the platform adds defaults inside it) and
 * sent merged over the live one, because the platform replaces a top-level object whole: keys the
 * program does not declare keep their values. Merging needs the live object.
 */
function objectStrategy(): FieldStrategy {
  const value = valueStrategy({ emptyListAsNull: false });
  return {
    ...value,
    name: "object",
    send: (current, wanted) =>
      matchesDeclared(current, wanted) ? undefined : overlay(current, wanted),
    needsLive: (changed, wanted) => changed && isPlainObject(wanted),
  };
}

/**
 * A free-form map the platform merges key by key (`clientMetadata`), where a `null` value removes
 * a key. Only declared keys are ever sent; a key that leaves the program goes back to its prior
 * value, or is removed if this resource added it. The prior value is remembered per key, so a
 * newly declared key needs the live client.
 */
function mapStrategy(): FieldStrategy {
  return {
    name: "map",
    same: (current, wanted) => {
      // Keys that left the map are a change too: they must be restored or removed.
      if (isPlainObject(current) && isPlainObject(wanted)) {
        const left = Object.keys(current).some((key) => !Object.hasOwn(wanted, key));
        if (left) return false;
      }
      return matchesDeclared(current, wanted);
    },
    send: mapChanges,
    needsLive: (_changed, wanted, prior) => newKeys(prior, wanted).length > 0,
    remember: (known, live, wanted, { changed }) =>
      changed ? mapPrior(known, live, wanted) : known,
    restore: (prior, current) => {
      if (!isPlainObject(prior))
        return valueStrategy({ emptyListAsNull: false }).restore(prior, current);
      // Only the keys this resource managed; null removes a key it added.
      return Object.keys(prior).length > 0 ? { ...prior } : undefined;
    },
  };
}

/**
 * A value the platform fixes when the client is created (`thirdPartySecurityMode`): never sent
 * (an equal value needs no PATCH, a different one is refused before anything is sent, see
 * `refuseFixedChange` in the plan), never restored. A declared change needs the live value.
 */
function fixedStrategy(): FieldStrategy {
  const value = valueStrategy({ emptyListAsNull: false });
  return {
    ...value,
    name: "fixed",
    send: () => undefined,
    needsLive: (changed) => changed,
    restore: () => undefined,
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
      return objectStrategy();
    case "map":
      return mapStrategy();
    case "fixed":
      return fixedStrategy();
    case "value":
      return valueStrategy({
        emptyListAsNull:
          types.includes("null") && typeof schema.minItems === "number" && schema.minItems > 0,
      });
  }
}

/**
 * The map keys to send: declared keys whose value differs from `current`, and keys the program
 * declared `before` but no longer does, with their prior value or null (which removes a key this
 * resource added). Keys the program never declared are never sent.
 */
function mapChanges(
  current: unknown,
  wanted: unknown,
  before: unknown,
  prior: unknown,
): Record<string, unknown> | undefined {
  const from = isPlainObject(current) ? current : {};
  const want = isPlainObject(wanted) ? wanted : {};
  const remembered = isPlainObject(prior) ? prior : {};
  // Entries, own-property checks and fromEntries throughout: the keys are the user's, and
  // `__proto__`, `constructor` or `toString` must be plain keys, never the prototype's.
  const changes: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(want)) {
    if (own(from, key) !== value) changes.push([key, value]);
  }
  for (const key of Object.keys(isPlainObject(before) ? before : {})) {
    if (!Object.hasOwn(want, key)) {
      const value = own(remembered, key);
      changes.push([key, typeof value === "string" ? value : null]);
    }
  }
  return changes.length > 0 ? Object.fromEntries(changes) : undefined;
}

/** Declared map keys that have no remembered prior value yet. */
function newKeys(prior: unknown, wanted: unknown): string[] {
  if (!isPlainObject(wanted)) return [];
  const known = isPlainObject(prior) ? prior : {};
  return Object.keys(wanted).filter((key) => !Object.hasOwn(known, key));
}

/** The prior value of each declared key: the remembered one, else the live one, else null. */
function mapPrior(known: unknown, live: unknown, wanted: unknown): Record<string, unknown> {
  const remembered = isPlainObject(known) ? known : {};
  const current = isPlainObject(live) ? live : {};
  return Object.fromEntries(
    Object.keys(isPlainObject(wanted) ? wanted : {}).map((key) => [
      key,
      Object.hasOwn(remembered, key) ? remembered[key] : (own(current, key) ?? null),
    ]),
  );
}
