import { describe, expect, it } from "vitest";
import { TenantApiError, TenantTimeoutError } from "../provider/errors.js";
import type { Props } from "../provider/json.js";
import { ADMIN_SCOPES, DEFAULT_SEED } from "../provider/local-tenant/index.js";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import type { TenantState } from "../provider/local-tenant/store.js";
import { type Harness, startHarness, useHarnessPerTest } from "./support/harness.js";

const WEB = DEFAULT_SEED_IDS.regularWeb;
const SPA = DEFAULT_SEED_IDS.spa;
const PARTNER = DEFAULT_SEED_IDS.strictThirdParty;
const ADMIN = DEFAULT_SEED_IDS.admin;
const PATCH = "PATCH /api/v2/clients/:id";

let h: Harness;
useHarnessPerTest(
  (started) => (h = started),
  () => h,
);

const web = (fields: Props): Props => ({ __resourceName: "web", clientId: WEB, ...fields });
const wire = (id: string) => h.api.store.getClient(id) as Record<string, unknown>;

/** The whole tenant with one client's listed wire fields taken out, to show nothing else moved. */
function tenantWithout(state: TenantState, id: string, fields: string[]): TenantState {
  const copy = structuredClone(state);
  const client = copy.clients.find((c) => c.client_id === id) as
    | Record<string, unknown>
    | undefined;
  for (const field of fields) delete client?.[field];
  return copy;
}

async function create(fields: Props) {
  return h.clients.create(web(fields));
}

/** Creates a resource named `name` for client `clientId`. */
function createAs(name: string, clientId: string, fields: Props) {
  return h.clients.create({ __resourceName: name, clientId, ...fields });
}

describe("ClientSettings create", () => {
  it("PATCHes the declared fields and nothing else in the tenant", async () => {
    const before = h.api.store.snapshot();
    await create({ callbacks: ["https://portal.example.com/cb"], sso: true });
    expect(wire(WEB)).toMatchObject({ callbacks: ["https://portal.example.com/cb"], sso: true });
    expect(tenantWithout(h.api.store.snapshot(), WEB, ["callbacks", "sso"])).toEqual(
      tenantWithout(before, WEB, ["callbacks", "sso"]),
    );
  });

  it("returns the declared fields as the tenant reports them, with the prior of each owned path", async () => {
    const { id, outs } = await create({
      description: "Portal",
      callbacks: ["https://a.example/cb"],
    });
    expect(id).toBe(WEB);
    expect(outs).toEqual({
      __resourceName: "web",
      clientId: WEB,
      description: "Portal",
      callbacks: ["https://a.example/cb"],
      prior: {
        paths: [
          { path: ["description"], value: "Server-rendered customer portal" },
          {
            path: ["callbacks"],
            value: ["https://portal.example.com/callback", "http://localhost:3000/callback"],
          },
        ],
      },
      ...h.recorded,
    });
  });

  it("sends no PATCH when the client already has the declared values", async () => {
    await create({ description: "Server-rendered customer portal", customLoginPageOn: true });
    expect(h.calls(PATCH)).toBe(0);
  });

  it("keeps the keys of a declared object that the program does not declare", async () => {
    await create({ jwtConfiguration: { lifetimeInSeconds: 3600 } });
    // The seeded client has the platform's create default, which has no alg.
    expect(wire(WEB).jwt_configuration).toEqual({
      lifetime_in_seconds: 3600,
      secret_encoded: false,
    });
  });

  it("refuses a thirdPartySecurityMode that differs from the client's, before any PATCH", async () => {
    const failure = createAs("partner", PARTNER, {
      thirdPartySecurityMode: "permissive",
      sso: true,
    });
    await expect(failure).rejects.toThrowError(
      expect.objectContaining({
        name: "ImmutableFieldError",
        field: "thirdPartySecurityMode",
        live: "strict",
        declared: "permissive",
        message:
          `ClientSettings "partner": thirdPartySecurityMode of client ${PARTNER} cannot change from "strict" to "permissive": ` +
          'the platform fixes it when the client is created. Declare "strict" or remove the property; nothing was sent.',
      }),
    );
    expect(h.calls(PATCH)).toBe(0);
  });

  it("accepts a thirdPartySecurityMode equal to the client's and does not send it", async () => {
    await createAs("partner", PARTNER, { thirdPartySecurityMode: "strict", sso: true });
    expect(wire(PARTNER)).toMatchObject({ third_party_security_mode: "strict", sso: true });
  });

  it("refuses post_login_prompt on a client that is not OIDC conformant, before any PATCH", async () => {
    await expect(
      create({ organizationUsage: "require", organizationRequireBehavior: "post_login_prompt" }),
    ).rejects.toThrowError(
      expect.objectContaining({
        name: "TenantValidationError",
        subject: "organizationRequireBehavior",
        message:
          'ClientSettings "web": organizationRequireBehavior "post_login_prompt" requires oidcConformant to be true, ' +
          `and client ${WEB} is not OIDC conformant; declare oidcConformant: true. Nothing was sent.`,
      }),
    );
    expect(h.calls(PATCH)).toBe(0);
  });

  it("accepts post_login_prompt on a client that is OIDC conformant", async () => {
    await createAs("spa", SPA, {
      organizationUsage: "require",
      organizationRequireBehavior: "post_login_prompt",
    });
    expect(wire(SPA)).toMatchObject({ organization_require_behavior: "post_login_prompt" });
  });

  it("fails with the platform's 404 for a client that does not exist", async () => {
    const failure = createAs("ghost", "nope", { sso: true });
    await expect(failure).rejects.toBeInstanceOf(TenantApiError);
    await expect(failure).rejects.toThrow(
      /^ClientSettings "ghost": GET \/clients\/nope failed with 404 inexistent_client: /,
    );
  });
});

