/**
 * What a `ClientSettings` resource owns of its client: the paths it declares (docs/design/decisions.md,
 * "What a resource owns"). A path is a list of keys from the client's top level down, in the
 * wire's spelling (`["jwt_configuration", "lifetime_in_seconds"]`): the spelling the plan, the
 * prior values and the API all use, so that a path can be looked up in a live client, a PATCH
 * body or a remembered prior without a conversion. Keys of free-form maps (`client_metadata`,
 * `jwt_configuration.scopes`, add-on names) are the user's own keys, never renamed.
 *
 * Pure functions only.
 *
 * @module
 */

import { isPlainObject } from "../json.js";
import { isUnknown } from "../unknown.js";

/** One owned path: the keys from the client's top level down, in the wire's spelling. */
export type OwnedPath = readonly string[];

/**
 * The paths `values` declares, in declaration order. A resource owns:
 * - each key of a declared object, at any depth, and so each key of a map (`client_metadata`,
 *   `addons`, `jwt_configuration.scopes`): a non-empty object is never owned whole, only its keys;
 * - an array as one value (a leaf): the platform stores and replaces lists whole;
 * - a scalar or null as one value;
 * - an empty declared object as one value: what it owns is the object's presence (an add-on
 *   enabled with no settings, `addons.wsfed: {}`);
 * - a value still unknown at preview as one value, at the path where it stands.
 */
export function ownedPaths(values: Readonly<Record<string, unknown>>): OwnedPath[] {
  const paths: OwnedPath[] = [];
  const walk = (value: unknown, path: readonly string[]): void => {
    if (isPlainObject(value) && !isUnknown(value) && Object.keys(value).length > 0) {
      for (const [key, member] of Object.entries(value)) walk(member, [...path, key]);
      return;
    }
    paths.push(path);
  };
  for (const [wire, value] of Object.entries(values)) {
    if (value !== undefined) walk(value, [wire]);
  }
  return paths;
}

/** Whether `a` is `b` or lies inside it (`b` a prefix of `a`). */
function within(a: OwnedPath, b: OwnedPath): boolean {
  return b.length <= a.length && b.every((key, index) => a[index] === key);
}

/**
 * The pairs of paths two resources would both own: a path shared when one is the other or lies
 * inside it (`jwt_configuration` declared whole as `{}` and `jwt_configuration.alg`). Empty when
 * the two sets are disjoint.
 */
export function overlaps(
  a: readonly OwnedPath[],
  b: readonly OwnedPath[],
): Array<[OwnedPath, OwnedPath]> {
  const shared: Array<[OwnedPath, OwnedPath]> = [];
  for (const left of a) {
    for (const right of b) {
      if (within(left, right) || within(right, left)) shared.push([left, right]);
    }
  }
  return shared;
}
