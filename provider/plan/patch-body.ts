/**
 * The PATCH body of a set of writes (`plan/writes.ts`), built so that it holds on the platform
 * under each way it may apply an object (docs/design/platform.md, "How a PATCH applies"; the rule
 * per path is the schema's, `plan/patch-rules.ts`):
 *
 * - where the object merges, only the written paths are sent, a removal as `null`: nothing the
 *   resource does not own is written, stale or not;
 * - where it is replaced, the whole object is sent (the live value with the writes laid over it,
 *   a removed member left out), and so is everything below it, which the replace stores as sent;
 * - where nothing recorded tells, the whole object is sent with each removed member as `null`:
 *   replaced, it is stored as sent and the null removes the member (a null removes at every
 *   depth); merged, the live members sent are what the tenant holds and the null removes the
 *   member too. What this costs: the live members beside the written ones are written as they
 *   were read, which is why operations on one client take turns (`providers/client-settings.ts`).
 *
 * Pure functions only.
 *
 * @module
 */

import { isPlainObject, own } from "../json.js";
import type { WireFields } from "./declared.js";
import type { OwnedPath } from "./owned-paths.js";
import { patchRuleAt } from "./patch-rules.js";
import type { Write } from "./writes.js";

/** How the object being built is sent: its written paths only, or whole (removals as null or left out). */
type Mode = "paths" | "whole-null" | "whole-omit";

const REMOVED = Symbol("removed");

/** The PATCH body of `writes` over the live client `live`; empty when there is no write. */
export function patchBody(writes: readonly Write[], live: WireFields): WireFields {
  const body: WireFields = {};
  for (const [wire, below] of byKey(writes, 0)) {
    const value = build([wire], live[wire], below, "paths");
    body[wire] = value === REMOVED ? null : value;
  }
  return body;
}

/** The writes grouped by their key at `depth`, in the order they come. */
function byKey(writes: readonly Write[], depth: number): Map<string, Write[]> {
  const groups = new Map<string, Write[]>();
  for (const write of writes) {
    const key = write.path[depth];
    if (key !== undefined) groups.set(key, [...(groups.get(key) ?? []), write]);
  }
  return groups;
}

function build(
  path: OwnedPath,
  live: unknown,
  writes: readonly Write[],
  outer: Mode,
): unknown | typeof REMOVED {
  const here = writes.find((write) => write.path.length === path.length);
  if (here !== undefined) return "value" in here ? here.value : REMOVED;
  const mode = modeAt(path, outer);
  const base = isPlainObject(live) ? live : {};
  const entries = new Map<string, unknown>(mode === "paths" ? [] : Object.entries(base));
  for (const [key, below] of byKey(writes, path.length)) {
    const value = build([...path, key], own(base, key), below, mode);
    if (value !== REMOVED) entries.set(key, value);
    else if (mode === "whole-omit") entries.delete(key);
    else entries.set(key, null);
  }
  // Built with fromEntries, not assignment, so that a `__proto__` key stays a plain key.
  return Object.fromEntries(entries);
}

/** Inside a whole object everything is sent whole; a replaced one leaves its removals out. */
function modeAt(path: OwnedPath, outer: Mode): Mode {
  const rule = patchRuleAt(path);
  if (outer === "whole-omit" || rule === "replace") return "whole-omit";
  if (outer === "whole-null" || rule === "undecided") return "whole-null";
  return "paths";
}
