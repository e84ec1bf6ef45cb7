/**
 * A ready policy pack: every rule of pulumi-tenant at its default level (docs/design/policy.md).
 *
 *   pulumi preview --policy-pack examples/policy-pack
 *
 * To change a level, turn a rule off or allow loopback URLs in a developer's stack, pass a policy
 * config file: `--policy-pack-config policy-config.json`, e.g.
 *   { "tenant-url-loopback": { "allowedStacks": ["dev"] }, "tenant-oidc-conformant": "disabled" }
 */
import { PolicyPack } from "@pulumi/policy";
import { tenantPolicies, tenantStackPolicies } from "pulumi-tenant/policy";

// The stack rule (one owner per path of a client) sees every ClientSettings of the stack at once.
new PolicyPack("pulumi-tenant", { policies: [...tenantPolicies(), ...tenantStackPolicies()] });
