/**
 * Every write checked by its answer (docs/design/decisions.md, "Every write checked by its
 * answer"): a PATCH answers the whole client, and each path the operation set or put back must
 * hold there what was sent; where the tenant holds something else, the operation fails naming the
 * client, the path, what was sent and what the tenant holds, never a sensitive value. Pure
 * functions only.
 *
 * @module
 */

import { WriteNotHeldError } from "../errors.js";
import { SENSITIVE_CLIENT_FIELDS } from "../schema/index.js";
import { heldAt, holds } from "./compare.js";
import { fieldByWireName, KEY_MATERIAL, type WireFields } from "./declared.js";
import { shownValue } from "./shown.js";

const CLIENT_SECRET = "client_secret";

import { sentValue, type Write } from "./writes.js";

/**
 * The failure of `writes` sent to client `clientId`, given the tenant's `answer`; undefined when
 * every path holds what was sent, or nothing was sent (no answer). Key material is not checked
 * when the answer holds none: these credentials may not see it (docs/design/decisions.md, "Key
 * material"); nor is a client secret the answer leaves out, as it does for a client with
 * authentication methods (docs/design/local-tenant.md).
 */
export function writesNotHeld(
  clientId: string,
  writes: readonly Write[],
  answer: WireFields | undefined,
): WriteNotHeldError | undefined {
  if (answer === undefined) return undefined;
  const keysHidden = KEY_MATERIAL.every((wire) => answer[wire] === undefined);
  const paths = writes
    .filter(({ path: [wire = ""] }) => !(keysHidden && KEY_MATERIAL.includes(wire)))
    // A client with authentication methods is answered without its secret, set or not.
    .filter(({ path: [wire = ""] }) => !(wire === CLIENT_SECRET && answer[wire] === undefined))
    .filter((write) => !holds(heldAt(answer, write.path), sentValue(write)))
    .map((write) => {
      const [wire = "", ...inside] = write.path;
      const { field } = fieldByWireName(wire);
      const sensitive = SENSITIVE_CLIENT_FIELDS.includes(field);
      const show = (value: unknown) => (sensitive ? "sensitive: not shown" : shownValue(value));
      const at = heldAt(answer, write.path);
      return {
        path: [field, ...inside].join("."),
        sent:
          sentValue(write) === undefined || sentValue(write) === null
            ? "none"
            : show(sentValue(write)),
        held: at === undefined || at === null ? "none" : show(at),
      };
    });
  return paths.length === 0 ? undefined : new WriteNotHeldError(clientId, paths);
}
