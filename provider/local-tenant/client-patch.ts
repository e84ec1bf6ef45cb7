/**
 * How a client PATCH applies, as the platform's own recorded traffic shows it
 * (docs/design/local-tenant.md, "How a PATCH applies"): only the fields sent change; an object
 * sent merges member by member or replaces the stored one, per path, as recorded; `null` removes
 * at every depth; lists and other values are stored as sent; `""` removes `initiate_login_uri`.
 * Where the recordings leave a path undecided, the tenant's {@link PatchModel} decides. The
 * defaults the platform fills in on a PATCH are filled in here too.
 *
 * @module
 */

import { CommandUsageError } from "../errors.js";
import { isPlainObject } from "../json.js";
import { mirrorBackchannelLogout, SESSION_TRANSFER_DEFAULTS, type WireClient } from "./clients.js";

/** How an object sent at a path the recordings leave undecided applies. */
export type PatchModel = "merge" | "replace";

/** The models a local tenant takes, in the order the help text names them. */
export const PATCH_MODELS: readonly PatchModel[] = ["merge", "replace"];

/**
 * The model of a tenant that names none: every object the recordings show merges, except the
 * `samlp` add-on, and the recording tool sends `{"addons": null}` before each add-on change, which
 * it would not need if `addons` were replaced (docs/design/local-tenant.md, "How a PATCH applies").
 */
export const DEFAULT_PATCH_MODEL: PatchModel = "merge";

/**
 * The model a tenant's options name, checked (`--patch-model` and `patchModel` alike); the
 * default when none is named.
 *
 * @throws {CommandUsageError} for anything but `"merge"` or `"replace"`.
 */
export function checkedPatchModel(model: unknown): PatchModel {
  if (model === undefined) return DEFAULT_PATCH_MODEL;
  if (typeof model === "string" && (PATCH_MODELS as readonly string[]).includes(model)) {
    return model as PatchModel;
  }
  throw new CommandUsageError(
    `patchModel must be one of ${PATCH_MODELS.map((m) => JSON.stringify(m)).join(", ")}, got ${JSON.stringify(model)}`,
  );
}

/** What decides how a PATCH applies on one tenant. */
export interface PatchRules {
  /** The model of the paths the recordings leave undecided. */
  model: PatchModel;
  /**
   * Wire paths a PATCH leaves as stored, whatever it sends (the `keep` quirk; a tenant against
   * its own model).
   */
  keep: readonly string[];
}

/**
 * The rule of each object path the recordings decide (wire paths, keys joined by dots). A path not
 * here (and not below a replaced one) is undecided.
 */
const RECORDED_OBJECT_RULES: Readonly<Record<string, PatchModel>> = {
  client_metadata: "merge",
  mobile: "merge",
  native_social_login: "merge",
  session_transfer: "merge",
  signed_request_object: "merge",
  jwt_configuration: "merge",
  "addons.samlp": "replace",
  "addons.samlp.mappings": "replace",
};

/** Fields whose `""` removes them, as a `null` would (recorded for `initiate_login_uri` only). */
const EMPTY_STRING_REMOVES: ReadonlySet<string> = new Set(["initiate_login_uri"]);

/**
 * Fields that a `null` sent removes along with themselves: `oidc_backchannel_logout`, the older
 * name of the back-channel logout settings, takes `oidc_logout` with it (recorded:
 * TestAccClientOIDCLogout #8).
 */
const REMOVED_WITH: Readonly<Record<string, readonly string[]>> = {
  oidc_backchannel_logout: ["oidc_logout"],
};

/**
 * How an object sent at `path` applies on a tenant of `model`: as recorded where the recordings
 * decide it, by the model elsewhere.
 *
 * @internal
 */
export function objectRule(path: string, model: PatchModel): PatchModel {
  return RECORDED_OBJECT_RULES[path] ?? model;
}

/** `value` with every `null` member removed, at every depth (what a replaced object stores). */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return structuredClone(value);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (member !== null) out[key] = withoutNulls(member);
  }
  return out;
}

