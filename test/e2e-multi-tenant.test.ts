import { describe, expect, it } from "vitest";
import { startTenantApi, type TenantApi } from "../provider/local-tenant/index.js";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { budget } from "./support/budgets.js";
import {
  type ConfigValues,
  example,
  type Stack,
  type StackRunOptions,
  startStack,
  undoAfterEach,
  writesTo,
} from "./support/e2e.js";
import {
  type ExportedState,
  isSecretValue,
  type PulumiCommand,
  type PulumiResult,
  revealed,
} from "./support/pulumi.js";

/**
 * examples/multi-tenant under the real pulumi CLI: one program, two local tenants with different
 * rate limits, each resource naming its tenant with its `tenant` input. The stack config has no
 * `tenant:*` keys, so nothing reaches a tenant but through the connections the program declares
 * and the state keeps.
 */

const PORTAL = DEFAULT_SEED_IDS.regularWeb;
const DASHBOARD = DEFAULT_SEED_IDS.spa;
const ENVIRONMENTS = ["staging", "production"] as const;
type Environment = (typeof ENVIRONMENTS)[number];
/** Staging allows 2 requests per second with bursts of 2; production ten times as many. */
const RATE_LIMITS = { staging: { rate: 2, burst: 2 }, production: { rate: 20, burst: 20 } };

/** The stack config's own tenant settings, emptied: the program's tenant inputs are all there is. */
const NO_STACK_TENANT: ConfigValues = {
  "tenant:domain": { value: "" },
  "tenant:clientId": { value: "" },
  "tenant:clientSecret": { value: "" },
};

const undo = undoAfterEach();

interface Tenants {
  readonly stack: Stack;
  readonly api: Record<Environment, TenantApi>;
  /** The program's config: each environment's connection (secret as a secret) and clients. */
  config: ConfigValues;
  run(command: PulumiCommand, options?: StackRunOptions): Promise<PulumiResult>;
}

/** The config the program reads for one environment, connecting as `credentials`. */
function environmentConfig(
  environment: Environment,
  api: TenantApi,
  credentials: { clientId: string; clientSecret: string } = api,
): ConfigValues {
  return {
    [`multi-tenant:${environment}Domain`]: { value: api.domain },
    [`multi-tenant:${environment}ClientId`]: { value: credentials.clientId },
    [`multi-tenant:${environment}ClientSecret`]: { value: credentials.clientSecret, secret: true },
    [`multi-tenant:${environment}PortalClientId`]: { value: PORTAL },
    [`multi-tenant:${environment}DashboardClientId`]: { value: DASHBOARD },
  };
}

/** Two local tenants with their rate limits, and the example's stack pointed at both. */
async function startTenants(): Promise<Tenants> {
  const stack = await startStack(example("multi-tenant"), {}, { rateLimit: RATE_LIMITS.staging });
  undo(() => stack.stop());
  const production = await startTenantApi({ rateLimit: RATE_LIMITS.production });
  undo(() => production.stop());
  // The two tenants start from the same seed (same client ids): make their portals differ, so
  // that a read served from the wrong tenant would restore the wrong description on destroy.
  const portal = production.store.getClient(PORTAL);
  production.store.putClient({ ...portal, description: "Production customer portal" } as never);
  const api = { staging: stack.api, production };
  const tenants: Tenants = {
    stack,
    api,
    config: {
      ...environmentConfig("staging", api.staging),
      ...environmentConfig("production", api.production),
    },
    run: (command, options = {}) =>
      stack.run(command, {
        ...options,
        config: { ...tenants.config, ...NO_STACK_TENANT, ...options.config },
      }),
  };
  return tenants;
}

async function succeeds(result: Promise<PulumiResult>): Promise<PulumiResult> {
  const done = await result;
  expect(done.error, done.output).toBeUndefined();
  expect(done.ok).toBe(true);
  return done;
}

const opsByName = (result: PulumiResult) =>
  Object.fromEntries(result.steps.map((step) => [step.name, step.op]));

/** The tenant resources of an exported state. */
const tenantResources = (state: ExportedState) =>
  (state.deployment.resources ?? []).filter((r) => r.type.includes("dynamic/tenant:"));

