/**
 * The decisions of ClientSettings (provider/plan/client-settings.ts), without a server: what is
 * sent, remembered and reported for given inputs, stored state and live client, all on the wire's
 * spelling inside and the user's in the outputs.
 */

import { describe, expect, it } from "vitest";
import { ImmutableFieldError } from "../provider/errors.js";
import type { Props } from "../provider/json.js";
import {
  clientUpdate,
  fieldsToRead,
  planCreate,
  planDelete,
  planDiff,
  planRead,
  planUpdate,
} from "../provider/plan/client-settings.js";
import { type DeclaredClient, declaredClient } from "../provider/plan/declared.js";
import { UNKNOWN } from "../provider/unknown.js";

const ID = "client-1";

/** Inputs of a resource named "web" for client {@link ID}. */
const inputs = (fields: Props): Props => ({ __resourceName: "web", clientId: ID, ...fields });

/** What {@link inputs} of `fields` declare, as every decision takes it. */
const declared = (fields: Props) => declaredClient(inputs(fields));

/** `jwt_configuration` as the platform stores it: defaults filled in, and a key it added. */
const jwt = (lifetime: number): Props => ({
  alg: "RS256",
  lifetime_in_seconds: lifetime,
  secret_encoded: false,
  fooBar: 1,
});

/** A client as the API answers it, with a key the platform added inside jwt_configuration. */
const live = (fields: Props = {}): Props => ({
  client_id: ID,
  description: "Portal",
  sso: false,
  callbacks: ["https://portal.example/cb"],
  oidc_conformant: false,
  jwt_configuration: jwt(36000),
  client_metadata: { team: "identity", tier: "gold" },
  organization_discovery_methods: [],
  ...fields,
});

/**
 * `client` after a PATCH of `body`, as the platform applies one: top-level fields replaced,
 * `client_metadata` merged key by key, a null value removing its key.
 */
function patched(client: Props, body: Props): Props {
  const metadata = { ...(client.client_metadata as Props), ...(body.client_metadata as Props) };
  const merged = Object.entries(metadata).filter(([, value]) => value !== null);
  return { ...client, ...body, client_metadata: Object.fromEntries(merged) };
}

/** The outputs a create of `fields` against `client` leaves in the state. */
function created(fields: Props, client: Props = live()): Props {
  const plan = planCreate(declared(fields), client);
  return plan.report(patched(client, plan.send));
}

describe("planDiff", () => {
  it("reports no change when the outputs hold the declared values", () => {
    const outs = created({ jwtConfiguration: { lifetimeInSeconds: 36000 } });
    expect(planDiff(declared({ jwtConfiguration: { lifetimeInSeconds: 36000 } }), outs)).toEqual({
      changes: false,
      replaces: [],
    });
  });

  it("reports a change when a declared nested key changes", () => {
    const outs = created({ jwtConfiguration: { lifetimeInSeconds: 36000 } });
    const diff = planDiff(declared({ jwtConfiguration: { lifetimeInSeconds: 60 } }), outs);
    expect(diff.changes).toBe(true);
  });

  it("reports a change when a field leaves the program", () => {
    expect(planDiff(declared({}), created({ sso: true })).changes).toBe(true);
  });

  it("reports a change when a metadata key leaves the map", () => {
    const outs = created({ clientMetadata: { team: "identity", owner: "ops" } });
    expect(planDiff(declared({ clientMetadata: { team: "identity" } }), outs).changes).toBe(true);
  });

  it("reports a change for a value still unknown during preview", () => {
    expect(planDiff(declared({ sso: UNKNOWN }), created({ sso: true })).changes).toBe(true);
  });

  it("replaces the resource when the client id changes", () => {
    const outs = created({ sso: true });
    const other = declaredClient({ ...inputs({ sso: true }), clientId: "other" });
    expect(planDiff(other, outs)).toEqual({ changes: true, replaces: ["clientId"] });
  });

  it("refuses a change of thirdPartySecurityMode, naming the client and both values", () => {
    const outs = created(
      { thirdPartySecurityMode: "strict" },
      live({ third_party_security_mode: "strict" }),
    );
    expect(() => planDiff(declared({ thirdPartySecurityMode: "permissive" }), outs)).toThrowError(
      expect.objectContaining({
        name: "ImmutableFieldError",
        field: "thirdPartySecurityMode",
        clientId: ID,
        live: "strict",
        declared: "permissive",
        message:
          `thirdPartySecurityMode of client ${ID} cannot change from "strict" to "permissive": ` +
          'the platform fixes it when the client is created. Declare "strict" or remove the property; nothing was sent.',
      }),
    );
  });
});

