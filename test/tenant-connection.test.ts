import { describe, expect, it } from "vitest";
import { resolveSettings } from "../provider/config.js";
import {
  connectionChange,
  operationConnection,
  stackTenantOutput,
  withConnectionChange,
} from "../provider/connection/change.js";
import { STACK_TENANT_KEY } from "../provider/connection/schema.js";
import { checkInputs, type ResourceKind } from "../provider/schema/index.js";
import { UNKNOWN } from "../provider/unknown.js";
import { stackConfig } from "./support/harness.js";

/** How to give a complete `tenant` input: the end of every message about a missing member. */
const HOW_TO =
  "give tenant.domain and tenant.clientId with either tenant.clientAssertionPrivateKey or " +
  "tenant.clientSecret, or tenant.apiToken alone, " +
  'e.g. `tenant: { domain: "acme.tenants.example", clientId: "...", ' +
  'clientAssertionPrivateKey: config.requireSecret("clientAssertionPrivateKey") }`';

const SECRET = "tenant-input-secret-Qw3rTy";

/** Settings that are valid for each resource, so that only the `tenant` input can fail. */
const VALID: Record<ResourceKind, Record<string, unknown>> = {
  PushProviderSelection: { provider: "sns" },
  ClientSettings: { clientId: "OOhOHam90WKZTIoUaAYPZzF1f0Wlnfa1" },
  EventStreamDeletion: { eventStreamId: "est_O84nSDdMeE4qFON6OlztEs" },
};
const KINDS = Object.keys(VALID) as ResourceKind[];

function failuresOf(tenant: unknown, kind: ResourceKind = "PushProviderSelection") {
  return checkInputs(kind, { ...VALID[kind], tenant }).failures;
}

describe("check of the tenant input", () => {
  it.each(KINDS)("accepts a domain with an API token or with client credentials on %s", (kind) => {
    expect(failuresOf({ domain: "acme.tenants.example", apiToken: SECRET }, kind)).toEqual([]);
    expect(
      failuresOf(
        { domain: "https://acme.tenants.example", clientId: "cid", clientSecret: SECRET },
        kind,
      ),
    ).toEqual([]);
  });

  it("names the missing half of incomplete client credentials, as the stack config path does", () => {
    expect(failuresOf({ domain: "acme.tenants.example", clientId: "cid" })).toEqual([
      {
        property: "tenant.clientSecret",
        reason: `pulumi-tenant has incomplete client credentials: tenant.clientAssertionPrivateKey or tenant.clientSecret is missing; ${HOW_TO}`,
      },
    ]);
  });

  it("refuses a tenant without credentials", () => {
    // No property: Pulumi would print the whole input, a misspelt credential in it included.
    expect(failuresOf({ domain: "acme.tenants.example", clientSecret: "" })).toEqual([
      { property: "", reason: `tenant: pulumi-tenant has no credentials: ${HOW_TO}` },
    ]);
  });

  it("refuses plain http to a host that is not loopback, with the stack config's words", () => {
    const reason =
      'tenant.domain "http://acme.tenants.example" uses plain http:// to a host that is not ' +
      "loopback; the management API must be reached over https:// (http:// is accepted only " +
      "for 127.0.0.0/8, ::1 and localhost, i.e. the local tenant API)";
    expect(failuresOf({ domain: "http://acme.tenants.example", apiToken: SECRET })).toEqual([
      { property: "tenant.domain", reason },
    ]);
    // The same rule, named as the stack config key.
    expect(() =>
      resolveSettings(
        stackConfig({ "tenant:domain": "http://acme.tenants.example", "tenant:apiToken": "t" }),
        {},
      ),
    ).toThrowError(reason.replace("tenant.domain", "tenant:domain"));
  });

  it("accepts a reserve and a ceiling of this run's requests", () => {
    expect(
      failuresOf({
        domain: "acme.tenants.example",
        apiToken: SECRET,
        rateLimitReserve: 0,
        maxRequestsPerSecond: 2.5,
      }),
    ).toEqual([]);
  });

  it("refuses a reserve of the whole bucket and a ceiling of 0, naming each member", () => {
    expect(
      failuresOf({
        domain: "acme.tenants.example",
        apiToken: SECRET,
        rateLimitReserve: 1,
        maxRequestsPerSecond: 0,
      }),
    ).toEqual([
      { property: "tenant.rateLimitReserve", reason: "must be < 1" },
      { property: "tenant.maxRequestsPerSecond", reason: "must be > 0" },
    ]);
  });

  it("reports a bad domain and missing credentials together", () => {
    expect(failuresOf({ domain: "ftp://acme.tenants.example" })).toEqual([
      {
        property: "tenant.domain",
        reason: 'tenant.domain "ftp://acme.tenants.example" has the scheme ftp; use https://',
      },
      { property: "", reason: `tenant: pulumi-tenant has no credentials: ${HOW_TO}` },
    ]);
  });

  it("refuses a domain with a path", () => {
    expect(failuresOf({ domain: "https://acme.tenants.example/api/v2", apiToken: SECRET })).toEqual(
      [
        {
          property: "tenant.domain",
          reason:
            'tenant.domain "https://acme.tenants.example/api/v2" must be a host ' +
            "(acme.tenants.example) or an origin (https://acme.tenants.example), without a " +
            "path, query or credentials",
        },
      ],
    );
  });

  it("requires the domain once, and suggests the name of a misspelt member", () => {
    expect(failuresOf({ apiToken: SECRET, clientSecrt: SECRET })).toEqual([
      { property: "tenant.domain", reason: "is required" },
      {
        property: "tenant.clientSecrt",
        reason: 'is not a known property; did you mean "clientSecret"?',
      },
    ]);
  });

  it("refuses a tenant that is not an object once, by its type", () => {
    expect(failuresOf("acme.tenants.example")).toEqual([
      { property: "", reason: "tenant: must be an object (got string)" },
    ]);
  });

  it("does not check values that are unknown during a preview", () => {
    expect(failuresOf({ domain: UNKNOWN, clientId: "cid", clientSecret: UNKNOWN })).toEqual([]);
    expect(failuresOf(UNKNOWN)).toEqual([]);
  });

  it("leaves a resource without a tenant input to the stack config", () => {
    expect(checkInputs("PushProviderSelection", { provider: "sns" }).failures).toEqual([]);
  });
});

