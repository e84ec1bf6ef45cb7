/**
 * The validation of a resource's inputs in the user's spelling: what `check` returns to Pulumi.
 * It returns every failure at once and never throws.
 *
 * @module
 */

import type * as pulumi from "@pulumi/pulumi";
import { connectionProblems } from "../connection/parse.js";
import { SENSITIVE_CONNECTION_SETTINGS, TENANT_KEY } from "../connection/schema.js";
import { TENANT_INPUT_NAMING } from "../connection/values.js";
import { isPlainObject } from "../json.js";
import { type PathFailure, toCheckFailure, toFailures } from "./check-failures.js";
import { SENSITIVE_CLIENT_FIELDS } from "./client-settings.js";
import { POST_LOGIN_PROMPT_FIELDS, postLoginPromptFailure } from "./cross-field.js";
import { INPUT_SCHEMAS, propertiesOf, type ResourceKind } from "./kinds.js";
import { ajvErrors } from "./validate.js";

/** What {@link checkInputs} returns: Pulumi's own check result, with both members present. */
export interface InputCheck {
  /** The normalised inputs: the news as given, `__` keys included. */
  readonly inputs: Record<string, unknown>;
  /**
   * Every failure, in a stable order, empty when the inputs are valid: the full path in the user's
   * spelling as `property` (`callbacks[2]`, `jwtConfiguration.lifetimeInSeconds`) and what is wrong.
   */
  readonly failures: pulumi.dynamic.CheckFailure[];
}

/** The credentials of the `tenant` input: never echoed, whatever the resource. */
const SENSITIVE_CONNECTION_PATHS = SENSITIVE_CONNECTION_SETTINGS.map(
  (setting) => `${TENANT_KEY}.${setting}`,
);
const SENSITIVE_PATHS: Readonly<Record<ResourceKind, readonly string[]>> = {
  PushProviderSelection: SENSITIVE_CONNECTION_PATHS,
  ClientSettings: [...SENSITIVE_CLIENT_FIELDS, ...SENSITIVE_CONNECTION_PATHS],
  EventStreamDeletion: SENSITIVE_CONNECTION_PATHS,
};

/** Whether a schema node has a member annotated `"x-sensitive"` anywhere inside it, or is one. */
function holdsSensitive(node: unknown): boolean {
  const stack: unknown[] = [node];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (typeof next !== "object" || next === null) continue;
    if (Object.hasOwn(next, "x-sensitive")) return true;
    stack.push(...Object.values(next));
  }
  return false;
}

/**
 * The top-level inputs of each kind whose values Pulumi may print with a check failure (see
 * {@link toCheckFailure}): those the input schema knows that hold no sensitive member, as the
 * schema's `"x-sensitive"` annotations say.
 */
const PRINTABLE_INPUTS: Readonly<Record<ResourceKind, ReadonlySet<string>>> = (() => {
  const printable = (kind: ResourceKind): ReadonlySet<string> =>
    new Set(
      Object.entries(propertiesOf(INPUT_SCHEMAS[kind]))
        .filter(([, schema]) => !holdsSensitive(schema))
        .map(([key]) => key),
    );
  return {
    PushProviderSelection: printable("PushProviderSelection"),
    ClientSettings: printable("ClientSettings"),
    EventStreamDeletion: printable("EventStreamDeletion"),
  };
})();

/**
 * The failures of the rules every connection follows (`connection/parse.ts`), named as the `tenant`
 * input's members, when the resource has one; unknown values (during a preview) are not checked. A rule broken at a
 * path that already has a failure adds nothing (one failure per mistake).
 */
function connectionFailures(tenant: unknown, found: readonly PathFailure[]): PathFailure[] {
  // Not an object (nor unknown): the schema's type failure says it all.
  if (!isPlainObject(tenant)) return [];
  const taken = new Set(found.map(({ path }) => path));
  return connectionProblems(tenant, TENANT_INPUT_NAMING)
    .map(({ setting, message }) => ({
      path: setting === undefined ? TENANT_KEY : `${TENANT_KEY}.${setting}`,
      reason: message,
    }))
    .filter(({ path }) => !taken.has(path));
}

/**
 * The deepest nesting accepted in an input. The platform's deepest shape is four levels; free-form maps
 * could otherwise hold anything, and a value thousands of levels deep cannot even be encoded as JSON
 * (the encoder's recursion overflows), so it would pass the preview and fail the update.
 *
 * @internal
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

/**
 * Validates a resource's inputs (`news` of `check`) and returns all failures at once, each naming
 * the property as the user spells it. Keys starting with `__` (`__provider`, `__resourceName`) are not
 * validated and are kept in `inputs`. Pulumi's unknown placeholder is never a failure, wherever it
 * stands. The `tenant` input is checked by the rules of the stack config path, with the same
 * messages naming `tenant.domain`, `tenant.clientSecret`, ...; its credentials are never echoed. A failure at a top-level input that may hold a secret names no property
 * (its reason starts with the path), so that Pulumi does not print the value ({@link toCheckFailure}). `organizationRequireBehavior: "post_login_prompt"` with `oidcConformant: false` fails at
 * `organizationRequireBehavior`. Never throws.
 */
export function checkInputs(kind: ResourceKind, news: Record<string, unknown>): InputCheck {
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
      sensitive: SENSITIVE_PATHS[kind],
    }),
  );
  found.push(...connectionFailures(validated[TENANT_KEY], found));
  if (kind === "ClientSettings") {
    const crossField = postLoginPromptFailure(validated, POST_LOGIN_PROMPT_FIELDS);
    if (crossField !== undefined) found.push(crossField);
  }
  const printable = PRINTABLE_INPUTS[kind];
  return { inputs, failures: found.map((failure) => toCheckFailure(failure, news, printable)) };
}