describe("fieldsToRead", () => {
  it("asks for the declared fields by their wire names", () => {
    expect(fieldsToRead(declared({ sso: true, jwtConfiguration: {} }))).toEqual([
      "jwt_configuration",
      "sso",
    ]);
  });

  it("also asks for oidc_conformant when organizationRequireBehavior is declared", () => {
    expect(fieldsToRead(declared({ organizationRequireBehavior: "no_prompt" }))).toEqual([
      "organization_require_behavior",
      "oidc_conformant",
    ]);
  });
});

describe("planCreate", () => {
  it("sends only the declared fields whose live value differs, by their wire names", () => {
    const plan = planCreate(declared({ description: "Portal", sso: true }), live());
    expect(plan.send).toEqual({ sso: true });
  });

  it("sends only the declared keys of an object the platform merges, never the keys beside them", () => {
    const plan = planCreate(declared({ jwtConfiguration: { lifetimeInSeconds: 60 } }), live());
    expect(plan.send).toEqual({ jwt_configuration: { lifetime_in_seconds: 60 } });
  });

  it("sends only the declared metadata keys", () => {
    const plan = planCreate(declared({ clientMetadata: { owner: "ops", tier: "gold" } }), live());
    expect(plan.send).toEqual({ client_metadata: { owner: "ops" } });
  });

  it("remembers the live value of each declared path, as the API answered it", () => {
    const plan = planCreate(declared({ jwtConfiguration: { lifetimeInSeconds: 60 } }), live());
    expect(plan.remember).toEqual([
      { path: ["jwt_configuration", "lifetime_in_seconds"], value: 36000 },
    ]);
  });

  it("remembers a declared metadata key the client lacks as absent", () => {
    const plan = planCreate(declared({ clientMetadata: { owner: "ops" } }), live());
    expect(plan.remember).toEqual([{ path: ["client_metadata", "owner"], absentBelow: 1 }]);
  });

  it("reports the declared keys in the user's spelling, with the prior of each owned path", () => {
    const plan = planCreate(declared({ jwtConfiguration: { lifetimeInSeconds: 60 } }), live());
    expect(
      plan.report({ jwt_configuration: { alg: "RS256", lifetime_in_seconds: 60, fooBar: 1 } }),
    ).toEqual({
      __resourceName: "web",
      clientId: ID,
      jwtConfiguration: { lifetimeInSeconds: 60 },
      prior: { paths: [{ path: ["jwt_configuration", "lifetime_in_seconds"], value: 36000 }] },
    });
  });

  it("reports the live client when nothing was sent", () => {
    expect(planCreate(declared({ description: "Portal" }), live()).report()).toMatchObject({
      description: "Portal",
    });
  });

  it("does not send a thirdPartySecurityMode equal to the client's", () => {
    const plan = planCreate(
      declared({ thirdPartySecurityMode: "strict" }),
      live({ third_party_security_mode: "strict" }),
    );
    expect(plan.send).toEqual({});
  });

  it("refuses a thirdPartySecurityMode on a client that has none", () => {
    expect(() => planCreate(declared({ thirdPartySecurityMode: "strict" }), live())).toThrowError(
      expect.objectContaining({
        name: "ImmutableFieldError",
        live: null,
        declared: "strict",
        message:
          `thirdPartySecurityMode of client ${ID} cannot be set to "strict": the client has none and ` +
          "the platform fixes it when the client is created. Remove the property; nothing was sent.",
      }),
    );
  });

  it("refuses post_login_prompt on a client that is not OIDC conformant", () => {
    expect(() =>
      planCreate(declared({ organizationRequireBehavior: "post_login_prompt" }), live()),
    ).toThrowError(
      expect.objectContaining({
        name: "TenantValidationError",
        subject: "organizationRequireBehavior",
        message:
          'organizationRequireBehavior "post_login_prompt" requires oidcConformant to be true, ' +
          `and client ${ID} is not OIDC conformant; declare oidcConformant: true. Nothing was sent.`,
      }),
    );
  });

  it("accepts post_login_prompt when the program declares oidcConformant: true", () => {
    const plan = planCreate(
      declared({ organizationRequireBehavior: "post_login_prompt", oidcConformant: true }),
      live(),
    );
    expect(plan.send).toEqual({
      oidc_conformant: true,
      organization_require_behavior: "post_login_prompt",
    });
  });
});