/**
 * The value stored at `path` once `sent` (not null) applies to `stored` (undefined: absent): an
 * object merges or replaces by its rule, anything else is stored as sent.
 */
function appliedValue(path: string, stored: unknown, sent: unknown, model: PatchModel): unknown {
  if (!isPlainObject(sent)) return structuredClone(sent);
  if (objectRule(path, model) === "replace") return withoutNulls(sent);
  // An object the client did not have merges into nothing: its members' own rules still apply.
  return mergedObject(path, isPlainObject(stored) ? stored : {}, sent, model);
}

/** `stored` with each member of `sent` applied: `null` removes it, anything else by its rule. */
function mergedObject(
  path: string,
  stored: Record<string, unknown>,
  sent: Record<string, unknown>,
  model: PatchModel,
): Record<string, unknown> {
  const next = structuredClone(stored);
  for (const [key, member] of Object.entries(sent)) {
    if (member === null) delete next[key];
    else next[key] = appliedValue(`${path}.${key}`, next[key], member, model);
  }
  return next;
}

/**
 * The defaults the platform fills in on a PATCH: `session_transfer`'s members onto a client
 * without one, and the older `oidc_backchannel_logout` mirroring `oidc_logout`'s URLs (unless the
 * PATCH sends it too).
 */
function fillPatchDefaults(stored: WireClient, patch: Record<string, unknown>, next: WireClient) {
  if (isPlainObject(patch.session_transfer) && !isPlainObject(stored.session_transfer)) {
    const sent = next.session_transfer as Record<string, unknown>;
    next.session_transfer = { ...SESSION_TRANSFER_DEFAULTS, ...sent };
  }
  if (isPlainObject(patch.oidc_logout) && !("oidc_backchannel_logout" in patch)) {
    mirrorBackchannelLogout(next);
  }
}

/** The value at a dot-separated wire path, and whether it is there. */
function valueAt(
  client: Record<string, unknown>,
  path: readonly string[],
): { found: boolean; value?: unknown } {
  let current: unknown = client;
  for (const key of path) {
    if (!isPlainObject(current) || !(key in current)) return { found: false };
    current = current[key];
  }
  return { found: true, value: current };
}

/** `client` with the value at `path` put back to what `stored` holds there (absent included). */
function keptAt(stored: WireClient, client: WireClient, path: readonly string[]): void {
  const before = valueAt(stored, path);
  let parent: Record<string, unknown> = client;
  for (const key of path.slice(0, -1)) {
    if (!isPlainObject(parent[key])) {
      if (!before.found) return;
      parent[key] = {};
    }
    parent = parent[key] as Record<string, unknown>;
  }
  const last = path[path.length - 1] as string;
  if (before.found) parent[last] = structuredClone(before.value);
  else delete parent[last];
}

/**
 * Applies a PATCH body (already valid against the schema) to a stored client and returns the new
 * client; the stored one is not touched. Only the fields sent change: `null` (and `""` for
 * `initiate_login_uri`) removes the field; an object merges or replaces by its path's rule
 * ({@link objectRule}), a `null` member removing that member at any depth; lists and other values
 * are stored as sent. Then the platform's PATCH defaults are filled in and the paths of
 * `rules.keep` put back as stored.
 */
export function applyClientPatch(
  stored: WireClient,
  patch: Record<string, unknown>,
  rules: PatchRules = { model: DEFAULT_PATCH_MODEL, keep: [] },
): WireClient {
  const next: WireClient = structuredClone(stored);
  for (const [field, value] of Object.entries(patch)) {
    if (value === null || (value === "" && EMPTY_STRING_REMOVES.has(field))) {
      delete next[field];
      for (const alias of value === null ? (REMOVED_WITH[field] ?? []) : []) delete next[alias];
    } else next[field] = appliedValue(field, next[field], value, rules.model);
  }
  fillPatchDefaults(stored, patch, next);
  for (const path of rules.keep) keptAt(stored, next, path.split("."));
  return next;
}
