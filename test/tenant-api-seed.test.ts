/**
 * Seed data of the local tenant API (the default tenant and the `--seed` format) and the store
 * tests use to read and change the tenant directly.
 */

import { describe, expect, it } from "vitest";
import { SeedError } from "../provider/errors.js";
import {
  ADMIN_SCOPES,
  DEFAULT_SEED,
  DEFAULT_SEED_IDS,
  loadSeed,
  READ_ONLY_SCOPES,
  startTenantApi,
  TenantStore,
} from "../provider/local-tenant/index.js";

describe("default seed", () => {
  it("holds a regular web app, a SPA, a strict third-party client and two machine-to-machine clients", () => {
    const { state, adminClientId, readOnlyClientId } = loadSeed();
    expect(state.clients.map((c) => [c.client_id, c.app_type])).toEqual([
      [DEFAULT_SEED_IDS.regularWeb, "regular_web"],
      [DEFAULT_SEED_IDS.spa, "spa"],
      [DEFAULT_SEED_IDS.strictThirdParty, "regular_web"],
      [DEFAULT_SEED_IDS.admin, "non_interactive"],
      [DEFAULT_SEED_IDS.readOnly, "non_interactive"],
    ]);
    expect(adminClientId).toBe(DEFAULT_SEED_IDS.admin);
    expect(readOnlyClientId).toBe(DEFAULT_SEED_IDS.readOnly);
  });

  it("grants the admin client every scope the routes check and the read-only one read scopes", () => {
    const { state } = loadSeed();
    expect(state.grants).toEqual([
      { client_id: DEFAULT_SEED_IDS.admin, scope: [...ADMIN_SCOPES] },
      { client_id: DEFAULT_SEED_IDS.readOnly, scope: [...READ_ONLY_SCOPES] },
    ]);
    expect(READ_ONLY_SCOPES).toEqual([
      "read:clients",
      "read:guardian_factors",
      "read:event_streams",
    ]);
  });

  it("selects the push provider guardian and seeds two event streams of 26 characters", () => {
    const { state } = loadSeed(DEFAULT_SEED);
    expect(state.pushProvider).toBe("guardian");
    expect(state.eventStreams.map((s) => s.id)).toEqual([
      DEFAULT_SEED_IDS.webhookStream,
      DEFAULT_SEED_IDS.eventBridgeStream,
    ]);
    for (const stream of state.eventStreams) expect(stream.id).toHaveLength(26);
  });

  it("gives confidential clients a fresh 64-character secret on every load, and public ones none", () => {
    const first = loadSeed().state.clients;
    const second = loadSeed().state.clients;
    const secretOf = (clients: typeof first, id: string) =>
      clients.find((c) => c.client_id === id)?.client_secret;
    expect(secretOf(first, DEFAULT_SEED_IDS.admin)).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(secretOf(first, DEFAULT_SEED_IDS.admin)).not.toBe(
      secretOf(second, DEFAULT_SEED_IDS.admin),
    );
    expect(secretOf(first, DEFAULT_SEED_IDS.spa)).toBeUndefined();
  });
});

