/**
 * The pack's stack rule: one owner per path of a client across the ClientSettings of a stack
 * (docs/design/policy.md, "One owner per path"), the provider's own check (`plan/one-owner.ts`) as a
 * CrossGuard stack policy. A stack policy sees every resource of the one stack being previewed or
 * updated, whichever provider serves it: two resources the provider's check cannot tell apart (of
 * one name under two parents) or that two provider processes check (two explicit providers of
 * one tenant). It cannot see another stack's resources: two stacks that manage one client are
 * outside its reach.
 *
 * @module
 */

import type { PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import { TENANT_KEY } from "../connection/schema.js";
import { isPlainObject } from "../json.js";
import { claimOf, ownerConflict, type PathClaim } from "../plan/one-owner.js";
import { resourceType } from "../resources/registration.js";
import { NAME_KEY } from "../schema/index.js";

const CLIENT_SETTINGS_TYPE = resourceType("ClientSettings");

/**
 * What stands for the stack config's tenant, which a policy cannot read: every ClientSettings of
 * a stack without a `tenant` input is in that one tenant.
 */
const STACK_CONFIG_TENANT = "the stack config's tenant";

/** The claim of one resource of the stack, or undefined when its client or tenant is not known. */
function claimOfResource(resource: PolicyResource): PathClaim | undefined {
  if (resource.type !== CLIENT_SETTINGS_TYPE || !isPlainObject(resource.props)) return undefined;
  const { [TENANT_KEY]: tenant, ...props } = resource.props;
  return claimOf(
    {
      ...props,
      ...(isPlainObject(tenant) ? { [TENANT_KEY]: tenant } : {}),
      [NAME_KEY]: resource.name,
    },
    STACK_CONFIG_TENANT,
  );
}

/**
 * The stack policies of the pack: `tenant-one-owner-per-path`, mandatory, reporting each
 * ClientSettings that declares a path of a client another ClientSettings of the stack declares
 * before it, at that resource. Add them beside {@link tenantPolicies}:
 * `policies: [...tenantPolicies(), ...tenantStackPolicies()]`.
 */
export function tenantStackPolicies(): StackValidationPolicy[] {
  return [
    {
      name: "tenant-one-owner-per-path",
      description:
        "No two ClientSettings of a stack declare the same path of one client: each would put back the other's value.",
      enforcementLevel: "mandatory",
      validateStack: (args, reportViolation) => {
        const seen: PathClaim[] = [];
        for (const resource of args.resources) {
          const claim = claimOfResource(resource);
          if (claim === undefined) continue;
          const conflict = ownerConflict(seen, claim);
          if (conflict !== undefined) reportViolation(conflict.reason, resource.urn);
          seen.push(claim);
        }
      },
    },
  ];
}
