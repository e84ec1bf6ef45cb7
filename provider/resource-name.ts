import type { ResourceKind } from "./schema/index.js";

/**
 * The hidden input that carries the resource's logical name into the provider (not `__name`,
 * which Pulumi's own Resource class uses). The dynamic provider protocol passes no URN to check,
 * create, update or delete, and an error that says `ClientSettings "web"` is worth a lot more than
 * one that says `ClientSettings`.
 */
export const NAME_KEY = "__resourceName";

/**
 * `ClientSettings "web"`: how every message names a resource. Falls back to the id, then to the
 * kind alone, for states written without the name.
 */
export function describeResource(
  kind: ResourceKind,
  props: Record<string, unknown> | undefined,
  id?: string,
): string {
  const name = props?.[NAME_KEY];
  const shown = typeof name === "string" && name !== "" ? name : id;
  return shown ? `${kind} "${shown}"` : kind;
}
