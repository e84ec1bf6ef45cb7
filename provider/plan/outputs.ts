/**
 * The outputs a `ClientSettings` reports (docs/design/decisions.md, "What a resource owns"): the
 * resource's name, client and connection, the priors, and each declared field as the client holds
 * it, cut down to the keys the program declares, so that a refresh shows drift only in what the
 * program manages. The only values converted back to the user's spelling. Pure functions only.
 *
 * @module
 */

import type { Props } from "../json.js";
import { fieldFromWire } from "../schema/index.js";
import { project } from "./compare.js";
import type { DeclaredClient, WireFields } from "./declared.js";
import { type PriorEntry, storePriorPaths } from "./prior-paths.js";

/** The outputs of `declared` with priors `prior`, for the client as `client` holds it. */
export function outputs(
  declared: DeclaredClient,
  prior: readonly PriorEntry[],
  client: WireFields,
): Props {
  const outs: Props = { ...declared.identity, prior: storePriorPaths(prior) };
  for (const { field, wire } of declared.fields) {
    const shown = project(client[wire], declared.values[wire]);
    outs[field] = fieldFromWire(field, shown);
  }
  return outs;
}
