/**
 * How the platform applies an object a PATCH sends, per path, as the schema's `x-patch`
 * annotation records it (docs/design/platform.md, "How a PATCH applies"): `merge` where the
 * platform's own traffic shows members left out are kept, `replace` where it shows them dropped,
 * and `undecided` where nothing recorded tells (no annotation). The one source of the per-path
 * rule for every write the plan makes (`plan/patch-body.ts`). Pure functions only.
 *
 * @module
 */

import { memberSchema, type SchemaNode } from "../schema/kinds.js";
import { clientFieldSchema, isVerbatim, snakeToCamel } from "../schema/wire.js";
import { fieldByWireName } from "./declared.js";
import type { OwnedPath } from "./owned-paths.js";

/** How the object at a path takes a PATCH. */
export type PatchRule = "merge" | "replace" | "undecided";

/** The annotation keyword that records how the platform applies an object sent at a path. */
const PATCH_KEYWORD = "x-patch";

/**
 * The schema of the value at `path` (wire spelling, from a client field down), undefined where
 * the schema says nothing (a free-form value).
 */
function schemaAt(path: OwnedPath): SchemaNode | undefined {
  const [wire, ...inside] = path;
  if (wire === undefined) return undefined;
  let node: SchemaNode | undefined = clientFieldSchema(fieldByWireName(wire).field);
  for (const key of inside) {
    if (node === undefined) return undefined;
    node = memberSchema(node, isVerbatim(node) ? key : snakeToCamel(key));
  }
  return node;
}

/** How the platform applies an object sent at `path`: the annotation, `undecided` without one. */
export function patchRuleAt(path: OwnedPath): PatchRule {
  const annotated = schemaAt(path)?.[PATCH_KEYWORD];
  return annotated === "merge" || annotated === "replace" ? annotated : "undecided";
}
