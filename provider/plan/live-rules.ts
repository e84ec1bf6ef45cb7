/**
 * The rules of `ClientSettings` that the live client decides, checked before anything is sent: a
 * field the platform fixed when the client was created cannot change, `post_login_prompt` needs
 * an OIDC-conformant client, and a put-back may not break that rule (docs/design/platform.md,
 * "Rules across fields"). Pure functions only; values in the wire's spelling.
 *
 * @module
 */

import { ImmutableFieldError, TenantValidationError } from "../errors.js";
import {
  isUnknown,
  POST_LOGIN_PROMPT_FIELDS,
  postLoginPromptReason,
  wireName,
} from "../schema/index.js";
import { CLIENT_FIELDS, type DeclaredClient, type WireFields } from "./declared.js";
import type { PriorEntry } from "./prior-paths.js";

/** The fields the platform fixes when a client is created: `x-strategy: fixed` in the schema. */
const FIXED_FIELDS = CLIENT_FIELDS.filter(({ strategy }) => strategy.name === "fixed");

/** `organization_require_behavior`, whose `post_login_prompt` needs `oidc_conformant`. */
export const REQUIRE_BEHAVIOR = wireName(POST_LOGIN_PROMPT_FIELDS.organizationRequireBehavior);

/** `oidc_conformant`. */
export const OIDC_CONFORMANT = wireName(POST_LOGIN_PROMPT_FIELDS.oidcConformant);

/**
 * The rules the live client decides: a field the platform fixed at creation cannot change, and
 * `post_login_prompt` needs an OIDC-conformant client.
 *
 * @throws {ImmutableFieldError}, {@link TenantValidationError}.
 */
export function refuseLiveConflicts(declared: DeclaredClient, live: WireFields): void {
  refuseFixedChanges(declared, withNone(live));
  refusePostLoginPrompt(declared, live);
}

/** The live client, with null for a fixed field it has no value of. */
function withNone(live: WireFields): WireFields {
  const filled = { ...live };
  for (const { wire } of FIXED_FIELDS) filled[wire] ??= null;
  return filled;
}

/**
 * Refuses a change of a field the platform fixes when a client is created. A `current` value is
 * undefined when it is not known (not declared before, in diff) and null when the client has none.
 *
 * @throws {ImmutableFieldError}.
 */
export function refuseFixedChanges(declared: DeclaredClient, current: WireFields): void {
  for (const { field, wire } of FIXED_FIELDS) {
    const value = declared.values[wire];
    const live = current[wire];
    if (value === undefined || isUnknown(value) || live === undefined || live === value) continue;
    throw new ImmutableFieldError({
      field,
      clientId: declared.clientId,
      live,
      declared: value,
    });
  }
}

/** The cross-field rule `check` cannot decide alone: it depends on the live `oidc_conformant`. */
function refusePostLoginPrompt(declared: DeclaredClient, live: WireFields): void {
  if (declared.values[REQUIRE_BEHAVIOR] !== "post_login_prompt") return;
  const conformant = declared.values[OIDC_CONFORMANT] ?? live[OIDC_CONFORMANT];
  if (conformant === true) return;
  const { organizationRequireBehavior, oidcConformant } = POST_LOGIN_PROMPT_FIELDS;
  throw new TenantValidationError({
    subject: organizationRequireBehavior,
    reason: `${postLoginPromptReason(oidcConformant)}, and client ${declared.clientId} is not OIDC conformant`,
    remedy: `declare ${oidcConformant}: true. Nothing was sent.`,
  });
}

/**
 * The rule a put-back can break on the live client: putting `oidc_conformant` back to a value
 * other than true while the client keeps `organization_require_behavior: "post_login_prompt"`,
 * which the platform would refuse naming the other field (docs/design/platform.md, "Rules across
 * fields"). Refused before anything is sent, naming the path being put back and its prior.
 *
 * @throws {TenantValidationError}.
 */
export function refusePutBackConflicts(
  declared: DeclaredClient,
  putBack: readonly PriorEntry[],
  live: WireFields,
  send: WireFields,
): void {
  const entry = putBack.find(({ path }) => path.length === 1 && path[0] === OIDC_CONFORMANT);
  if (entry === undefined || !Object.hasOwn(send, OIDC_CONFORMANT)) return;
  const behavior = send[REQUIRE_BEHAVIOR] ?? live[REQUIRE_BEHAVIOR];
  if (send[OIDC_CONFORMANT] === true || behavior !== "post_login_prompt") return;
  const { organizationRequireBehavior, oidcConformant } = POST_LOGIN_PROMPT_FIELDS;
  const prior = "value" in entry ? JSON.stringify(entry.value) : "no value";
  throw new TenantValidationError({
    subject: `putting ${oidcConformant} back to its prior (${prior}), as it left the program,`,
    reason: `would break a rule of client ${declared.clientId}: ${organizationRequireBehavior} ${postLoginPromptReason(oidcConformant)}`,
    remedy: `keep declaring ${oidcConformant}: true, or change ${organizationRequireBehavior} first. Nothing was sent.`,
  });
}
