/**
 * What a create whose write the tenant does not hold leaves behind (docs/design/decisions.md,
 * "Every write checked by its answer"): the PATCH was applied in part, so the resource exists and
 * the priors it remembered before writing are the client's true ones. The failure carries the id
 * and the outputs the create would have saved, so that the engine records the resource as created
 * with initialization errors; the next `up` updates it (the diff against those outputs shows what
 * is left) and a destroy puts back the true priors. Update and delete decide nothing here: their
 * old state is kept. The faces only translate what this decides (`shims/make-shim.ts`,
 * `plugin/plugin-face.ts`).
 *
 * @module
 */

import { WriteNotHeldError } from "../errors.js";
import type { Props } from "../json.js";

/**
 * `error` (thrown by create's report) with the partial state of client `id`: the outputs the
 * report computed for the client as the tenant holds it, plus `recorded` (what create adds to its
 * outputs: the stack config's connection). Any other error is returned as it is: it left nothing
 * written, or nothing known.
 */
export function createdNotHeld(error: unknown, id: string, recorded: Props): unknown {
  if (!(error instanceof WriteNotHeldError) || error.outputs === undefined) return error;
  error.id = id;
  error.properties = { ...error.outputs, ...recorded };
  return error;
}
