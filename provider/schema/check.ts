/**
 * Validation entry points: {@link checkInputs} for a resource's inputs in the user's spelling
 * (what `check` returns to Pulumi) and {@link validateWire} for request bodies in the API's spelling
 * (what the local tenant API enforces). Both return every failure at once and never throw.
 *
 * @module
 */

import { SENSITIVE_CLIENT_FIELDS } from "./client-settings.js";
import { postLoginPromptFailure } from "./cross-field.js";
import { type PathFailure, toFailures } from "./failures.js";
import type { ResourceKind } from "./kinds.js";
import { ajvErrors } from "./validate.js";
import { type WireKind, wireName } from "./wire.js";

/** One failure of {@link checkInputs}: the property as the user spelled it, and what is wrong. */
export interface CheckFailure {
  /** Full path in the user's spelling: `callbacks[2]`, `jwtConfiguration.lifetimeInSeconds`. */
  readonly property: string;
  /** What is wrong, e.g. `must be at most 140 characters (got 141)`. */
  readonly reason: string;
}

/** What {@link checkInputs} returns. */
export interface CheckResult {
  /** The normalised inputs: the news as given, `__` keys included. */
  readonly inputs: Record<string, unknown>;
  /** Every failure, in a stable order; empty when the inputs are valid. */
  readonly failures: CheckFailure[];
}

const NOTHING_SENSITIVE: readonly string[] = [];

/**
 * The deepest nesting accepted in an input. The spec's deepest shape is four levels; free-form maps
 * could otherwise hold anything, and a value thousands of levels deep cannot even be encoded as JSON
 * (the encoder's recursion overflows), so it would pass the preview and fail the update.
 */
export const MAX_DEPTH = 64;

/** Whether `value` nests objects or arrays more than `limit` levels deep; iterative, so any depth is safe. */
function exceedsDepth(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [current, depth] = next;
    if (typeof current !== "object" || current === null) continue;
    if (depth >= limit) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Validates a resource's inputs (`news` of `check`) and returns all failures at once, each naming
 * the property as the user spells it. Keys starting with `__` (`__provider`, `__resourceName`) are not
 * validated and are kept in `inputs`. Pulumi's unknown placeholder is never a failure, wherever it
 * stands. `organizationRequireBehavior: "post_login_prompt"` with `oidcConformant: false` fails at
 * `organizationRequireBehavior`. Never throws.
 */
export function checkInputs(kind: ResourceKind, news: Record<string, unknown>): CheckResult {
  const inputs = { ...news };
  const tooDeep: PathFailure[] = [];
  const validated = Object.fromEntries(
    Object.entries(news).filter(([key, value]) => {
      if (key.startsWith("__")) return false;
      if (!exceedsDepth(value, MAX_DEPTH)) return true;
      tooDeep.push({ path: key, reason: `must not be nested more than ${MAX_DEPTH} levels deep` });
      return false;
    }),
  );
  const found: PathFailure[] = tooDeep;
  found.push(
    ...toFailures(ajvErrors(kind, validated), validated, {
      skipUnknowns: true,
      sensitive: kind === "ClientSettings" ? SENSITIVE_CLIENT_FIELDS : NOTHING_SENSITIVE,
    }),
  );
  if (kind === "ClientSettings") {
    const crossField = postLoginPromptFailure(validated, {
      organizationRequireBehavior: "organizationRequireBehavior",
      oidcConformant: "oidcConformant",
    });
    if (crossField !== undefined) found.push(crossField);
  }
  return { inputs, failures: found.map(({ path, reason }) => ({ property: path, reason })) };
}

/**
 * Validates a request as the API receives it, in wire spelling, and returns every failure with its
 * path in wire spelling (`jwt_configuration.lifetime_in_seconds`, `callbacks[2]`, `""` for the root).
 * - `pushProviderSelection`: the PUT body (`{ provider }`, nothing else).
 * - `clientUpdate`: the PATCH body (any subset of the client fields; `client_metadata` values may
 *   be `null`, which removes the key). The post-login-prompt rule is applied when the body holds
 *   both fields; against the stored client it is the caller's to apply.
 * - `eventStreamId`: the id string of the path (exactly 26 characters).
 * The unknown placeholder gets no special treatment here. Never throws.
 */
export function validateWire(
  kind: WireKind,
  value: unknown,
): Array<{ path: string; reason: string }> {
  const found = toFailures(ajvErrors(kind, value), value, {
    skipUnknowns: false,
    sensitive: kind === "clientUpdate" ? SENSITIVE_CLIENT_FIELDS.map(wireName) : NOTHING_SENSITIVE,
  });
  if (kind === "clientUpdate" && isRecord(value)) {
    const crossField = postLoginPromptFailure(value, {
      organizationRequireBehavior: wireName("organizationRequireBehavior"),
      oidcConformant: wireName("oidcConformant"),
    });
    if (crossField !== undefined) found.push(crossField);
  }
  return found.map(({ path, reason }) => ({ path, reason }));
}
