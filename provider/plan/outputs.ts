/**
 * What a `ClientSettings` operation reports once the tenant has answered (docs/design/decisions.md,
 * "What a resource owns"): the outputs, which are the resource's name, client and connection, the
 * priors, and each declared field as the client holds it, cut down to the keys the program
 * declares, so that a refresh shows drift only in what the program manages (the only values
 * converted back to the user's spelling); or, when the answer does not hold what was written, the
 * failure (`plan/answer-check.ts`). Pure functions only.
 *
 * @module
 */

import type { Props } from "../json.js";
import { isPlainObject, own } from "../json.js";
import { fieldFromWire } from "../schema/index.js";
import { writesNotHeld } from "./answer-check.js";
import type { DeclaredClient, WireFields } from "./declared.js";
import { type PriorEntry, storePriorPaths } from "./prior-paths.js";
import type { Write } from "./writes.js";

/**
 * The report of an operation that wrote `writes` and remembers `remember`: given the client as
 * the PATCH answered it, its outputs; without an answer (nothing sent), those of `unchanged`, the
 * client as it was read or as last reported.
 *
 * @throws {WriteNotHeldError} (from the returned function) when the answer holds something else at
 * a path written (docs/design/decisions.md, "Every write checked by its answer"), carrying the
 * outputs it would have returned, so that a failed create can still leave them in the state.
 */
export function reportOf(
  declared: DeclaredClient,
  writes: readonly Write[],
  remember: readonly PriorEntry[],
  unchanged: WireFields,
): (answer?: WireFields) => Props {
  return (answer) => {
    const outs = outputs(declared, remember, answer ?? unchanged);
    const error = writesNotHeld(declared.clientId, writes, answer);
    if (error !== undefined) {
      error.outputs = outs;
      throw error;
    }
    return outs;
  };
}

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

/**
 * `live` cut down to the keys `declared` declares, recursively; what the outputs of a resource
 * keep, so that a refresh reports drift only in what the program manages. A key absent from the
 * live object becomes null, so that it stays visible (and different from a declared value).
 * Exported for its unit tests (test/plan-compare.test.ts).
 *
 * @internal
 */
export function project(live: unknown, declared: unknown): unknown {
  if (isPlainObject(declared) && isPlainObject(live)) {
    return Object.fromEntries(
      Object.entries(declared).map(([key, value]) => [key, project(own(live, key), value)]),
    );
  }
  return live === undefined ? null : live;
}
