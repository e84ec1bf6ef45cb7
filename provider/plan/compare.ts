import { isDeepStrictEqual } from "node:util";
import { isPlainObject, own } from "../json.js";
import { isUnknown } from "../unknown.js";

/**
 * How declared values are compared with live ones, in whichever spelling both are in (the plan
 * uses the wire's). The platform adds defaults inside the objects
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

/**
 * `live` cut down to the keys `declared` declares, recursively; what the outputs of a resource
 * keep, so that a refresh reports drift only in what the program manages. A key absent from the
 * live object becomes null, so that it stays visible (and different from a declared value).
 */
export function project(live: unknown, declared: unknown): unknown {
  if (isPlainObject(declared) && isPlainObject(live)) {
    return Object.fromEntries(
      Object.entries(declared).map(([key, value]) => [key, project(own(live, key), value)]),
    );
  }
  return normalizeAbsent(live);
}

/**
 * `declared` laid over `live`: objects merge key by key (recursively), anything else is taken
 * from `declared`. This is what a PATCH sends for a declared object, because the platform replaces
 * a top-level object whole: sending only the declared keys would silently reset the keys the
 * program does not manage to the platform's defaults.
 */
export function overlay(live: unknown, declared: unknown): unknown {
  if (isPlainObject(declared) && isPlainObject(live)) {
    // Built with fromEntries, not assignment, so that a `__proto__` key stays a plain key.
    const keys = new Set([...Object.keys(live), ...Object.keys(declared)]);
    return Object.fromEntries(
      [...keys].map((key) => [
        key,
        Object.hasOwn(declared, key) ? overlay(own(live, key), declared[key]) : live[key],
      ]),
    );
  }
  return declared;
}

function normalizeAbsent(value: unknown): unknown {
  return value === undefined ? null : value;
}
