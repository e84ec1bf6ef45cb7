import * as pulumi from "@pulumi/pulumi";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Props } from "../provider/json.js";
import { startTenantApi, type TenantApi } from "../provider/local-tenant/index.js";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { ClientSettingsProvider } from "../provider/providers/client-settings.js";
import { EventStreamDeletionProvider } from "../provider/providers/event-stream-deletion.js";
import { PushProviderSelectionProvider } from "../provider/providers/push-provider-selection.js";
import { connectionInput } from "../provider/resources/registration.js";
import { stackConfig } from "./support/harness.js";

/**
 * The `tenant` input as the providers see it: each operation reaches the tenant its props name
 * (the inputs for create and update, the stored outputs for read and delete), whatever the stack
 * config says; a move to another tenant replaces; new credentials are an update that sends
 * nothing.
 */

const PORTAL = DEFAULT_SEED_IDS.regularWeb;
const STREAM = DEFAULT_SEED_IDS.webhookStream;

const push = new PushProviderSelectionProvider();
const clients = new ClientSettingsProvider();
const streams = new EventStreamDeletionProvider();

let staging: TenantApi;
let production: TenantApi;
beforeEach(async () => {
  [staging, production] = await Promise.all([startTenantApi(), startTenantApi()]);
  // No stack config: every resource below names its tenant.
  await push.configure({ config: stackConfig({}) });
});
afterEach(async () => {
  await Promise.all([staging.stop(), production.stop()]);
});

/** The `tenant` input for `api`, as its admin client, or as its read-only client. */
function connection(api: TenantApi, as: "admin" | "readOnly" = "admin"): Props {
  const credentials = as === "admin" ? api : api.readOnly;
  return {
    domain: api.domain,
    clientId: credentials.clientId,
    clientSecret: credentials.clientSecret,
  };
}

/** Inputs of each resource in `api`'s tenant, named. */
const inputs = {
  push: (api: TenantApi, as?: "admin" | "readOnly"): Props => ({
    __resourceName: "mfa-push",
    provider: "sns",
    tenant: connection(api, as),
  }),
  portal: (api: TenantApi, as?: "admin" | "readOnly"): Props => ({
    __resourceName: "portal",
    clientId: PORTAL,
    description: "managed",
    tenant: connection(api, as),
  }),
  stream: (api: TenantApi, as?: "admin" | "readOnly"): Props => ({
    __resourceName: "retired-webhook",
    eventStreamId: STREAM,
    tenant: connection(api, as),
  }),
};

describe("the tenant input as a resource registers it", () => {
  it("makes the credentials secret even when they are given as plain strings", async () => {
    const registered = connectionInput({ domain: "acme.tenants.example", apiToken: "plain-token" });
    expect(await pulumi.isSecret(registered?.apiToken as pulumi.Output<string>)).toBe(true);
    const client = connectionInput({
      domain: "acme.tenants.example",
      clientId: "cid",
      clientSecret: "plain-secret",
    });
    expect(await pulumi.isSecret(client?.clientSecret as pulumi.Output<string>)).toBe(true);
  });

  it("keeps the domain and the client id as given, so previews show them", () => {
    expect(
      connectionInput({ domain: "acme.tenants.example", clientId: "cid", clientSecret: "s" }),
    ).toMatchObject({ domain: "acme.tenants.example", clientId: "cid" });
  });
});

