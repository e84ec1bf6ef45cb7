/**
 * Helpers on JSON values, shared by the schema walkers, the plan and the API client. Keys of these
 * values often come from users (metadata keys, scope names), so lookups never reach the prototype.
 *
 * @module
 */

/**
 * Named values as Pulumi hands them to a dynamic provider (inputs, stored outputs) and as the plan
 * returns them: one name for the shape every resource and plan works with.
 */
export type Props = Record<string, unknown>;

/** A JSON object: not an array, not null. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `object[key]` only when `key` is the object's own property: a user's map may hold `toString`
 * or `constructor`, which must never find the prototype's functions.
 */
export function own(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}
