import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Props } from "../provider/json.js";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { isSecret, secret } from "../provider/plugin/engine-values.js";
import { PluginFace, parseUrn } from "../provider/plugin/plugin-face.js";
import { ClientSettingsProvider } from "../provider/providers/client-settings.js";
import { EventStreamDeletionProvider } from "../provider/providers/event-stream-deletion.js";
import { PushProviderSelectionProvider } from "../provider/providers/push-provider-selection.js";
import { type Harness, useHarnessPerTest } from "./support/harness.js";
import { configuredFace } from "./support/plugin-face.js";

/**
 * The plugin face over the one core, against a local tenant: what the engine sends (secrets
 * wrapped, the resource named by its URN) and what it gets back.
 */

let h: Harness;
useHarnessPerTest(
  (started) => (h = started),
  () => h,
);

const WEB = DEFAULT_SEED_IDS.regularWeb;
const urn = (kind: string, name: string) => `urn:pulumi:dev::app::tenant:index:${kind}::${name}`;

describe("the plugin face", () => {
  it("finds the kind and the name in a URN, a parent's type included", () => {
    const kinds = ["ClientSettings", "EventStreamDeletion"] as const;
    expect(
      parseUrn("urn:pulumi:dev::app::my:Component$tenant:index:ClientSettings::web", kinds),
    ).toEqual({
      kind: "ClientSettings",
      name: "web",
    });
  });

  it("refuses a type it does not serve, naming the ones it serves", () => {
    expect(() => parseUrn("urn:pulumi:dev::app::tenant:index:Nope::x", ["ClientSettings"])).toThrow(
      'the tenant plugin serves tenant:index:ClientSettings; it cannot serve "tenant:index:Nope"',
    );
  });

  it("reports every failure at check, naming the property, and keeps a secret input secret", async () => {
    const face = await configuredFace(h.api);
    const checked = await face.check(
      urn("ClientSettings", "web"),
      {},
      {
        clientId: WEB,
        callbackz: [],
        clientSecret: secret("s3cret"),
        description: "d".repeat(141),
      },
    );
    expect(checked.failures).toEqual([
      // An unknown input may hold a secret: named in the reason, so that Pulumi prints no value.
      { property: "", reason: 'callbackz: is not a known property; did you mean "callbacks"?' },
      { property: "description", reason: "must be at most 140 characters (got 141)" },
    ]);
    expect(isSecret(checked.inputs.clientSecret)).toBe(true);
    expect(JSON.stringify(checked.failures)).not.toContain("s3cret");
  });

  it("keeps the stack config connection a resource records secret, credentials and all", async () => {
    const face = await configuredFace(h.api);
    const created = await face.create(urn("PushProviderSelection", "push"), { provider: "sns" });
    expect(isSecret(created.properties.stackConfigTenant)).toBe(true);
  });

  it("keeps a sensitive field secret even when the program sent it in plaintext", async () => {
    const face = await configuredFace(h.api);
    const checked = await face.check(
      urn("ClientSettings", "web"),
      {},
      { clientId: WEB, clientSecret: "plain" },
    );
    expect(checked.inputs.clientSecret).toEqual(secret("plain"));
  });

  it("creates with the settings of the Configure call and returns the remembered values as a secret", async () => {
    const face = await configuredFace(h.api);
    const created = await face.create(urn("ClientSettings", "web"), {
      clientId: WEB,
      description: "Managed",
    });
    expect(created.id).toBe(WEB);
    expect(created.properties.description).toBe("Managed");
    expect(created.properties.prior).toEqual(
      secret({ paths: [{ path: ["description"], value: "Server-rendered customer portal" }] }),
    );
    expect(Object.keys(created.properties)).not.toContain("__resourceName");
    expect(h.api.store.getClient(WEB)?.description).toBe("Managed");
  });

  it("refuses a change of thirdPartySecurityMode at diff, naming the resource, with nothing sent", async () => {
    const face = await configuredFace(h.api);
    const before = h.apiCalls();
    await expect(
      face.diff(
        urn("ClientSettings", "web"),
        WEB,
        { clientId: WEB, thirdPartySecurityMode: "strict" },
        { clientId: WEB, thirdPartySecurityMode: "permissive" },
      ),
    ).rejects.toThrow(
      `ClientSettings "web": thirdPartySecurityMode of client ${WEB} cannot change from "strict" to "permissive": the platform fixes it when the client is created. Declare "strict" or remove the property; nothing was sent.`,
    );
    expect(h.apiCalls()).toBe(before);
  });

  it("imports a client with no write, as inputs that then diff as no change", async () => {
    const face = await configuredFace(h.api);
    const imported = await face.read(urn("ClientSettings", "web"), WEB, {}, {});
    expect(h.calls(`PATCH /api/v2/clients/${WEB}`)).toBe(0);
    expect(imported.inputs).toMatchObject({ clientId: WEB, name: "Customer Portal" });
    const checked = await face.check(urn("ClientSettings", "web"), {}, imported.inputs);
    expect(checked.failures).toEqual([]);
    const diff = await face.diff(
      urn("ClientSettings", "web"),
      WEB,
      imported.properties,
      checked.inputs,
    );
    expect(diff).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  });

  it("refuses to import a client the tenant does not have, naming the resource", async () => {
    const face = await configuredFace(h.api);
    await expect(face.read(urn("ClientSettings", "web"), "missing", {}, {})).rejects.toThrow(
      'ClientSettings "web": cannot import client missing: the tenant has no client with that id',
    );
  });

  it("imports the push provider selection under the tenant's host, and only there", async () => {
    const face = await configuredFace(h.api);
    const host = new URL(h.api.domain).host;
    const imported = await face.read(urn("PushProviderSelection", "mfa"), host, {}, {});
    expect(imported).toEqual({
      id: host,
      properties: { provider: "guardian", priorProvider: secret("guardian") },
      inputs: { provider: "guardian" },
    });
    await expect(
      face.read(urn("PushProviderSelection", "mfa"), "other.example", {}, {}),
    ).rejects.toThrow(
      `PushProviderSelection "mfa": cannot import selection "other.example": its id is the tenant's host, ${host}`,
    );
  });

  it("imports an event stream only once it is gone", async () => {
    const face = await configuredFace(h.api);
    const [existing] = h.api.eventStreams;
    await expect(
      face.read(urn("EventStreamDeletion", "old"), String(existing), {}, {}),
    ).rejects.toThrow(
      `EventStreamDeletion "old": cannot import event stream ${existing}: it exists; declare the resource and run \`pulumi up\` to delete it`,
    );
    const gone = "est_0123456789012345678901";
    expect(await face.read(urn("EventStreamDeletion", "old"), gone, {}, {})).toEqual({
      id: gone,
      properties: { eventStreamId: gone },
      inputs: { eventStreamId: gone },
    });
  });

  it("refreshes with the stored inputs kept and the live values read", async () => {
    const face = await configuredFace(h.api);
    const created = await face.create(urn("ClientSettings", "web"), {
      clientId: WEB,
      description: "Managed",
    });
    h.api.store.putClient({ ...h.api.store.getClient(WEB), description: "By hand" } as never);
    await h.newCommand();
    const inputs = { clientId: WEB, description: "Managed" };
    const read = await face.read(urn("ClientSettings", "web"), WEB, created.properties, inputs);
    expect(read.inputs).toBe(inputs);
    expect(read.properties.description).toBe("By hand");
  });

  it("fails an operation of a provider given no domain with one sentence naming the setting", async () => {
    const face = new PluginFace({
      PushProviderSelection: new PushProviderSelectionProvider(),
      ClientSettings: new ClientSettingsProvider(),
      EventStreamDeletion: new EventStreamDeletionProvider(),
    });
    await face.configure({ clientId: "id", clientSecret: secret("s") });
    const saved = process.env.TENANT_DOMAIN;
    delete process.env.TENANT_DOMAIN;
    try {
      await expect(
        face.create(urn("PushProviderSelection", "mfa"), { provider: "sns" }),
      ).rejects.toThrow(
        /^PushProviderSelection "mfa": pulumi-tenant is not configured: .*tenant:domain/,
      );
    } finally {
      if (saved !== undefined) process.env.TENANT_DOMAIN = saved;
    }
  });

  it("judges the settings a provider is given, naming each, and leaves out what is not given", () => {
    const face = new PluginFace({} as never);
    expect(
      face.checkConfig({ domain: "http://tenant.example", operationTimeoutSeconds: -1 }).failures,
    ).toEqual([
      {
        property: "domain",
        reason:
          'tenant:domain "http://tenant.example" uses plain http:// to a host that is not loopback; the management API must be reached over https:// (http:// is accepted only for 127.0.0.0/8, ::1 and localhost, i.e. the local tenant API)',
      },
      {
        property: "operationTimeoutSeconds",
        reason: 'tenant:operationTimeoutSeconds must be a positive number of seconds (got "-1")',
      },
    ]);
    expect(face.checkConfig({}).failures).toEqual([]);
  });

  it("names no property for a problem at a credential, whose value Pulumi would print", () => {
    const face = new PluginFace({} as never);
    const given = { domain: "tenant.example", apiToken: "plugin-token-Qw3", clientSecret: "Zx9" };
    expect(face.checkConfig(given).failures).toEqual([
      {
        property: "",
        reason:
          "pulumi-tenant has more than one way of authenticating: tenant:apiToken and tenant:clientSecret are both set; keep exactly one of tenant:clientAssertionPrivateKey, tenant:clientSecret or tenant:apiToken",
      },
    ]);
  });

  it("judges the reserve and the ceiling a provider is given, naming each", () => {
    const face = new PluginFace({} as never);
    expect(face.checkConfig({ rateLimitReserve: 1.5, maxRequestsPerSecond: -2 }).failures).toEqual([
      {
        property: "rateLimitReserve",
        reason:
          'tenant:rateLimitReserve must be the share of the tenant\'s rate limit left to its other callers, from 0 (take everything) to below 1 (got "1.5")',
      },
      {
        property: "maxRequestsPerSecond",
        reason:
          'tenant:maxRequestsPerSecond must be a number of requests per second of at least 0.01 (one request every 100 s) (got "-2")',
      },
    ]);
    expect(face.checkConfig({ rateLimitReserve: 0, maxRequestsPerSecond: 4 }).failures).toEqual([]);
  });

  describe("with TENANT_RATE_LIMIT_RESERVE out of range", () => {
    let saved: string | undefined;
    beforeEach(() => {
      saved = process.env.TENANT_RATE_LIMIT_RESERVE;
      process.env.TENANT_RATE_LIMIT_RESERVE = "1";
    });
    afterEach(() => {
      if (saved === undefined) delete process.env.TENANT_RATE_LIMIT_RESERVE;
      else process.env.TENANT_RATE_LIMIT_RESERVE = saved;
    });

    it("reports the environment's bad reserve at CheckConfig, naming the setting, with no property", () => {
      const face = new PluginFace({} as never);
      expect(face.checkConfig({}).failures).toEqual([
        {
          property: "",
          reason:
            'tenant:rateLimitReserve must be the share of the tenant\'s rate limit left to its other callers, from 0 (take everything) to below 1 (got "1")',
        },
      ]);
    });

    it("reports it at the first resource's check only, should a resource be checked", async () => {
      const face = await configuredFace(h.api);
      const first = await face.check(urn("ClientSettings", "web"), {}, { clientId: WEB });
      const second = await face.check(urn("ClientSettings", "portal"), {}, { clientId: WEB });
      expect([first.failures.length, second.failures]).toEqual([1, []]);
    });

    it("lets a provider's own reserve hide the environment's bad one", () => {
      const face = new PluginFace({} as never);
      const failures = (given: Props) => face.checkConfig(given).failures.length;
      expect([failures({}), failures({ rateLimitReserve: 0.5 })]).toEqual([1, 0]);
    });
  });
});