describe("operations with a tenant input", () => {
  it("create in the tenant the input names, not the stack config's, and keep the connection in the outputs", async () => {
    await push.configure({
      config: stackConfig({
        "tenant:domain": staging.domain,
        "tenant:clientId": staging.clientId,
        "tenant:clientSecret": staging.clientSecret,
      }),
    });
    const created = await push.create(inputs.push(production));
    expect(created).toEqual({
      id: new URL(production.domain).host,
      outs: {
        __resourceName: "mfa-push",
        provider: "sns",
        priorProvider: "guardian",
        tenant: connection(production),
      },
    });
    expect(production.store.getProvider()).toBe("sns");
    expect(staging.store.getProvider()).toBe("guardian");
    expect(staging.stats().total).toBe(0);
  });

  it("refresh and delete with the connection stored in the outputs, with no stack config at all", async () => {
    const selection = await push.create(inputs.push(production));
    const portal = await clients.create(inputs.portal(production));
    production.store.setProvider("direct");

    const read = await push.read(selection.id, selection.outs ?? {});
    expect(read.props?.provider).toBe("direct");
    expect(read.props?.tenant).toEqual(connection(production));
    const readPortal = await clients.read(portal.id, portal.outs ?? {});
    expect(readPortal.props).toMatchObject({
      description: "managed",
      tenant: connection(production),
    });

    await clients.delete(portal.id, portal.outs ?? {});
    await push.delete(selection.id, selection.outs ?? {});
    expect(production.store.getClient(PORTAL)?.description).toBe("Server-rendered customer portal");
    expect(production.store.getProvider()).toBe("guardian");
    expect(staging.stats().total).toBe(0);
  });

  it("name the resource and tenant.domain when the stored connection is not usable", async () => {
    const outs = {
      ...inputs.push(production),
      tenant: { domain: "http://tenants.example", apiToken: "t0k3n-x" },
    };
    const error = await push.read("tenants.example", outs).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toBe(
      'PushProviderSelection "mfa-push": tenant.domain "http://tenants.example" uses plain ' +
        "http:// to a host that is not loopback; the management API must be reached over " +
        "https:// (http:// is accepted only for 127.0.0.0/8, ::1 and localhost, i.e. the local " +
        "tenant API)",
    );
  });
});

describe("the budget of a tenant input", () => {
  it("tells once, naming the resource, that the more polite budget holds when its input asks for a reserve of 0", async () => {
    const lines: string[] = [];
    const write = vi.spyOn(process.stderr, "write").mockImplementation((text) => {
      lines.push(String(text));
      return true;
    });
    try {
      const takeAll = { ...connection(production), rateLimitReserve: 0 };
      await clients.create(inputs.portal(production));
      await push.create({ ...inputs.push(production), tenant: takeAll });
      await push.read(new URL(production.domain).host, {
        ...inputs.push(production),
        tenant: takeAll,
      });
    } finally {
      write.mockRestore();
    }
    expect(lines.filter((line) => line.includes("polite"))).toEqual([
      `pulumi-tenant: PushProviderSelection "mfa-push" asks ${production.domain} for rateLimitReserve 0, but others of this run keep 0.25; the more polite budget holds for all of them\n`,
    ]);
  });
});

describe("diff of the tenant input", () => {
  it.each([
    ["PushProviderSelection", true, push, inputs.push],
    ["ClientSettings", true, clients, inputs.portal],
    ["EventStreamDeletion", false, streams, inputs.stream],
  ] as const)(
    "replaces %s when tenant.domain names another tenant (delete first: %s)",
    async (_kind, deleteFirst, provider, props) => {
      const diff = await provider.diff("id", props(staging), props(production));
      expect(diff).toEqual({
        changes: true,
        replaces: expect.arrayContaining(["tenant"]),
        deleteBeforeReplace: deleteFirst,
      });
    },
  );

  it("is an update when a resource of the stack config's tenant is given it as an input", async () => {
    await push.configure({ config: stackConfig({ "tenant:domain": staging.domain }) });
    const { tenant: _, ...withoutTenant } = inputs.push(staging);
    const diff = await push.diff("id", withoutTenant, inputs.push(staging));
    expect(diff).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  });
});

describe("new credentials for the same tenant", () => {
  it.each([
    ["PushProviderSelection", push, inputs.push],
    ["ClientSettings", clients, inputs.portal],
    ["EventStreamDeletion", streams, inputs.stream],
  ] as const)(
    "are an update of %s that sends nothing to the tenant and keeps the new connection",
    async (_kind, provider, props) => {
      const created = await provider.create(props(staging));
      const rotated = props(staging, "readOnly");
      const diff = await provider.diff(created.id, created.outs ?? {}, rotated);
      expect(diff).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });

      staging.resetStats();
      const updated = await provider.update(created.id, created.outs ?? {}, rotated);
      expect(staging.stats().total).toBe(0);
      expect(updated.outs).toEqual({ ...created.outs, tenant: rotated.tenant });
    },
  );
});
