/**
 * The program in index.ts, tested the way it will run in the pipeline: preview, up, the drift gate
 * and destroy, with Pulumi's Automation API, against a local copy of the tenant seeded from a
 * snapshot (`npx pulumi-tenant snapshot --out tenant-seed.json`, taken with read-only
 * credentials). No credentials to the real tenant, no network: the state lives in a temporary
 * folder, secrets are encrypted with a passphrase.
 *
 * Needs the `pulumi` CLI on PATH; run with `npx vitest run`. Each step runs the pulumi CLI, which
 * starts the program and the provider: seconds, not vitest's default 5 s, so the hooks and the
 * tests say the time they need.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
// The package root, not `@pulumi/pulumi/automation`: that subpath is a folder, which an ES module
// cannot import.
import { automation } from "@pulumi/pulumi";
import { type LocalTenant, startLocalTenant } from "pulumi-tenant/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const PORTAL = "OOhOHam90WKZTIoUaAYPZzF1f0Wlnfa1";
const RETIRED_STREAM = "est_O84nSDdMeE4qFON6OlztEs";
const SELECTED_PROVIDER = "PUT /api/v2/guardian/factors/push-notification/selected-provider";
/** What one step of the pulumi CLI may take on a slow CI machine. */
const STEP_MS = 180_000;

let tenant: LocalTenant;
let stack: automation.Stack;
let state: string;

beforeAll(async () => {
  tenant = await startLocalTenant({ seed: join(import.meta.dirname, "tenant-seed.json") });
  state = await mkdtemp(join(tmpdir(), "tenant-test-state-"));
  stack = await automation.LocalWorkspace.createOrSelectStack(
    { stackName: "test", workDir: import.meta.dirname },
    {
      envVars: { PULUMI_BACKEND_URL: `file://${state}`, PULUMI_CONFIG_PASSPHRASE: "test-only" },
      secretsProvider: "passphrase",
    },
  );
  // tenant:domain, tenant:clientId, tenant:clientSecret (a secret)
  await stack.setAllConfig(tenant.stackConfig());
}, STEP_MS);

// Also after a test that timed out or failed: stop() ends the pulumi processes still running.
afterAll(async () => {
  await tenant?.stop();
  await stack?.workspace.removeStack("test", { force: true });
  await rm(state, { recursive: true, force: true });
}, STEP_MS);

describe("the tenant program", { timeout: STEP_MS }, () => {
  it("previews four creates and sends nothing to the tenant", async () => {
    const preview = await stack.preview();
    expect(preview.changeSummary).toEqual({ create: 4 });
    expect(tenant.requests().total).toBe(0);
  });

  it("up selects SNS, sets the portal's settings and deletes the retired stream", async () => {
    await stack.up();
    expect(tenant.pushProvider()).toBe("sns");
    expect(tenant.client(PORTAL)).toMatchObject({
      callbacks: ["https://portal.example.com/callback"],
      oidc_conformant: true,
      jwt_configuration: { lifetime_in_seconds: 3600 },
      client_metadata: { owner: "platform-team", team: "identity", tier: "gold" },
    });
    expect(tenant.eventStream(RETIRED_STREAM)).toBeUndefined();
    expect(tenant.requests().writes).toEqual({
      [SELECTED_PROVIDER]: 1,
      "PATCH /api/v2/clients/:id": 1,
      "DELETE /api/v2/event-streams/:id": 1,
    });
  });

  it("passes the drift gate while nobody changed the tenant", async () => {
    const gate = await stack.previewRefresh();
    expect(gate.changeSummary).toEqual({ same: 4 });
  });

  it("fails the drift gate after an edit in the dashboard, and up puts the declared value back", async () => {
    // As someone would in the tenant's dashboard: outside the program, through the API's checks.
    await tenant.editClient(PORTAL, { callbacks: ["https://evil.example.com/callback"] });
    const gate = await stack.previewRefresh();
    expect(gate.changeSummary).toMatchObject({ update: 1 });
    await stack.up({ refresh: true });
    expect(tenant.client(PORTAL)?.callbacks).toEqual(["https://portal.example.com/callback"]);
  });

  it("destroy puts the tenant back as the snapshot had it, but the stream stays deleted", async () => {
    await stack.destroy();
    expect(tenant.pushProvider()).toBe("guardian");
    expect(tenant.client(PORTAL)).toMatchObject({
      callbacks: ["https://portal.example.com/callback", "http://localhost:3000/callback"],
      oidc_conformant: false,
      client_metadata: { team: "identity", tier: "gold" },
    });
    expect(tenant.client(PORTAL)?.client_metadata).not.toHaveProperty("owner");
    expect(tenant.eventStream(RETIRED_STREAM)).toBeUndefined();
  });
});