// Four runs of the stack at most, and four `stack export`s.
describe("the multi-tenant example through Pulumi's runtime", {
  timeout: budget({ pulumi: 4, pulumiCommands: 4 }),
}, () => {
  it("previews every resource of both tenants as a create and calls neither", async () => {
    const t = await startTenants();
    const result = await succeeds(t.run("preview"));
    expect(result.counts.create).toBe(6);
    expect(t.api.staging.stats().total).toBe(0);
    expect(t.api.production.stats().total).toBe(0);
  });

  it("gives each tenant its own settings, each tenant's calls within its own rate limit", async () => {
    const t = await startTenants();
    await succeeds(t.run("up"));
    for (const environment of ENVIRONMENTS) {
      const { store } = t.api[environment];
      expect(store.getProvider()).toBe("sns");
      expect(store.getClient(PORTAL)).toMatchObject({
        description: "Customer portal (managed by the platform team)",
        callbacks: ["https://portal.example.com/callback"],
        client_metadata: { owner: "platform-team", environment },
      });
      expect(store.getClient(DASHBOARD)).toMatchObject({
        allowed_origins: ["https://dashboard.example.com"],
      });
      expect(t.api[environment].stats().byStatus["429"]).toBeUndefined();
    }
    // More calls than the slow tenant's burst: its own pacing, not luck, kept it within its limit.
    expect(t.api.staging.stats().api).toBeGreaterThan(RATE_LIMITS.staging.burst);
  });

  it("stores each resource's connection, the credentials encrypted and the domain shown, through a refresh", async () => {
    const t = await startTenants();
    await succeeds(t.run("up"));
    const afterUp = [
      await t.stack.project.exportState(),
      await t.stack.project.exportState({ showSecrets: true }),
    ];
    await succeeds(t.run("refresh", { skipPreview: true }));
    const afterRefresh = [
      await t.stack.project.exportState(),
      await t.stack.project.exportState({ showSecrets: true }),
    ];

    for (const [stored, decrypted] of [afterUp, afterRefresh]) {
      expect(tenantResources(decrypted as ExportedState)).toHaveLength(6);
      for (const resource of tenantResources(decrypted as ExportedState)) {
        const name = resource.urn.slice(resource.urn.lastIndexOf("::") + 2);
        const api = t.api[name.split("-")[0] as Environment];
        expect(revealed(resource.outputs?.tenant)).toEqual({
          domain: api.domain,
          clientId: api.clientId,
          clientSecret: api.clientSecret,
        });
      }
      for (const resource of tenantResources(stored as ExportedState)) {
        for (const bag of [resource.inputs, resource.outputs]) {
          const tenant = bag?.tenant as Record<string, unknown>;
          expect(isSecretValue(tenant.clientSecret)).toBe(true);
          expect(isSecretValue(tenant.domain)).toBe(false);
        }
      }
    }
  });

  it("keeps both tenants' credentials out of the state, the output and the serialized providers", async () => {
    const t = await startTenants();
    const secrets = ENVIRONMENTS.map((environment) => t.api[environment].clientSecret);
    const texts: string[] = [];
    const providers: string[] = [];
    for (const command of ["preview", "up", "refresh", "destroy"] satisfies PulumiCommand[]) {
      const result = await succeeds(t.run(command));
      const stateText = await t.stack.stateText();
      texts.push(result.output, ...result.diagnostics, stateText);
      if (command === "up") {
        const state = await t.stack.project.exportState();
        providers.push(...tenantResources(state).map((r) => String(r.inputs?.__provider)));
      }
    }
    expect(texts.join("\n")).toContain(t.api.staging.domain);
    expect(providers).toHaveLength(6);
    for (const secret of secrets) {
      for (const text of [...texts, ...providers]) expect(text).not.toContain(secret);
    }
  });

  it("replaces a tenant's resources when its domain changes, the old tenant restored first", async () => {
    const t = await startTenants();
    const before = t.api.staging.store.snapshot();
    await succeeds(t.run("up"));
    const next = await startTenantApi();
    undo(() => next.stop());

    const moved = await succeeds(t.run("up", { config: environmentConfig("staging", next) }));

    expect(opsByName(moved)).toEqual({
      "staging-mfa-push": "replace",
      "staging-portal": "replace",
      "staging-dashboard": "replace",
      "production-mfa-push": "same",
      "production-portal": "same",
      "production-dashboard": "same",
    });
    // The old tenant's settings are put back before the new tenant's are applied.
    const operations = moved.events
      .map(
        (event) => event.resourcePreEvent as { metadata: { op: string; urn: string } } | undefined,
      )
      .filter((pre) => pre?.metadata.urn.endsWith("::staging-mfa-push"))
      .map((pre) => pre?.metadata.op);
    expect(operations).toEqual(["delete-replaced", "replace", "create-replacement"]);
    expect(t.api.staging.store.snapshot()).toEqual(before);
    expect(next.store.getProvider()).toBe("sns");
    expect(next.store.getClient(PORTAL)).toMatchObject({
      client_metadata: { owner: "platform-team", environment: "staging" },
    });
  });

  it("rotates a tenant's credentials with one up that sends nothing to it", async () => {
    const t = await startTenants();
    await succeeds(t.run("up"));
    const staging = t.api.staging;
    const admin = staging.store.getClient(staging.clientId);
    const rotated = "rotated-client-secret-8Uj2Lq0Wm4";
    staging.store.putClient({ ...admin, client_secret: rotated } as never);
    // The old secret is revoked: refresh, which uses the stored connection, cannot get a token.
    const stale = await t.run("refresh", { skipPreview: true });
    expect(stale.ok).toBe(false);
    expect(stale.error).toMatch(/getting an access token for client \w+ from .*failed with 401/);

    staging.resetStats();
    t.config = {
      ...t.config,
      ...environmentConfig("staging", staging, {
        clientId: staging.clientId,
        clientSecret: rotated,
      }),
    };
    const up = await succeeds(t.run("up"));

    expect(opsByName(up)).toMatchObject({
      "staging-mfa-push": "update",
      "staging-portal": "update",
      "staging-dashboard": "update",
      "production-portal": "same",
    });
    expect(staging.stats().total).toBe(0);
    expect(writesTo(staging)).toBe(0);
    const refreshed = await succeeds(t.run("refresh", { previewOnly: true }));
    expect(refreshed.changes).toBe(false);
    expect(staging.stats().token).toBeGreaterThan(0);
    expect(await t.stack.stateText()).not.toContain(rotated);
  });

  it("refreshes and destroys with the stored connections once the program's config is gone", async () => {
    const t = await startTenants();
    const before = {
      staging: t.api.staging.store.snapshot(),
      production: t.api.production.store.snapshot(),
    };
    await succeeds(t.run("up"));
    t.config = {};

    const refreshed = await succeeds(t.run("refresh"));
    expect(refreshed.changes).toBe(false);
    await succeeds(t.run("destroy"));

    expect(t.api.staging.store.snapshot()).toEqual(before.staging);
    expect(t.api.production.store.snapshot()).toEqual(before.production);
  });
});
