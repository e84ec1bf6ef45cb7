import type { StackValidationArgs } from "@pulumi/policy";
import { describe, expect, it } from "vitest";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { tenantStackPolicies } from "../provider/policy/index.js";

const WEB = DEFAULT_SEED_IDS.regularWeb;
const CLIENT_SETTINGS = "pulumi-nodejs:dynamic/tenant:ClientSettings";

/** A resource of stack `dev` as a stack policy sees it. */
function resource(name: string, props: Record<string, unknown>, type = CLIENT_SETTINGS) {
  return { type, name, urn: `urn:pulumi:dev::p::${type}::${name}`, props };
}

/** What the pack's stack policies report on `resources`, as `rule: urn: message` lines. */
function validateStack(resources: ReturnType<typeof resource>[]): string[] {
  const reported: string[] = [];
  for (const policy of tenantStackPolicies()) {
    const args = { resources, getConfig: () => ({}) } as unknown as StackValidationArgs;
    void policy.validateStack(args, (message, urn) =>
      reported.push(`${policy.name}: ${urn ?? ""}: ${message}`),
    );
  }
  return reported;
}

const LIFETIME = { clientId: WEB, jwtConfiguration: { lifetimeInSeconds: 600 } };

describe("tenantStackPolicies", () => {
  it("reports the second ClientSettings of a stack declaring a path of one client, naming both", () => {
    expect(validateStack([resource("a", LIFETIME), resource("b", LIFETIME)])).toEqual([
      `tenant-one-owner-per-path: urn:pulumi:dev::p::${CLIENT_SETTINGS}::b: ` +
        `ClientSettings "b" declares jwtConfiguration.lifetimeInSeconds of client ${WEB}, which ` +
        'ClientSettings "a" also declares: a path of a client has one owner, which alone ' +
        "remembers and puts back its value; declare each path in one ClientSettings only",
    ]);
  });

  it("reports nothing for disjoint paths, another client, or another tenant", () => {
    const other = { domain: "other.tenants.example", apiToken: "t" };
    expect(
      validateStack([
        resource("a", LIFETIME),
        resource("b", { clientId: WEB, jwtConfiguration: { alg: "HS256" } }),
        resource("c", { ...LIFETIME, clientId: DEFAULT_SEED_IDS.spa }),
        resource("d", { ...LIFETIME, tenant: other }),
      ]),
    ).toEqual([]);
  });

  it("judges ClientSettings only", () => {
    const push = resource("a", LIFETIME, "pulumi-nodejs:dynamic/tenant:PushProviderSelection");
    expect(validateStack([push, resource("b", LIFETIME)])).toEqual([]);
  });
});
