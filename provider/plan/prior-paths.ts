/**
 * The prior of each path a `ClientSettings` owns (`plan/owned-paths.ts`): what the client held there
 * before the resource managed it, absent included (what a put-back writes from them is
 * `plan/writes.ts`) (docs/design/decisions.md, "What a resource owns" and "Prior values in the state"). Pure
 * functions only; every path and value in the wire's spelling.
 *
 * @module
 */

import { isPlainObject, own } from "../json.js";
import { fieldToWire } from "../schema/index.js";
import { isUserSpelled } from "../schema/wire.js";
import { CLIENT_FIELDS, KEY_MATERIAL, type WireFields } from "./declared.js";
import { type OwnedPath, ownedPaths } from "./owned-paths.js";

/**
 * The prior of one owned path. `value` is what the client held there; when it held nothing,
 * `absentBelow` says how many keys of the path it did hold: 0 when the whole top-level field was
 * absent, 1 when the field was there but not its first key, and so on. Putting an absent path
 * back removes the part of the path the client lacked, no more.
 */
export type PriorEntry =
  | { readonly path: OwnedPath; readonly value: unknown }
  | { readonly path: OwnedPath; readonly absentBelow: number };

/** A path as a lookup key (keys are the user's: a dot-joined text could mix two paths up). */
export function pathKey(path: OwnedPath): string {
  return JSON.stringify(path);
}

/** What `root` holds at `path`, or how many of its keys `root` holds when nothing is there. */
function valueAt(
  root: unknown,
  path: OwnedPath,
): { found: true; value: unknown } | { found: false; depth: number } {
  let node = root;
  for (const [depth, key] of path.entries()) {
    if (!isPlainObject(node) || !Object.hasOwn(node, key)) return { found: false, depth };
    node = node[key];
  }
  return node === undefined ? { found: false, depth: path.length } : { found: true, value: node };
}

/** The prior of `path` on `live`: its value there, or how much of the path `live` held. */
export function priorOf(live: WireFields, path: OwnedPath): PriorEntry {
  const at = valueAt(live, path);
  return at.found ? { path, value: at.value } : { path, absentBelow: at.depth };
}

/**
 * The priors kept in a state's `prior` output, for the paths `declared` (what the stored outputs
 * declare) owns. The shape since issue 54 is `{ paths: PriorEntry[] }`. Before it, the output
 * held one whole value per top-level field, under the user's field names (values in the wire's
 * spelling, or the user's in 0.1.0, recognised and converted as 0.1.0 did): each owned path's prior
 * is then read inside that value; a map key remembered as null (added by the resource), and a
 * field with no value remembered (the client had none), are absent (docs/design/decisions.md, "Prior
 * values in the state").
 */
export function loadPriorPaths(stored: unknown, declared: WireFields): PriorEntry[] {
  if (!isPlainObject(stored)) return [];
  if (Array.isArray(stored.paths)) return stored.paths.filter(isPriorEntry);
  const whole: WireFields = {};
  for (const { field, wire, strategy } of CLIENT_FIELDS) {
    const value = own(stored, field);
    if (value === undefined) continue;
    const converted = isUserSpelled(field, value) ? fieldToWire(field, value) : value;
    whole[wire] = strategy.name === "map" ? withoutNulls(converted) : converted;
  }
  // Key material with no remembered value may have been hidden from the credentials of the time,
  // not absent: nothing is put back for it rather than a null that would remove a key.
  return ownedPaths(declared)
    .filter(([wire = ""]) => Object.hasOwn(whole, wire) || !KEY_MATERIAL.includes(wire))
    .map((path) => priorOf(whole, path));
}

/** The priors as the state keeps them: see {@link loadPriorPaths}. */
export function storePriorPaths(entries: readonly PriorEntry[]): { paths: PriorEntry[] } {
  return { paths: [...entries] };
}

function isPriorEntry(entry: unknown): entry is PriorEntry {
  return (
    isPlainObject(entry) &&
    Array.isArray(entry.path) &&
    entry.path.every((key) => typeof key === "string") &&
    (Object.hasOwn(entry, "value") || typeof entry.absentBelow === "number")
  );
}

/** A remembered map whose null values (keys the resource added) are taken out: they were absent. */
function withoutNulls(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== null));
}
