import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import type { TenantState } from "../provider/local-tenant/store.js";
import { budget } from "./support/budgets.js";
import { example, type Stack, startStack, tenantExampleConfig } from "./support/e2e.js";

const PORTAL = DEFAULT_SEED_IDS.regularWeb;
const DASHBOARD = DEFAULT_SEED_IDS.spa;
const STREAM = DEFAULT_SEED_IDS.webhookStream;

let s: Stack;
let before: TenantState;
beforeEach(async () => {
  s = await startStack(example("tenant"), tenantExampleConfig());
  before = s.api.store.snapshot();
});
afterEach(async () => {
  await s.stop();
});

const portal = () => s.api.store.getClient(PORTAL) as Record<string, unknown>;
const dashboard = () => s.api.store.getClient(DASHBOARD) as Record<string, unknown>;

async function up(): Promise<void> {
  const result = await s.run("up");
  expect(result.error).toBeUndefined();
  expect(result.ok).toBe(true);
}

// Four runs of the stack at most (drift found and repaired: up, the gate, refresh, up).
describe("the tenant example through Pulumi's runtime", { timeout: budget({ pulumi: 4 }) }, () => {
  it("previews every resource as a create and sends nothing to the tenant", async () => {
    const result = await s.run("preview");
    expect(result.ok).toBe(true);
    expect(result.counts.create).toBe(4);
    expect(s.api.stats().api).toBe(0);
    expect(s.api.store.snapshot()).toEqual(before);
  });

  it("applies the program on up", async () => {
    await up();
    expect(s.api.store.getProvider()).toBe("sns");
    expect(s.api.store.eventStreamExists(STREAM)).toBe(false);
    expect(portal()).toMatchObject({
      description: "Customer portal (managed by the platform team)",
      callbacks: ["https://portal.example.com/callback"],
      // Merged member by member, as the platform does: the member the program leaves out is kept.
      jwt_configuration: { lifetime_in_seconds: 3600, secret_encoded: false },
      client_metadata: {
        team: "identity",
        tier: "gold",
        owner: "platform-team",
        costCenter: "cc-1042",
      },
    });
    expect(dashboard()).toMatchObject({
      organization_usage: "require",
      organization_require_behavior: "post_login_prompt",
      allowed_origins: ["https://dashboard.example.com"],
    });
  });

  it("previews no change and makes no API call after up", async () => {
    await up();
    s.api.resetStats();
    const result = await s.run("preview", { expectNoChanges: true });
    expect(result.ok).toBe(true);
    expect(result.changes).toBe(false);
    expect(s.api.stats().api).toBe(0);
  });

  it("finds drift made out of band on refresh, and up repairs it", async () => {
    await up();
    s.api.store.putClient({ ...portal(), callbacks: ["https://attacker.example/cb"] } as never);
    s.api.store.setProvider("guardian");

    const refreshed = await s.run("refresh", { previewOnly: true, expectNoChanges: true });
    expect(refreshed.ok).toBe(false);
    const drifted = refreshed.steps.filter((step) => step.op !== "same").map((step) => step.name);
    expect(drifted.sort()).toEqual(["mfa-push", "portal"]);

    expect((await s.run("refresh")).ok).toBe(true);
    s.api.resetStats();
    await up();
    expect(portal().callbacks).toEqual(["https://portal.example.com/callback"]);
    expect(s.api.store.getProvider()).toBe("sns");
    expect(s.writes()).toBe(2);
  });

  it("reports no drift on refresh when nothing changed", async () => {
    await up();
    const refreshed = await s.run("refresh", { previewOnly: true, expectNoChanges: true });
    expect(refreshed.ok, refreshed.output).toBe(true);
    expect(refreshed.changes).toBe(false);
  });

  it("deletes the event stream again when it comes back", async () => {
    await up();
    s.api.store.putEventStream({ id: STREAM } as never);
    expect((await s.run("refresh")).ok).toBe(true);
    await up();
    expect(s.api.store.eventStreamExists(STREAM)).toBe(false);
  });

  it("restores every prior setting on destroy", async () => {
    await up();
    const result = await s.run("destroy");
    expect(result.ok).toBe(true);
    const { eventStreams: _after, ...after } = s.api.store.snapshot();
    const { eventStreams: _before, ...expected } = before;
    expect(after).toEqual(expected);
  });

  it("keeps every secret out of the state file in plaintext", async () => {
    await up();
    const state = await s.stateText();
    expect(state).not.toBe("");
    expect(state).not.toContain(s.api.clientSecret);
    // The prior values are secret outputs: the portal's old description must not be readable.
    expect(state).not.toContain("Server-rendered customer portal");
  });
});