describe("seed format", () => {
  it("fills the response fields a seeded client leaves out with the platform's defaults", () => {
    const { state } = loadSeed({
      tenant: "t1",
      clients: [{ client_id: "C1", name: "One", app_type: "native" }],
    });
    // As the platform answers a client created so (recorded: TestAccClientMobile #0), plus the
    // two response-only fields the local tenant always answers.
    const { signing_keys: _keys, ...answered } = state.clients[0] ?? { client_id: "" };
    expect(answered).toEqual({
      client_id: "C1",
      name: "One",
      app_type: "native",
      tenant: "t1",
      global: false,
      is_first_party: true,
      is_token_endpoint_ip_header_trusted: false,
      oidc_conformant: false,
      jwt_configuration: { secret_encoded: false, lifetime_in_seconds: 36000 },
      sso_disabled: false,
      cross_origin_authentication: false,
      grant_types: [],
      custom_login_page_on: true,
      refresh_token: {
        rotation_type: "non-rotating",
        expiration_type: "non-expiring",
        leeway: 0,
        token_lifetime: 2592000,
        infinite_token_lifetime: true,
        idle_token_lifetime: 1296000,
        infinite_idle_token_lifetime: true,
      },
    });
  });

  it("adds an admin and a read-only machine-to-machine client when the seed names none", () => {
    const { state, adminClientId, readOnlyClientId } = loadSeed({ clients: [] });
    expect(adminClientId).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(readOnlyClientId).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(state.grants).toEqual([
      { client_id: adminClientId, scope: [...ADMIN_SCOPES] },
      { client_id: readOnlyClientId, scope: [...READ_ONLY_SCOPES] },
    ]);
    expect(state.clients.map((c) => c.app_type)).toEqual(["non_interactive", "non_interactive"]);
  });

  it("accepts event streams as ids or as records", () => {
    const { state } = loadSeed({
      eventStreams: ["est_0000000000000000000001", { id: "est_0000000000000000000002", name: "n" }],
    });
    expect(state.eventStreams).toEqual([
      { id: "est_0000000000000000000001" },
      { id: "est_0000000000000000000002", name: "n" },
    ]);
  });

  it("refuses a seed whose clients break the schema the API enforces, naming each problem", () => {
    expect(() =>
      loadSeed({
        clients: [
          { client_id: "A", name: "<a>" },
          { client_id: "B", name: "b", description: "d".repeat(141) },
        ],
      }),
    ).toThrow(/^invalid seed: clients\[0\]\.name: .*; clients\[1\]\.description: /);
  });

  it("refuses a seeded client with post_login_prompt that is not OIDC conformant", () => {
    expect(() =>
      loadSeed({
        clients: [
          { name: "x", organization_require_behavior: "post_login_prompt", oidc_conformant: false },
        ],
      }),
    ).toThrow(SeedError);
  });

  it("refuses an event stream id that is not 26 characters", () => {
    expect(() => loadSeed({ eventStreams: ["est_123"] })).toThrow(
      'invalid seed: eventStreams[0]: must be exactly 26 characters (got 7) ("est_123")',
    );
  });

  it("refuses duplicate ids, unknown members and credentials that cannot get a token", () => {
    let message = "";
    try {
      loadSeed({
        clients: [
          { client_id: "D", name: "d" },
          { client_id: "D", name: "again" },
        ],
        eventStreams: ["est_0000000000000000000001", "est_0000000000000000000001"],
        admin: "D",
        readOnly: "nobody",
        grants: [{ client_id: "ghost", scope: [] }],
        extra: true,
      } as Parameters<typeof loadSeed>[0]);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("extra: is not a seed member");
    expect(message).toContain('clients[1].client_id: "D" is already the id of clients[0]');
    expect(message).toContain("admin: client D has no client_secret");
    expect(message).toContain("readOnly: no seeded client has client_id nobody");
    expect(message).toContain("grants: no seeded client has client_id ghost");
    expect(message).toContain(
      'eventStreams[1]: "est_0000000000000000000001" is already the id of eventStreams[0]',
    );
  });

  it("starts a server on a seed object", async () => {
    const api = await startTenantApi({
      seed: { clients: [{ client_id: "Solo", name: "Solo" }], eventStreams: [] },
    });
    try {
      expect(api.clients[0]).toBe("Solo");
      expect(api.eventStreams).toEqual([]);
      expect(api.store.getClient("Solo")?.name).toBe("Solo");
    } finally {
      await api.stop();
    }
  });
});

describe("TenantStore", () => {
  it("hands out copies, so changing a returned client changes nothing stored", () => {
    const store = new TenantStore(loadSeed().state);
    const client = store.getClient(DEFAULT_SEED_IDS.spa);
    if (client === undefined) throw new Error("seeded SPA missing");
    client.name = "changed";
    expect(store.getClient(DEFAULT_SEED_IDS.spa)?.name).toBe("Dashboard SPA");
  });

  it("writes clients, the provider and event streams, and reset() restores the start", () => {
    const store = new TenantStore(loadSeed().state);
    const spa = store.getClient(DEFAULT_SEED_IDS.spa);
    store.putClient({ ...spa, client_id: DEFAULT_SEED_IDS.spa, sso: true });
    store.setProvider("direct");
    store.deleteEventStream(DEFAULT_SEED_IDS.webhookStream);
    expect(store.getClient(DEFAULT_SEED_IDS.spa)?.sso).toBe(true);
    expect(store.getProvider()).toBe("direct");
    expect(store.eventStreamExists(DEFAULT_SEED_IDS.webhookStream)).toBe(false);
    store.reset();
    // The platform answers no `sso` for a client created without it.
    expect(store.getClient(DEFAULT_SEED_IDS.spa)?.sso).toBeUndefined();
    expect(store.getProvider()).toBe("guardian");
    expect(store.eventStreamExists(DEFAULT_SEED_IDS.webhookStream)).toBe(true);
  });

  it("takes a snapshot of the whole tenant as plain JSON", () => {
    const store = new TenantStore(loadSeed().state);
    const snapshot = store.snapshot();
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
    expect(snapshot.clients).toHaveLength(5);
    expect(snapshot.tenant).toBe("local-tenant");
  });
});
