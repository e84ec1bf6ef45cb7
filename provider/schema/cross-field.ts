/**
 * The rule of the client update that one field's schema cannot express alone
 * (docs/design/platform.md, "Rules across fields"):
 * `organization_require_behavior: "post_login_prompt"` requires `oidc_conformant` to be true.
 *
 * @module
 */

import { isUnknown } from "../unknown.js";
import type { PathFailure } from "./check-failures.js";

/** The names the rule talks about, in one spelling (user or wire). */
export interface PostLoginPromptNames {
  readonly organizationRequireBehavior: string;
  readonly oidcConformant: string;
}

/** The two fields of the rule, as the user spells them; {@link wireName} gives the API's. */
export const POST_LOGIN_PROMPT_FIELDS = {
  organizationRequireBehavior: "organizationRequireBehavior",
  oidcConformant: "oidcConformant",
} as const satisfies PostLoginPromptNames;

/**
 * The reason given when the rule is broken, naming the other field in the caller's spelling. The
 * resources reuse it when the live client, not the program, holds `oidcConformant`.
 */
export function postLoginPromptReason(oidcConformantName: string): string {
  return `"post_login_prompt" requires ${oidcConformantName} to be true`;
}

/**
 * The failure of the rule on `value` (an object in the spelling of `names`), reported at the
 * require-behavior property, or `undefined`. It applies only when both fields are present and known
 * and `oidcConformant` is a boolean: a missing one is checked against the live client by the
 * resource, an unknown one cannot be judged yet, and a mistyped one already has its own failure.
 */
export function postLoginPromptFailure(
  value: Record<string, unknown>,
  names: PostLoginPromptNames,
): PathFailure | undefined {
  const behavior = value[names.organizationRequireBehavior];
  const conformant = value[names.oidcConformant];
  if (behavior !== "post_login_prompt" || isUnknown(conformant)) return undefined;
  if (conformant !== false) return undefined;
  return {
    path: names.organizationRequireBehavior,
    reason: postLoginPromptReason(names.oidcConformant),
  };
}