describe("ClientSettings diff", () => {
  it("reports no change when the outputs match the inputs", async () => {
    const inputs = web({
      jwtConfiguration: { lifetimeInSeconds: 3600 },
      callbacks: ["https://a.example/cb"],
    });
    const { outs } = await h.clients.create(inputs);
    expect(await h.clients.diff(WEB, outs, inputs)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
  });

  it("reports a change when a declared field changes", async () => {
    const { outs } = await create({ sso: true });
    expect((await h.clients.diff(WEB, outs, web({ sso: false }))).changes).toBe(true);
  });

  it("reports a change when a field leaves the program", async () => {
    const { outs } = await create({ sso: true, description: "x" });
    expect((await h.clients.diff(WEB, outs, web({ sso: true }))).changes).toBe(true);
  });

  it("replaces the resource when the client id changes", async () => {
    const { outs } = await create({ sso: true });
    expect(
      await h.clients.diff(WEB, outs, { __resourceName: "web", clientId: SPA, sso: true }),
    ).toEqual({
      changes: true,
      replaces: ["clientId"],
      deleteBeforeReplace: false,
    });
  });

  it("throws, naming the client and both values, when thirdPartySecurityMode changes", async () => {
    const { outs } = await createAs("partner", PARTNER, { thirdPartySecurityMode: "strict" });
    await expect(
      h.clients.diff(PARTNER, outs, {
        __resourceName: "partner",
        clientId: PARTNER,
        thirdPartySecurityMode: "permissive",
      }),
    ).rejects.toThrowError(
      `ClientSettings "partner": thirdPartySecurityMode of client ${PARTNER} cannot change from "strict" to "permissive"`,
    );
  });

  it("makes no API call", async () => {
    const { outs } = await create({ sso: true });
    const before = h.apiCalls();
    await h.clients.diff(WEB, outs, web({ sso: false, description: "y" }));
    expect(h.apiCalls()).toBe(before);
  });
});

describe("ClientSettings update", () => {
  it("PATCHes only the field that changed", async () => {
    const { outs } = await create({ sso: true, description: "x" });
    const before = h.api.store.snapshot();
    const updated = await h.clients.update(WEB, outs, web({ sso: true, description: "y" }));
    expect(updated.outs).toMatchObject({ description: "y", sso: true });
    expect(tenantWithout(h.api.store.snapshot(), WEB, ["description"])).toEqual(
      tenantWithout(before, WEB, ["description"]),
    );
    expect(h.calls(PATCH)).toBe(2);
  });

  it("puts a field that left the program back to its prior value", async () => {
    const { outs } = await create({ sso: true, description: "x" });
    await h.clients.update(WEB, outs, web({ sso: true }));
    expect(wire(WEB).description).toBe("Server-rendered customer portal");
  });

  it("remembers the prior value of a field declared after create", async () => {
    const { outs } = await create({ sso: true });
    const updated = await h.clients.update(WEB, outs, web({ sso: true, description: "new" }));
    expect(updated.outs?.prior).toEqual({
      paths: [
        { path: ["description"], value: "Server-rendered customer portal" },
        // The platform answers no sso for a client created without it: its prior is absence.
        { path: ["sso"], absentBelow: 0 },
      ],
    });
  });

  it("repairs drift found by read", async () => {
    const inputs = web({ callbacks: ["https://a.example/cb"] });
    const { outs } = await h.clients.create(inputs);
    h.api.store.putClient({ ...wire(WEB), callbacks: ["https://evil.example/cb"] } as never);
    await h.newCommand();
    const read = await h.clients.read(WEB, outs);
    expect(read.props?.callbacks).toEqual(["https://evil.example/cb"]);
    const diff = await h.clients.diff(WEB, read.props ?? {}, inputs);
    expect(diff.changes).toBe(true);
    await h.clients.update(WEB, read.props ?? {}, inputs);
    expect(wire(WEB).callbacks).toEqual(["https://a.example/cb"]);
  });
});

describe("ClientSettings read", () => {
  it("reports the outputs unchanged when nothing drifted", async () => {
    const { outs } = await create({
      jwtConfiguration: { lifetimeInSeconds: 3600 },
      clientMetadata: { team: "platform" },
    });
    expect(await h.clients.read(WEB, outs)).toEqual({ id: WEB, props: outs });
  });

  it("reports only the declared keys of a declared object", async () => {
    const { outs } = await create({ jwtConfiguration: { lifetimeInSeconds: 3600 } });
    const read = await h.clients.read(WEB, outs);
    expect(read.props?.jwtConfiguration).toEqual({ lifetimeInSeconds: 3600 });
  });

  it("drops the resource when the client no longer exists", async () => {
    const { outs } = await create({ sso: true });
    h.api.store.deleteClient(WEB);
    await h.newCommand();
    expect(await h.clients.read(WEB, outs)).toEqual({ id: "", props: {} });
  });
});

describe("ClientSettings clientMetadata", () => {
  it("sends only the declared keys, leaving the others in place", async () => {
    await create({ clientMetadata: { team: "platform", owner: "ops" } });
    expect(wire(WEB).client_metadata).toEqual({ team: "platform", tier: "gold", owner: "ops" });
  });

  it("removes a key the resource added when it leaves the map", async () => {
    const { outs } = await create({ clientMetadata: { owner: "ops", team: "platform" } });
    await h.clients.update(WEB, outs, web({ clientMetadata: { team: "platform" } }));
    expect(wire(WEB).client_metadata).toEqual({ team: "platform", tier: "gold" });
  });

  it("restores the prior value of a key that leaves the map", async () => {
    const { outs } = await create({ clientMetadata: { owner: "ops", team: "platform" } });
    await h.clients.update(WEB, outs, web({ clientMetadata: { owner: "ops" } }));
    expect(wire(WEB).client_metadata).toEqual({ team: "identity", tier: "gold", owner: "ops" });
  });

  it("remembers the live value of a key declared after create", async () => {
    const { outs } = await create({ clientMetadata: { owner: "ops" } });
    const updated = await h.clients.update(
      WEB,
      outs,
      web({ clientMetadata: { owner: "ops", tier: "silver" } }),
    );
    await h.clients.delete(WEB, updated.outs ?? {});
    expect(wire(WEB).client_metadata).toEqual({ team: "identity", tier: "gold" });
  });
});

describe("ClientSettings delete", () => {
  it("puts every managed field back as it was before create", async () => {
    const before = h.api.store.snapshot();
    const { outs } = await create({
      description: "x",
      jwtConfiguration: { lifetimeInSeconds: 60 },
      clientMetadata: { team: "platform", owner: "ops" },
      callbacks: [],
    });
    await h.clients.delete(WEB, outs);
    expect(h.api.store.snapshot()).toEqual(before);
  });

  it("names the path put back and its prior when the tenant refuses the put-back", async () => {
    const stored = "d".repeat(200);
    h.api.store.putClient({ ...wire(WEB), description: stored } as never);
    const { outs } = await create({ description: "Portal" });
    await expect(h.clients.delete(WEB, outs)).rejects.toThrowError(
      expect.objectContaining({
        name: "PutBackRefusedError",
        code: "ERR_TENANT_PUT_BACK",
        message: expect.stringMatching(
          /^ClientSettings "web": putting description back to its prior \("d{60}…", 200 characters\) was refused: PATCH \/clients\/\w+ failed with 400 /,
        ),
      }),
    );
  });

  it("succeeds when the client was deleted meanwhile", async () => {
    const { outs } = await create({ description: "x" });
    h.api.store.deleteClient(WEB);
    await expect(h.clients.delete(WEB, outs)).resolves.toBeUndefined();
  });

  it("sends nothing when nothing was changed", async () => {
    const { outs } = await create({ description: "Server-rendered customer portal" });
    await h.clients.delete(WEB, outs);
    expect(h.calls(PATCH)).toBe(0);
  });
});

describe("ClientSettings under failures", () => {
  it("renews an access token the tenant no longer accepts and carries on", async () => {
    await h.stop();
    let skewMs = 0;
    h = await startHarness({ clock: () => Date.now() + skewMs, tokenTtlSeconds: 3600 });
    const { outs } = await create({ sso: true });
    skewMs = 2 * 3600 * 1000; // the tenant now sees the cached token as expired
    await h.clients.update(WEB, outs, web({ sso: false }));
    expect(wire(WEB).sso).toBe(false);
    expect(
      h.api.stats().counts["GET /api/v2/clients/:id 401"] ?? h.api.stats().counts[`${PATCH} 401`],
    ).toBe(1);
    expect(h.api.stats().token).toBe(2);
  });

  it("retries 5xx answers to success", async () => {
    await h.stop();
    h = await startHarness({ faults: { error: 0.5 }, random: 7 });
    await create({ sso: true, description: "x" });
    expect(wire(WEB)).toMatchObject({ sso: true, description: "x" });
    const errors = Object.entries(h.api.stats().counts).filter(([key]) => / 50[03]$/.test(key));
    expect(errors.length).toBeGreaterThan(0);
  });

  it("waits out 429 answers and succeeds", async () => {
    await h.stop();
    h = await startHarness({ rateLimit: { rate: 20, burst: 1 } });
    await Promise.all([
      create({ sso: true }),
      createAs("spa", SPA, { sso: true }),
      createAs("partner", PARTNER, { sso: true }),
    ]);
    expect([wire(WEB).sso, wire(SPA).sso, wire(PARTNER).sso]).toEqual([true, true, true]);
  });

  it("times out a request that never answers with a clear error", async () => {
    await h.stop();
    h = await startHarness({
      faults: { latency: { min: 5000, max: 5000 } },
      config: (api) => ({
        "tenant:domain": api.domain,
        "tenant:clientId": api.clientId,
        "tenant:clientSecret": api.clientSecret,
        "tenant:requestTimeoutSeconds": "0.2",
        "tenant:operationTimeoutSeconds": "1",
      }),
    });
    const failure = create({ sso: true });
    await expect(failure).rejects.toBeInstanceOf(TenantTimeoutError);
    await expect(failure).rejects.toThrow(/^ClientSettings "web": /);
  });
});

describe("ClientSettings restoring values the API would refuse as they are", () => {
  it("restores an empty organizationDiscoveryMethods list as null", async () => {
    h.api.store.putClient({ ...wire(SPA), organization_discovery_methods: [] } as never);
    const { outs } = await createAs("spa", SPA, { organizationDiscoveryMethods: ["email"] });
    await h.clients.delete(SPA, outs);
    // The null sent removes the field, as on the platform.
    expect(wire(SPA)).not.toHaveProperty("organization_discovery_methods");
  });
});

describe("ClientSettings reads through the client list", () => {
  const LIST = "GET /api/v2/clients";
  const GET = "GET /api/v2/clients/:id";

  /** Reads, all at once as Pulumi's parallel refresh does, `description` of every listed client. */
  async function readAll(ids: readonly string[]) {
    return Promise.all(
      ids.map((id, i) =>
        h.clients.read(id, { __resourceName: `c${i}`, clientId: id, description: "declared" }),
      ),
    );
  }

  async function largeTenant(extraClients: number): Promise<string[]> {
    await h.stop();
    h = await startHarness({ extraClients });
    return h.api.store.snapshot().clients.map((client) => client.client_id);
  }

  it("reads 150 clients of a 155-client tenant with two list pages and no single GET", async () => {
    const ids = await largeTenant(150);
    const reads = await readAll(ids.slice(0, 150));
    expect(reads.map((read) => read.props?.description)).toEqual(
      ids.slice(0, 150).map((id) => wire(id).description),
    );
    expect([h.calls(LIST), h.calls(GET)]).toEqual([2, 0]);
  });

  it("serves a read after a PATCH in the same command from the PATCH answer", async () => {
    await create({ description: "Portal v2" });
    const before = h.api.stats().api;
    const read = await h.clients.read(WEB, web({ description: "Portal v2" }));
    expect(read.props?.description).toBe("Portal v2");
    expect(h.api.stats().api).toBe(before);
  });

  it("serves no read of a new command from what an earlier command fetched", async () => {
    const ids = await largeTenant(150);
    await readAll(ids);
    const target = ids[42] as string;
    h.api.store.putClient({ ...wire(target), description: "changed by hand" } as never);
    await h.newCommand();
    const [read] = await readAll([target]);
    expect(read?.props?.description).toBe("changed by hand");
  });
});

describe("key material at preview (issue 54, item 5)", () => {
  /** A harness whose provider credentials lack read:client_keys. */
  async function withoutKeyScope() {
    await h.stop();
    h = await startHarness({
      seed: {
        ...DEFAULT_SEED,
        grants: [
          ...(DEFAULT_SEED.grants ?? []).filter(({ client_id }) => client_id !== ADMIN),
          {
            client_id: ADMIN,
            scope: ADMIN_SCOPES.filter((scope) => scope !== "read:client_keys"),
          },
        ],
      },
    });
  }
  const refusal =
    `encryptionKey of client ${WEB} cannot be seen: the tenant answers it only to credentials ` +
    "with read:client_keys (or read:client_credentials), and without it what the program does " +
    "not declare there would be lost and nothing could be put back; grant read:client_keys to " +
    "the provider's credentials. Nothing was sent.";

  it("fails the check of a create declaring key material the token cannot see, calling no API", async () => {
    await withoutKeyScope();
    const checked = await h.clients.check({}, web({ encryptionKey: { subject: "CN=y" } }));
    expect(checked.failures).toEqual([{ property: "", reason: refusal }]);
    expect(h.apiCalls()).toBe(0);
  });

  it("fails the diff of an update putting key material back without the scope, naming the resource", async () => {
    const { outs } = await create({ encryptionKey: { subject: "CN=y" } });
    await withoutKeyScope();
    // The same stack config tenant as the new harness's, so that the diff is an update.
    const olds = { ...outs, ...h.recorded };
    await expect(h.clients.diff(WEB, olds, web({ description: "new" }))).rejects.toThrow(
      `ClientSettings "web": ${refusal}`,
    );
    expect(h.apiCalls()).toBe(0);
  });

  it("asks for no token at check or diff when the program declares no key material", async () => {
    await withoutKeyScope();
    await h.clients.check({}, web({ description: "new" }));
    await h.clients.diff(WEB, web({ description: "old" }), web({ description: "new" }));
    expect(h.api.stats().token).toBe(0);
  });
});