describe("connectionChange", () => {
  const staging = { domain: "staging.tenants.example", clientId: "cid", clientSecret: "old" };
  const rotated = { ...staging, clientSecret: "new" };
  const production = { ...staging, domain: "production.tenants.example" };
  const configured = "https://staging.tenants.example";

  it("is same for the same connection, or none on either side", () => {
    expect(connectionChange({ tenant: staging }, { tenant: { ...staging } }, undefined)).toBe(
      "same",
    );
    expect(connectionChange({}, {}, undefined)).toBe("same");
  });

  it("is an update when only the pacing budget changes", () => {
    const olds = { tenant: { domain: "acme.tenants.example", apiToken: SECRET } };
    const news = { tenant: { ...olds.tenant, rateLimitReserve: 0.5 } };
    expect(connectionChange(olds, news, undefined)).toBe("update");
  });

  it("is an update when only the credentials change", () => {
    expect(connectionChange({ tenant: staging }, { tenant: rotated }, undefined)).toBe("update");
    expect(
      connectionChange(
        { tenant: staging },
        { tenant: { domain: staging.domain, apiToken: "t" } },
        undefined,
      ),
    ).toBe("update");
  });

  it("is an update when the domain is spelt another way for the same origin", () => {
    const spelt = { ...staging, domain: "https://STAGING.tenants.example" };
    expect(connectionChange({ tenant: staging }, { tenant: spelt }, undefined)).toBe("update");
  });

  it("is a replace when the domain names another tenant", () => {
    expect(connectionChange({ tenant: staging }, { tenant: production }, undefined)).toBe(
      "replace",
    );
  });

  it("is an update when the stack config's tenant is given as an input, or back", () => {
    expect(connectionChange({}, { tenant: staging }, configured)).toBe("update");
    expect(connectionChange({ tenant: staging }, {}, configured)).toBe("update");
  });

  it("is a replace when a resource moves from the stack config's tenant to another", () => {
    expect(connectionChange({}, { tenant: production }, configured)).toBe("replace");
  });

  it("is a replace when the tenant cannot be told: an unknown domain, or no stack config", () => {
    expect(
      connectionChange({ tenant: staging }, { tenant: { ...staging, domain: UNKNOWN } }, undefined),
    ).toBe("replace");
    expect(connectionChange({}, { tenant: staging }, undefined)).toBe("replace");
  });

  it("is a replace when the stack config now names another tenant than the one recorded", () => {
    const olds = { [STACK_TENANT_KEY]: production };
    expect(connectionChange(olds, {}, configured)).toBe("replace");
  });

  it("is same when the stack config names the recorded tenant, whatever its credentials now", () => {
    expect(connectionChange({ [STACK_TENANT_KEY]: rotated }, {}, configured)).toBe("same");
    expect(
      connectionChange({ [STACK_TENANT_KEY]: { ...staging, domain: configured } }, {}, configured),
    ).toBe("same");
  });

  it("is a replace when the stack config has lost the domain of the recorded tenant", () => {
    expect(connectionChange({ [STACK_TENANT_KEY]: staging }, {}, undefined)).toBe("replace");
  });

  it("is an update when the recorded stack config tenant is now given as an input", () => {
    const olds = { [STACK_TENANT_KEY]: production };
    expect(connectionChange(olds, { tenant: production }, configured)).toBe("update");
  });
});