describe("clientUpdate: needsLive", () => {
  /** Whether the update from `olds` to what `news` declares needs the live client. */
  const needsLive = (olds: Props, news: DeclaredClient) => clientUpdate(news, olds).needsLive;
  const olds = created({ sso: true, jwtConfiguration: { lifetimeInSeconds: 60 } });

  it("is false when only a plain value changes", () => {
    expect(
      needsLive(olds, declared({ sso: false, jwtConfiguration: { lifetimeInSeconds: 60 } })),
    ).toBe(false);
  });

  it("is true when a field is newly declared, to remember its prior value", () => {
    const news = declared({ sso: true, jwtConfiguration: { lifetimeInSeconds: 60 }, name: "x" });
    expect(needsLive(olds, news)).toBe(true);
  });

  it("is true when a declared object changes, to merge it over the live one", () => {
    const news = declared({ sso: true, jwtConfiguration: { lifetimeInSeconds: 70 } });
    expect(needsLive(olds, news)).toBe(true);
  });

  it("is true when a metadata key is newly declared", () => {
    const metadataOlds = created({ clientMetadata: { owner: "ops" } });
    const news = declared({ clientMetadata: { owner: "ops", region: "eu" } });
    expect(needsLive(metadataOlds, news)).toBe(true);
  });

  it("is false when only the value of a remembered metadata key changes", () => {
    const metadataOlds = created({ clientMetadata: { owner: "ops" } });
    expect(needsLive(metadataOlds, declared({ clientMetadata: { owner: "dev" } }))).toBe(false);
  });

  it("is true when organizationRequireBehavior changes, to check the live oidc_conformant", () => {
    const behaviorOlds = created({ organizationRequireBehavior: "no_prompt" });
    const news = declared({ organizationRequireBehavior: "pre_login_prompt" });
    expect(needsLive(behaviorOlds, news)).toBe(true);
  });
});

