/**
 * What an operation of `ClientSettings` writes, path by path, before it becomes a PATCH body
 * (`plan/patch-body.ts`): the owned paths a changed declaration sets, the priors a put-back lays
 * back (a value, or the path's removal), and whether the tenant already holds each, so that a
 * write the tenant holds is never sent (docs/design/decisions.md, "What a resource owns"). The same
 * predicate checks the answer afterwards (`plan/answer-check.ts`). Pure functions only; paths
 * and values in the wire's spelling.
 *
 * @module
 */

import { isPlainObject, own } from "../json.js";
import { matchesDeclared } from "./compare.js";
import { fieldByWireName, type WireFields } from "./declared.js";
import { type OwnedPath, ownedPaths } from "./owned-paths.js";
import type { PriorEntry } from "./prior-paths.js";

/** One path a PATCH sets to `value`, or removes (`remove`). */
export type Write =
  | { readonly path: OwnedPath; readonly value: unknown }
  | { readonly path: OwnedPath; readonly remove: true };

/** What `root` holds at `path`; undefined where it holds nothing. */
export function valueAt(root: unknown, path: OwnedPath): unknown {
  let node = root;
  for (const key of path) {
    if (!isPlainObject(node)) return undefined;
    node = own(node, key);
  }
  return node;
}

/**
 * Whether `at` (what the tenant holds at a write's path) is what the write makes it: for a
 * removal, or a null (which removes: docs/design/platform.md, "How a PATCH applies"), nothing (an
 * empty object is something: an add-on enabled with no settings); for the empty string, which the
 * platform stores for some fields and takes as removal for others, either; else a value agreeing
 * on what the write declares.
 */
export function holds(at: unknown, write: Write): boolean {
  const value = "value" in write ? write.value : null;
  if (value === null) return at === undefined || at === null;
  if (value === "") return at === "" || at === undefined || at === null;
  return matchesDeclared(at, value);
}

/** Whether a field is ever written: the fields fixed at creation are not. */
export function isWritten(wire: string): boolean {
  return fieldByWireName(wire).strategy.name !== "fixed";
}

/**
 * The writes of the declared fields `changed` (wire names): each owned path of the declared
 * value set to it, so that under a merging object only the paths the resource owns are sent;
 * those `current` (the live client, or the last report) already holds left out.
 */
export function declaredWrites(
  declared: WireFields,
  changed: readonly string[],
  current: WireFields,
): Write[] {
  const fields = Object.fromEntries(
    changed.filter((wire) => isWritten(wire)).map((wire) => [wire, declared[wire]]),
  );
  return ownedPaths(fields)
    .map((path) => ({ path, value: valueAt(declared, path) }))
    .filter((write) => !holds(valueAt(current, write.path), write));
}

/**
 * The writes that put `entries` back over `current`, what the program still declares being
 * `declared`: a prior value is set at its path (a whole field as its strategy puts it back); an
 * absent prior removes the part of the path the client lacked, no more, and never a path still
 * declared. A field the client did not have at all, in which the program declares nothing more,
 * goes back as the field's absence: null for a nullable object, removing what the platform filled
 * in with it; each owned member removed for an object that cannot be null. Absence the API cannot
 * express is not written (the preview warns of it). Writes `current` already holds are left out.
 */
export function putBackWrites(
  entries: readonly PriorEntry[],
  current: WireFields,
  declared: WireFields,
): Write[] {
  const stillOwned = ownedPaths(declared);
  const writes = new Map<string, Write>();
  for (const entry of entries) {
    const [wire] = entry.path;
    if (wire === undefined || !isWritten(wire)) continue;
    const { strategy } = fieldByWireName(wire);
    if (strategy.name === "map" && entry.path.length < 2) continue;
    for (const write of putBack(entry, strategy, declared[wire] === undefined, stillOwned)) {
      writes.set(JSON.stringify(write.path), write);
    }
  }
  return [...writes.values()].filter((write) => !holds(valueAt(current, write.path), write));
}

function putBack(
  entry: PriorEntry,
  strategy: ReturnType<typeof fieldByWireName>["strategy"],
  fieldLeft: boolean,
  stillOwned: readonly OwnedPath[],
): Write[] {
  const { path } = entry;
  if ("value" in entry) {
    if (path.length > 1) return [{ path, value: entry.value }];
    const value = strategy.putBack(entry.value);
    return value === undefined ? [] : [{ path, value }];
  }
  const wholeField = path.length === 1 || (entry.absentBelow === 0 && fieldLeft);
  if (wholeField && strategy.absent !== undefined && !isPlainObject(strategy.absent)) {
    return [{ path: path.slice(0, 1), value: strategy.absent }];
  }
  if (path.length === 1) return [];
  // The first key the client lacked, or deeper where a shorter path would take a declared one.
  for (let depth = Math.max(entry.absentBelow, 1) + 1; depth <= path.length; depth += 1) {
    const node = path.slice(0, depth);
    const declaredBelow = stillOwned.some((owned) => node.every((key, at) => owned[at] === key));
    if (!declaredBelow) return [{ path: node, remove: true }];
  }
  return [];
}