describe("operationConnection", () => {
  const staging = { domain: "staging.tenants.example", apiToken: "staging-token" };
  const production = { domain: "production.tenants.example", apiToken: "production-token" };
  const configured = "https://staging.tenants.example";

  it("is the tenant input or output when there is one", () => {
    expect(operationConnection({ tenant: production }, configured)).toEqual(production);
  });

  it("is the stack config (undefined) for inputs and for outputs recorded in today's tenant", () => {
    expect(operationConnection({}, configured)).toBeUndefined();
    expect(operationConnection({ [STACK_TENANT_KEY]: staging }, configured)).toBeUndefined();
  });

  it("is the recorded connection for outputs of a stack config tenant the stack has moved from", () => {
    expect(operationConnection({ [STACK_TENANT_KEY]: production }, configured)).toEqual(production);
    expect(operationConnection({ [STACK_TENANT_KEY]: production }, undefined)).toEqual(production);
  });
});

describe("stackTenantOutput", () => {
  const configured = { domain: "staging.tenants.example", apiToken: "staging-token" };

  it("records the stack config's connection for a resource without a tenant input", () => {
    expect(stackTenantOutput({ provider: "sns" }, configured)).toEqual({
      [STACK_TENANT_KEY]: configured,
    });
  });

  it("records nothing for a resource with a tenant input, or without a stack config domain", () => {
    expect(stackTenantOutput({ tenant: configured }, configured)).toEqual({});
    expect(stackTenantOutput({}, undefined)).toEqual({});
  });
});

describe("withConnectionChange", () => {
  it("adds tenant to the replaced keys on a move, with the resource's own order", () => {
    expect(
      withConnectionChange({ changes: false, replaces: [] }, "replace", "restore-old-first"),
    ).toEqual({
      changes: true,
      replaces: ["tenant"],
      deleteBeforeReplace: true,
    });
    expect(
      withConnectionChange(
        { changes: true, replaces: ["eventStreamId"] },
        "replace",
        "create-new-first",
      ),
    ).toEqual({
      changes: true,
      replaces: ["eventStreamId", "tenant"],
      deleteBeforeReplace: false,
    });
  });

  it("makes a connection update a change without replacement", () => {
    expect(
      withConnectionChange({ changes: false, replaces: [] }, "update", "restore-old-first"),
    ).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
  });

  it("keeps the resource's own diff when the connection is the same", () => {
    expect(
      withConnectionChange({ changes: true, replaces: ["clientId"] }, "same", "restore-old-first"),
    ).toEqual({
      changes: true,
      replaces: ["clientId"],
      deleteBeforeReplace: false,
    });
  });
});
