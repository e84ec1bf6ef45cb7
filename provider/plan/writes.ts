/**
 * What an operation of `ClientSettings` writes, path by path, before it becomes a PATCH body
 * (`plan/patch-body.ts`): the owned paths a changed declaration sets, the priors a put-back lays
 * back (a value, or the path's removal), less what the tenant already holds, so that a write the
 * tenant holds is never sent (docs/design/decisions.md, "What a resource owns"). The same predicate
 * (`holds`, `plan/compare.ts`) checks the answer afterwards (`plan/answer-check.ts`). Pure
 * functions only; paths and values in the wire's spelling.
 *
 * @module
 */

import { isPlainObject } from "../json.js";
import { heldAt, holds } from "./compare.js";
import { fieldByWireName, type WireFields } from "./declared.js";
import type { OwnedPath } from "./owned-paths.js";
import type { PriorEntry } from "./prior-paths.js";

/** One path a PATCH sets to `value`, or removes (`remove`). */
export type Write =
  | { readonly path: OwnedPath; readonly value: unknown }
  | { readonly path: OwnedPath; readonly remove: true };

/** What `write` sends at its path; undefined for a removal. */
export function sentValue(write: Write): unknown {
  return "value" in write ? write.value : undefined;
}

/** Whether a field is ever written: the fields fixed at creation are not. */
export function isWritten(wire: string): boolean {
  return fieldByWireName(wire).strategy.name !== "fixed";
}

/** What an operation writes, before the live client is looked at: see {@link operationWrites}. */
export interface WritesOf {
  /** The paths the program declares now (`DeclaredClient.owned`). */
  readonly owned: readonly OwnedPath[];
  /** Their values, by wire name. */
  readonly values: WireFields;
  /** The declared fields to write: every one at create, those that changed at update. */
  readonly changed: readonly string[];
  /** The priors to put back: of the paths that left the program, or every one at delete. */
  readonly putBack: readonly PriorEntry[];
}

/**
 * The writes of an operation over `current` (the live client, or the last report):
 *
 * - each owned path of a changed declared field set to its declared value, so that under a merging
 *   object only the paths the resource owns are sent;
 * - each prior put back: a value set at its path (a whole field as its strategy puts it back); an
 *   absent prior removes the part of the path the client lacked, no more, and never a path still
 *   declared. A field the client did not have at all, in which the program declares nothing more,
 *   goes back as the field's absence: null for a nullable object, removing what the platform
 *   filled in with it; each owned member removed for an object that cannot be null. Absence the
 *   API cannot express is not written (the preview warns of it).
 *
 * Writes `current` already holds are left out: a put-back whose prior the tenant holds sends nothing.
 */
export function operationWrites(of: WritesOf, current: WireFields): Write[] {
  const { owned, values } = of;
  const writes = new Map<string, Write>();
  const add = (write: Write) => writes.set(JSON.stringify(write.path), write);
  const declaredNulls = new Set<string>();
  for (const path of owned) {
    const [wire = ""] = path;
    if (!of.changed.includes(wire) || !isWritten(wire)) continue;
    const value = heldAt(values, path);
    // A declared null inside an object the client lacks is sent: it declares the object too.
    if (value === null && path.length > 1 && !isPlainObject(heldAt(current, path.slice(0, -1)))) {
      declaredNulls.add(JSON.stringify(path));
    }
    add({ path, value });
  }
  for (const entry of of.putBack) {
    const [wire] = entry.path;
    if (wire === undefined || !isWritten(wire)) continue;
    const { strategy } = fieldByWireName(wire);
    if (strategy.name === "map" && entry.path.length < 2) continue;
    putBack(entry, strategy, values[wire] === undefined, owned).forEach(add);
  }
  return [...writes.values()].filter((write) => {
    if (declaredNulls.has(JSON.stringify(write.path))) return true;
    const at = heldAt(current, write.path);
    const value = sentValue(write);
    // An answer may show the empty string as nothing (holds), but nothing does not hold it yet:
    // the platform stores it as sent in most fields (docs/design/platform.md).
    return value === "" ? at !== "" : !holds(at, value);
  });
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
