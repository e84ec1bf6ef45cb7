/**
 * What `ClientSettings` says of a put-back (docs/design/decisions.md, "What a resource owns"): at
 * preview, the prior each path goes back to and the absences the API cannot be told; at `up`, a
 * refusal named on the paths put back rather than on a field the program did not touch. Never a
 * sensitive prior. Pure functions only.
 *
 * @module
 */

import { PutBackRefusedError, type TenantApiError } from "../errors.js";
import { SENSITIVE_CLIENT_FIELDS } from "../schema/index.js";
import { type ClientField, fieldByWireName, type WireFields } from "./declared.js";
import type { PriorEntry } from "./prior-paths.js";
import { shownValue } from "./shown.js";
import { isWritten } from "./writes.js";

/**
 * The warnings of putting back `entries` (the priors of paths that left the program, or every
 * prior at delete) on client `clientId`: one sentence per path whose prior is "absent" in a field
 * the API cannot be told has no value (no null, no empty form: `clientSecret`, `appType`,
 * `redirectionPolicy`), which the put-back therefore leaves as it is live. Empty when every
 * put-back can be made.
 */
export function absencesLeft(clientId: string, entries: readonly PriorEntry[]): string[] {
  return entries.flatMap((entry) => {
    const field = leftAsItIs(entry);
    return field === undefined
      ? []
      : [
          `${field} of client ${clientId} is left as it is: the client had no ${field} before ` +
            "this resource set it, and the API cannot be told to have none (it takes no null or " +
            "empty value there)",
        ];
  });
}

/**
 * What the preview says of putting back `entries` on client `clientId`: one sentence per path,
 * in the user's spelling, with the prior it goes back to as a refused put-back shows it (never
 * a sensitive one; "none" for absence the API can express), so that the preview shows the value
 * `up` will send. A path the put-back leaves as it is ({@link absencesLeft}) has its own sentence.
 */
export function putBackNotes(clientId: string, entries: readonly PriorEntry[]): string[] {
  return entries.flatMap((entry) => {
    const [wire, ...inside] = entry.path;
    if (wire === undefined || !isWritten(wire) || leftAsItIs(entry) !== undefined) return [];
    const { field } = fieldByWireName(wire);
    const path = [field, ...inside].join(".");
    return [
      `${path} of client ${clientId} goes back to its prior (${shownPrior(entry, field)}), ` +
        "what the client held before this resource managed it",
    ];
  });
}

/**
 * The field of `entry` when its prior is "absent" in a top-level field the API cannot be told has
 * no value (no null, no empty form), which a put-back therefore leaves as it is live.
 */
function leftAsItIs(entry: PriorEntry): ClientField["field"] | undefined {
  const [wire] = entry.path;
  if (entry.path.length !== 1 || wire === undefined || !isWritten(wire) || "value" in entry) {
    return undefined;
  }
  const { field, strategy } = fieldByWireName(wire);
  return strategy.name !== "map" && strategy.absent === undefined ? field : undefined;
}

/**
 * The error for a 400 refusing a PATCH `body` that puts `entries` back: the paths it puts back and
 * their priors (never the prior of a sensitive field), then the tenant's answer. Undefined when the
 * refusal is not a 400 or the body puts nothing back: the error is then the program's own.
 */
export function putBackRefusal(
  entries: readonly PriorEntry[],
  body: WireFields,
  error: TenantApiError,
): PutBackRefusedError | undefined {
  const sent = entries.filter(({ path }) => path[0] !== undefined && Object.hasOwn(body, path[0]));
  if (error.status !== 400 || sent.length === 0) return undefined;
  const paths = sent.map((entry) => {
    const [wire = "", ...inside] = entry.path;
    const { field } = fieldByWireName(wire);
    return { path: [field, ...inside].join("."), prior: shownPrior(entry, field) };
  });
  return new PutBackRefusedError(paths, error);
}

function shownPrior(entry: PriorEntry, field: ClientField["field"]): string {
  if (SENSITIVE_CLIENT_FIELDS.includes(field)) return "sensitive: not shown";
  return "value" in entry ? shownValue(entry.value) : "none";
}
