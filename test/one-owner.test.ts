import { describe, expect, it } from "vitest";
import type { Props } from "../provider/json.js";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { claimOf, ownerConflict, type PathClaim } from "../provider/plan/one-owner.js";
import { UNKNOWN } from "../provider/unknown.js";
import { type Harness, stackConfig, useHarnessPerTest } from "./support/harness.js";

const WEB = DEFAULT_SEED_IDS.regularWeb;
const SPA = DEFAULT_SEED_IDS.spa;
const ACME = "https://acme.tenants.example";

const settings = (name: string, fields: Props): Props => ({
  __resourceName: name,
  clientId: WEB,
  ...fields,
});

/** The claim of a resource of the stack config's tenant `ACME`, which must be known. */
function claim(name: string, fields: Props): PathClaim {
  const made = claimOf(settings(name, fields), ACME);
  if (made === undefined) throw new Error("no claim");
  return made;
}

const LIFETIME = { jwtConfiguration: { lifetimeInSeconds: 600 } };
const ALG = { jwtConfiguration: { alg: "HS256" } };

describe("ownerConflict", () => {
  it("names both resources, the shared path in the user's spelling and the client", () => {
    expect(ownerConflict([claim("a", LIFETIME)], claim("b", LIFETIME))).toEqual({
      property: "",
      reason:
        `ClientSettings "b" declares jwtConfiguration.lifetimeInSeconds of client ${WEB}, which ` +
        'ClientSettings "a" also declares: a path of a client has one owner, which alone ' +
        "remembers and puts back its value; declare each path in one ClientSettings only",
    });
  });

  it("is a conflict when one path lies inside the other", () => {
    const whole = claim("a", { jwtConfiguration: {} });
    expect(ownerConflict([whole], claim("b", ALG))?.reason).toContain(
      "declares jwtConfiguration.alg of client",
    );
  });

  it("keeps the keys of a map as the program spells them", () => {
    const a = claim("a", { clientMetadata: { cost_center: "1" } });
    expect(
      ownerConflict([a], claim("b", { clientMetadata: { cost_center: "2" } }))?.reason,
    ).toContain("declares clientMetadata.cost_center of client");
  });

  it("lists three shared paths and counts the rest", () => {
    const many = { description: "d", sso: true, logoUri: "", appType: "spa" };
    expect(ownerConflict([claim("a", many)], claim("b", many))?.reason).toContain(
      "declares description, logoUri, sso and 1 more of client",
    );
  });

  it("is none for disjoint paths of one client", () => {
    expect(ownerConflict([claim("a", LIFETIME)], claim("b", ALG))).toBeUndefined();
  });

  it("is none for the resource's own earlier claim", () => {
    expect(ownerConflict([claim("a", LIFETIME)], claim("a", LIFETIME))).toBeUndefined();
  });

  it("is none for another client, or the same client of another tenant", () => {
    const spa = claimOf({ __resourceName: "b", clientId: SPA, ...LIFETIME }, ACME);
    const elsewhere = claimOf(
      settings("b", { ...LIFETIME, tenant: { domain: "other.tenants.example", apiToken: "t" } }),
      ACME,
    );
    for (const other of [spa, elsewhere]) {
      expect(other).toBeDefined();
      expect(ownerConflict([claim("a", LIFETIME)], other as PathClaim)).toBeUndefined();
    }
  });
});

describe("claimOf", () => {
  it("claims nothing while the client or the tenant cannot be told", () => {
    expect(claimOf(settings("a", { clientId: UNKNOWN, ...LIFETIME }), ACME)).toBeUndefined();
    expect(claimOf(settings("a", { tenant: UNKNOWN, ...LIFETIME }), ACME)).toBeUndefined();
    expect(claimOf(settings("a", LIFETIME), undefined)).toBeUndefined();
  });

  it("claims in the tenant of the tenant input, by origin", () => {
    const input = { tenant: { domain: "acme.tenants.example", apiToken: "t" } };
    expect(claimOf(settings("a", { ...LIFETIME, ...input }), undefined)?.tenant).toBe(ACME);
  });
});

describe("one owner per path in a run", () => {
  let h: Harness;
  useHarnessPerTest(
    (started) => (h = started),
    () => h,
  );

  it("fails the check of a second resource declaring a path of the same client", async () => {
    expect((await h.clients.check({}, settings("a", LIFETIME))).failures).toEqual([]);
    const second = await h.clients.check({}, settings("b", LIFETIME));
    expect(second.failures).toEqual([
      {
        property: "",
        reason: expect.stringMatching(
          /^ClientSettings "b" declares jwtConfiguration\.lifetimeInSeconds of client .*, which ClientSettings "a" also declares/,
        ),
      },
    ]);
  });

  it("passes the checks of resources on disjoint paths, and a resource checked twice", async () => {
    for (const [name, fields] of [
      ["a", LIFETIME],
      ["b", ALG],
      ["a", LIFETIME],
    ] as const) {
      expect((await h.clients.check({}, settings(name, fields))).failures).toEqual([]);
    }
  });

  it("forgets the claims of the last command at configure", async () => {
    await h.clients.check({}, settings("a", LIFETIME));
    await h.clients.configure({
      config: stackConfig({
        "tenant:domain": h.api.domain,
        "tenant:clientId": h.api.clientId,
        "tenant:clientSecret": h.api.clientSecret,
      }),
    });
    expect((await h.clients.check({}, settings("b", LIFETIME))).failures).toEqual([]);
  });

  it("creates two resources on disjoint paths of one client in parallel, and each puts back only its own", async () => {
    const jwt = () =>
      (h.api.store.getClient(WEB) as Record<string, unknown>).jwt_configuration as Props;
    const seeded = jwt();
    const a = settings("a", LIFETIME);
    const b = settings("b", ALG);
    const [createdA, createdB] = await Promise.all([h.clients.create(a), h.clients.create(b)]);
    expect(jwt()).toMatchObject({ lifetime_in_seconds: 600, alg: "HS256" });

    await h.clients.delete(createdA.id, createdA.outs ?? {});
    expect(jwt()).toMatchObject({ lifetime_in_seconds: seeded.lifetime_in_seconds, alg: "HS256" });
    await h.clients.delete(createdB.id, createdB.outs ?? {});
    expect(jwt()).toEqual(seeded);
  });
});
