import { afterEach, describe, expect, it } from "vitest";
import { startTenantApi, type TenantApi } from "../provider/local-tenant/index.js";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import type { TenantState } from "../provider/local-tenant/store.js";
import { budget } from "./support/budgets.js";
import {
  example,
  type Stack,
  startStack,
  tenantConfig,
  tenantExampleConfig,
} from "./support/e2e.js";
import type { PulumiResult } from "./support/pulumi.js";

/**
 * examples/tenant under the real pulumi CLI, its stack config moved from one local tenant to
 * another between two `up`s (docs/design/decisions.md, "A move of the stack config's tenant"): every
 * resource is replaced, the old tenant put back, the new one given the settings.
 */

const PORTAL = DEFAULT_SEED_IDS.regularWeb;
const STREAM = DEFAULT_SEED_IDS.webhookStream;
const MANAGED = "Customer portal (managed by the platform team)";

let stack: Stack | undefined;
let other: TenantApi | undefined;
afterEach(async () => {
  await stack?.stop();
  await other?.stop();
  stack = undefined;
  other = undefined;
});

function succeeded(result: PulumiResult): PulumiResult {
  expect(result.error, result.output).toBeUndefined();
  expect(result.ok).toBe(true);
  return result;
}

// Four runs: up against A, preview and up against B, destroy.
describe("a move of the stack config's tenant", { timeout: budget({ pulumi: 4 }) }, () => {
  it("replaces every resource: the old tenant is put back and the new one gets the settings", async () => {
    stack = await startStack(example("tenant"), tenantExampleConfig());
    const a = stack.api;
    const b = await startTenantApi();
    other = b;
    // The two tenants start from one seed: tell their portals apart, so that a put-back sent to
    // the wrong tenant shows.
    const portalOf = (api: TenantApi) => api.store.getClient(PORTAL) as Record<string, unknown>;
    b.store.putClient({ ...portalOf(b), description: "Tenant B's portal" } as never);
    const seededA: TenantState = a.store.snapshot();
    const providerB = b.store.getProvider();

    succeeded(await stack.run("up"));
    expect([portalOf(a).description, a.store.getProvider()]).toEqual([MANAGED, "sns"]);
    // Each resource records the stack config's connection, encrypted as the engine's copy is.
    const state = await stack.stateText();
    expect(state).toContain("stackConfigTenant");
    expect(state).not.toContain(a.clientSecret);

    const toB = { config: tenantConfig(b) };
    a.resetStats();
    const preview = succeeded(await stack.run("preview", toB));
    expect(preview.counts.replace).toBe(4);
    expect([a.stats().api, b.stats().api]).toEqual([0, 0]);

    succeeded(await stack.run("up", toB));
    // Tenant A is as it was before the first up: every resource put its values back there.
    const seededPortal = seededA.clients.find((c) => c.client_id === PORTAL);
    expect(portalOf(a)).toMatchObject({
      description: seededPortal?.description,
      callbacks: seededPortal?.callbacks,
    });
    expect(a.store.getProvider()).toBe(seededA.pushProvider);
    // Tenant B has the settings.
    expect([portalOf(b).description, b.store.getProvider()]).toEqual([MANAGED, "sns"]);
    expect(b.store.eventStreamExists(STREAM)).toBe(false);

    succeeded(await stack.run("destroy", toB));
    expect([portalOf(b).description, b.store.getProvider()]).toEqual([
      "Tenant B's portal",
      providerB,
    ]);
  });
});
