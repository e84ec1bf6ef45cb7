/**
 * `pulumi-tenant/policy`: the tenant's security rules as CrossGuard policies, for
 * `pulumi preview --policy-pack` (docs/design/policy.md).
 *
 * ```ts
 * import { PolicyPack } from "@pulumi/policy";
 * import { tenantPolicies } from "pulumi-tenant/policy";
 *
 * new PolicyPack("pulumi-tenant", { policies: tenantPolicies() });
 * ```
 *
 * Only types come from `@pulumi/policy` (an optional peer dependency): a program that never runs a
 * policy pack does not need it installed.
 *
 * @module
 */

import type { PolicyConfigSchema, ResourceValidationPolicy } from "@pulumi/policy";
import { describeResource } from "../providers/run-operation.js";
import { resourceType } from "../resources/registration.js";
import type { RuleConfig, RuleConfigMember, TenantRule } from "./rule-types.js";
import { TENANT_RULES } from "./rules.js";

export { tenantStackPolicies } from "./ownership.js";
export {
  type Declared,
  RULE_NAMES,
  type RuleConfig,
  type RuleName,
  type TenantRule,
  type Violation,
} from "./rule-types.js";
export { TENANT_RULES } from "./rules.js";

const CLIENT_SETTINGS_TYPE = resourceType("ClientSettings");

/** The JSON Schema of each config member, for the policy config file. */
const CONFIG_SCHEMAS: Readonly<Record<RuleConfigMember, PolicyConfigSchema["properties"][string]>> =
  {
    allowedStacks: {
      type: "array",
      items: { type: "string" },
      description: "Stacks where what this rule reports is fine.",
    },
    allowedHosts: {
      type: "array",
      items: { type: "string" },
      description: "Hosts reached over plain http on purpose.",
    },
  };

/**
 * The stack of a URN (`urn:pulumi:<stack>::<project>::<type>::<name>`): the stack being judged,
 * read from the resource itself so that a rule needs nothing from the process it runs in.
 */
export function stackOfUrn(urn: string): string {
  return urn.startsWith("urn:pulumi:")
    ? (urn.slice("urn:pulumi:".length).split("::")[0] ?? "")
    : "";
}

/** The CrossGuard policy of one rule: it judges every ClientSettings, and nothing else. */
function policyOf(rule: TenantRule): ResourceValidationPolicy {
  const configSchema: PolicyConfigSchema | undefined =
    rule.config.length === 0
      ? undefined
      : { properties: Object.fromEntries(rule.config.map((m) => [m, CONFIG_SCHEMAS[m]])) };
  return {
    name: rule.name,
    description: rule.description,
    enforcementLevel: rule.enforcementLevel,
    ...(configSchema ? { configSchema } : {}),
    validateResource: (args, reportViolation) => {
      if (args.type !== CLIENT_SETTINGS_TYPE) return;
      const declared = {
        resource: describeResource("ClientSettings", undefined, args.name),
        props: args.props,
        stack: stackOfUrn(args.urn),
        config: configSchema ? args.getConfig<RuleConfig>() : {},
      };
      for (const found of rule.judge(declared)) reportViolation(found.message);
    },
  };
}

/**
 * Every rule of the pack as a CrossGuard `ResourceValidationPolicy`, with its default enforcement
 * level; a team changes a level, or turns a rule off, with `--policy-pack-config` (docs/design/policy.md),
 * or builds its own pack from part of this list.
 */
export function tenantPolicies(): ResourceValidationPolicy[] {
  return TENANT_RULES.map(policyOf);
}