describe("planUpdate", () => {
  /** The plan of the update from `olds` to what `news` declares, `client` read when given. */
  const planned = (olds: Props, news: DeclaredClient, client?: Props) =>
    planUpdate(clientUpdate(news, olds), client);

  it("sends only the field that changed", () => {
    const olds = created({ sso: true, description: "x" });
    expect(planned(olds, declared({ sso: true, description: "y" })).send).toEqual({
      description: "y",
    });
  });

  it("puts a field that left the program back to its prior value", () => {
    const olds = created({ sso: true, description: "x" });
    expect(planned(olds, declared({ sso: true })).send).toEqual({ description: "Portal" });
  });

  it("remembers the live value of a field declared after create", () => {
    const olds = created({ sso: true });
    const plan = planned(olds, declared({ sso: true, description: "new" }), live());
    expect(plan.remember).toEqual([
      { path: ["description"], value: "Portal" },
      { path: ["sso"], value: false },
    ]);
  });

  it("removes a metadata key this resource added when it leaves the map", () => {
    const olds = created({ clientMetadata: { owner: "ops", team: "platform" } });
    const plan = planned(olds, declared({ clientMetadata: { team: "platform" } }));
    expect(plan.send).toEqual({ client_metadata: { owner: null } });
  });

  it("restores the prior value of a metadata key that leaves the map", () => {
    const olds = created({ clientMetadata: { owner: "ops", team: "platform" } });
    const plan = planned(olds, declared({ clientMetadata: { owner: "ops" } }));
    expect(plan.send).toEqual({ client_metadata: { team: "identity" } });
  });

  it("refuses a thirdPartySecurityMode newly declared that differs from the live one", () => {
    const olds = created({ sso: true }, live({ third_party_security_mode: "strict" }));
    const news = declared({ sso: true, thirdPartySecurityMode: "permissive" });
    expect(() => planned(olds, news, live({ third_party_security_mode: "strict" }))).toThrowError(
      ImmutableFieldError,
    );
  });
});

describe("planRead", () => {
  it("reports the live values of the declared keys only", () => {
    const outs = created({ jwtConfiguration: { lifetimeInSeconds: 60 } });
    const props = planRead(
      outs,
      live({ jwt_configuration: { alg: "HS256", lifetime_in_seconds: 7, fooBar: 2 } }),
    );
    expect(props.jwtConfiguration).toEqual({ lifetimeInSeconds: 7 });
  });

  it("keeps the prior values as they were stored", () => {
    const outs = created({ jwtConfiguration: { lifetimeInSeconds: 60 } });
    expect(planRead(outs, live()).prior).toEqual(outs.prior);
  });
});

describe("planDelete", () => {
  it("puts every changed field back as it was before create", () => {
    const client = live();
    const plan = planCreate(
      declared({ description: "x", jwtConfiguration: { lifetimeInSeconds: 60 } }),
      client,
    );
    const after = patched(client, plan.send);
    expect(planDelete(plan.report(after), after).send).toEqual({
      description: "Portal",
      jwt_configuration: { lifetime_in_seconds: 36000 },
    });
  });

  it("sends nothing when nothing was changed", () => {
    expect(planDelete(created({ description: "Portal" }), live()).send).toEqual({});
  });

  it("never sends thirdPartySecurityMode", () => {
    const outs = created(
      { thirdPartySecurityMode: "strict" },
      live({ third_party_security_mode: "strict" }),
    );
    expect(planDelete(outs, live({ third_party_security_mode: "strict" })).send).toEqual({});
  });

  it("restores an empty list that may not be empty as null", () => {
    const outs = created({ organizationDiscoveryMethods: ["email"] });
    const after = live({ organization_discovery_methods: ["email"] });
    expect(planDelete(outs, after).send).toEqual({ organization_discovery_methods: null });
  });

  it("restores a prior value stored by version 0.1.0 in the user's spelling in the wire's", () => {
    const outs = {
      ...inputs({ jwtConfiguration: { lifetimeInSeconds: 60 }, mobile: { ios: { teamId: "B" } } }),
      prior: {
        jwtConfiguration: { alg: "RS256", lifetimeInSeconds: 36000, newSetting: 1 },
        mobile: { ios: { teamId: "A" } },
      },
    };
    const now = live({
      jwt_configuration: { alg: "RS256", lifetime_in_seconds: 60, new_setting: 1 },
      mobile: { ios: { team_id: "B" } },
    });
    expect(planDelete(outs, now).send).toEqual({
      jwt_configuration: { lifetime_in_seconds: 36000 },
      mobile: { ios: { team_id: "A" } },
    });
  });
});
