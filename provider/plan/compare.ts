import { isDeepStrictEqual } from "node:util";
import { isPlainObject, own } from "../json.js";
import { isUnknown } from "../unknown.js";

/**
 * How declared values, and the values a write sends, are compared with live ones, in whichever
 * spelling both are in (the plan uses the wire's). The platform adds defaults inside the objects
 * it stores (a declared `jwtConfiguration: {lifetimeInSeconds: 3600}` comes back with `alg`,
 * `secretEncoded`, ...), so a live object matches a declared one when it agrees on the keys the
 * program declares; arrays and scalars must be equal.
 *
 * @module
 */

/**
 * True when `live` agrees with `declared` on everything `declared` declares. A value still
 * unknown at preview never matches: it may change anything.
 */
export function matchesDeclared(live: unknown, declared: unknown): boolean {
  if (isUnknown(declared)) return false;
  if (isPlainObject(declared)) {
    if (!isPlainObject(live)) return false;
    return Object.entries(declared).every(([key, value]) => matchesDeclared(own(live, key), value));
  }
  return isDeepStrictEqual(normalizeAbsent(live), normalizeAbsent(declared));
}

/** What `root` holds at `path` (keys from the top down); undefined where it holds nothing. */
export function heldAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (!isPlainObject(node)) return undefined;
    node = own(node, key);
  }
  return node;
}

/**
 * Whether `at` (what the tenant holds at a write's path) is what the write of `value` there makes
 * it, `undefined` standing for a removal: for a removal, or a null (which removes:
 * docs/design/platform.md, "How a PATCH applies"), nothing (an empty object is something: an
 * add-on enabled with no settings); for the empty string, which the platform stores for some
 * fields and takes as removal for others, either; else a value agreeing on what the write declares.
 */
export function holds(at: unknown, value: unknown): boolean {
  if (value === undefined || value === null) return at === undefined || at === null;
  if (value === "") return at === "" || at === undefined || at === null;
  return matchesDeclared(at, value);
}

function normalizeAbsent(value: unknown): unknown {
  return value === undefined ? null : value;
}
