/**
 * The program in index.ts, tested the way it will run in the pipeline: preview, up, the drift gate
 * and destroy, with Pulumi's Automation API, against a local copy of the tenant seeded from a
 * snapshot (`npx pulumi-tenant snapshot --out tenant-seed.json`, taken with read-only
 * credentials). No credentials to the real tenant, no network: the state lives in a temporary
 * folder, secrets are encrypted with a passphrase.
 *
 * Needs the `pulumi` CLI on PATH; run with `npx vitest run`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
// The package root, not `@pulumi/pulumi/automation`: that subpath is a folder, which an ES module
// cannot import (Node.js and tsc refuse it; docs/guides/testing-your-program.md).
import { automation } from "@pulumi/pulumi";
import { type LocalTenant, startLocalTenant } from "pulumi-tenant/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const PORTAL = "OOhOHam90WKZTIoUaAYPZzF1f0Wlnfa1";
const RETIRED_STREAM = "est_O84nSDdMeE4qFON6OlztEs";
const SELECTED_PROVIDER = "PUT /api/v2/guardian/factors/push-notification/selected-provider";

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
  await stack.setAllConfig(tenant.stackConfig());
}, 120_000);

afterAll(async () => {
  await stack?.workspace.removeStack("test", { force: true });
  await tenant?.stop();
  await rm(state, { recursive: true, force: true });
});

/** A change made by hand, as someone in the dashboard would: straight to the API. */
async function changeByHand(clientId: string, body: Record<string, unknown>): Promise<void> {
  const token = await fetch(`${tenant.domain}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      grant_type: "client_credentials",
      client_id: tenant.clientId,
      client_secret: tenant.clientSecret,
      audience: `${tenant.domain}/api/v2/`,
    }),
  }).then((answer) => answer.json() as Promise<{ access_token: string }>);
  const answer = await fetch(`${tenant.domain}/api/v2/clients/${clientId}`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${token.access_token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(answer.status).toBe(200);
}

describe("the tenant program", () => {
  it("previews three creates and sends nothing to the tenant", async () => {
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

  it("fails the drift gate after a change by hand, and up puts the declared value back", async () => {
    await changeByHand(PORTAL, { callbacks: ["https://evil.example.com/callback"] });
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
