/**
 * The shapes the tenant's rules (`rules.ts`) are built from: the one place a violation's sentence
 * is put together, what a rule reads of the declared fields (URLs, grant types, a member of an
 * object), and the three kinds of rule most of them are (one URL at a time, one boolean flag, one
 * about an application's own settings, which skips the tenant's global client).
 *
 * @module
 */

import type { ClientSettingsField } from "../schema/index.js";
import type { Declared, TenantRule, Violation } from "./rule-types.js";
import { REDIRECT_URL_FIELDS } from "./urls.js";

/**
 * A violation of `field` with `value`: the one place where a violation's sentence is put together,
 * `<resource>: <field> <value as JSON> <what is wrong>`.
 */
export function violation(
  declared: Declared,
  field: string,
  value: unknown,
  wrong: string,
): Violation {
  return {
    field,
    value,
    reason: wrong,
    message: `${declared.resource}: ${field} ${JSON.stringify(value)} ${wrong}`,
  };
}

/** The declared URLs of the redirect fields, each with the field and index it is at. */
function declaredUrls(props: Declared["props"]): { field: string; url: string }[] {
  const found: { field: string; url: string }[] = [];
  for (const field of REDIRECT_URL_FIELDS) {
    const value = props[field];
    if (typeof value === "string") found.push({ field, url: value });
    else if (Array.isArray(value)) {
      value.forEach((url, index) => {
        if (typeof url === "string") found.push({ field: `${field}[${index}]`, url });
      });
    }
  }
  return found;
}

/** The declared grant types that are strings, each with its index. */
export function declaredGrants(props: Declared["props"]): { field: string; grant: string }[] {
  const grants = props.grantTypes;
  if (!Array.isArray(grants)) return [];
  return grants.flatMap((grant, index) =>
    typeof grant === "string" ? [{ field: `grantTypes[${index}]`, grant }] : [],
  );
}

/** A member of a declared object field, when both are there. */
export function member(props: Declared["props"], field: string, key: string): unknown {
  const value = props[field];
  return typeof value === "object" && value !== null
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/** Whether the stack judged is one the rule's config allows. */
export const inAllowedStack = ({ stack, config }: Declared): boolean =>
  (config.allowedStacks ?? []).includes(stack);

/** A rule about one URL at a time. */
export function urlRule(
  rule: Omit<TenantRule, "judge" | "fields">,
  finds: (url: string, declared: Declared) => boolean,
  wrong: string,
): TenantRule {
  return {
    ...rule,
    fields: REDIRECT_URL_FIELDS,
    judge: (declared) =>
      declaredUrls(declared.props)
        .filter(({ url }) => finds(url, declared))
        .map(({ field, url }) => violation(declared, field, url, wrong)),
  };
}

/** A rule about one boolean field that should not be `value`. */
export function flagRule(
  rule: Omit<TenantRule, "judge" | "config" | "fields">,
  field: ClientSettingsField,
  value: boolean,
  wrong: string,
): TenantRule {
  return {
    ...rule,
    config: [],
    fields: [field],
    judge: (declared) =>
      declared.props[field] === value ? [violation(declared, field, value, wrong)] : [],
  };
}

/**
 * A rule about an application's own settings (the client rules and the compliance profile): it
 * judges every client but the tenant's global client, which holds the tenant's legacy settings,
 * not an application's; auth0-checkmate skips it too (docs/design/policy.md). The one place a rule says
 * so: its `judge` never sees the global client.
 */
export function clientRule(rule: TenantRule): TenantRule {
  return {
    ...rule,
    judge: (declared) => (declared.global === true ? [] : rule.judge(declared)),
  };
}
