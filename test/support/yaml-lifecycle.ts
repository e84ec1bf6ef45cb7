/**
 * The lifecycle of examples/yaml, the Pulumi YAML program on the provider plugin, under the real
 * CLI and Pulumi's YAML language host (docs/design/plugin.md): two local tenants, the stack config's and
 * a second one through an explicit provider. Shared by the tests of each way the plugin reaches a
 * deploy machine (the packed package's tarball, the self-contained executable).
 */
import { expect } from "vitest";
import type { TenantApi } from "../../provider/local-tenant/index.js";
import { DEFAULT_SEED_IDS } from "../../provider/local-tenant/seed.js";
import { type ConfigValues, credentialTexts, type Stack } from "./e2e.js";
import { type ExportedState, isSecretValue } from "./pulumi.js";

/** The portal client the program manages in both tenants. */
export const YAML_PORTAL = DEFAULT_SEED_IDS.regularWeb;
/** The client whose `thirdPartySecurityMode` is `strict`. */
export const YAML_PARTNER = DEFAULT_SEED_IDS.strictThirdParty;

/** The program's own config for two tenants: the main one's clients, and the staging tenant. */
export function yamlConfig(staging: TenantApi): ConfigValues {
  return {
    "tenant-yaml:portalClientId": { value: YAML_PORTAL },
    "tenant-yaml:dashboardClientId": { value: DEFAULT_SEED_IDS.spa },
    "tenant-yaml:partnerClientId": { value: YAML_PARTNER },
    "tenant-yaml:staleEventStreamId": { value: DEFAULT_SEED_IDS.webhookStream },
    "tenant-yaml:stagingDomain": { value: staging.domain },
    "tenant-yaml:stagingClientId": { value: staging.clientId },
    "tenant-yaml:stagingClientSecret": { value: staging.clientSecret, secret: true },
    "tenant-yaml:stagingPortalClientId": { value: YAML_PORTAL },
  };
}

/** Every secret the two tenants' credentials hold (a private key's PEM body and DER too). */
function secretsOf(...apis: TenantApi[]): string[] {
  return apis.flatMap((api) => [...credentialTexts(api), api.readOnly.clientSecret]);
}

/**
 * Runs the YAML program's lifecycle on `stack` (its plugin installed) and asserts each step:
 * preview (six creates, no API call), up, a no-change preview calling no API, the drift gate after
 * a hand edit (exit `gateExit`: 7 from pulumi 3.226, 255 before), the repair, the gate passing,
 * no secret in the state or the output, what delete restores kept secret, and destroy putting
 * both tenants back. Every run gets `env` over the project's environment (`PATH`, say).
 * Eight runs of the stack and one other command: `budget({ pulumi: 8, pulumiCommands: 2 })`
 * with the install.
 */
export async function expectYamlLifecycle(
  stack: Stack,
  staging: TenantApi,
  { gateExit, env = {} }: { gateExit: number; env?: Record<string, string | undefined> },
): Promise<void> {
  const before = { main: stack.api.store.snapshot(), staging: staging.store.snapshot() };
  stack.api.resetStats();
  staging.resetStats();

  const preview = await stack.run("preview", { env });
  expect(preview.error, preview.output).toBeUndefined();
  expect(preview.counts).toEqual({ create: 6 });
  expect([stack.api.stats().api, staging.stats().api], "a preview calls no API").toEqual([0, 0]);

  const up = await stack.run("up", { env });
  expect(up.error, up.output).toBeUndefined();
  expect(stack.api.store.getProvider()).toBe("sns");
  expect(stack.api.store.eventStreamExists(DEFAULT_SEED_IDS.webhookStream)).toBe(false);
  expect(staging.store.getClient(YAML_PORTAL)).toMatchObject({
    description: "Customer portal, staging",
  });

  const calls = [stack.api.stats().api, staging.stats().api];
  const quiet = await stack.run("preview", { expectNoChanges: true, env });
  expect(quiet.error, quiet.output).toBeUndefined();
  expect([stack.api.stats().api, staging.stats().api], "a no-change preview calls no API").toEqual(
    calls,
  );

  const client = stack.api.store.getClient(YAML_PORTAL);
  stack.api.store.putClient({ ...client, callbacks: ["https://attacker.example/cb"] } as never);
  const gate = await stack.run("refresh", { previewOnly: true, expectNoChanges: true, env });
  expect(gate.exitCode, gate.output).toBe(gateExit);
  const repair = await stack.run("up", { args: ["--refresh"], env });
  expect(repair.error, repair.output).toBeUndefined();
  expect(stack.api.store.getClient(YAML_PORTAL)).toMatchObject({
    callbacks: ["https://portal.example.com/callback"],
  });
  const passed = await stack.run("refresh", { previewOnly: true, expectNoChanges: true, env });
  expect(passed.exitCode, passed.output).toBe(0);

  const state = await stack.stateText();
  const exported = JSON.parse(
    await stack.project.cliCommand(["stack", "export"], env),
  ) as ExportedState;
  const partner = exported.deployment.resources?.find((r) => r.urn.endsWith("::partner"));
  expect(isSecretValue(partner?.outputs?.prior), "what delete restores is secret").toBe(true);
  const exportedText = JSON.stringify(exported);
  for (const secret of secretsOf(stack.api, staging)) {
    expect(state).not.toContain(secret);
    expect(exportedText).not.toContain(secret);
    for (const run of [up, gate, repair]) expect(run.output).not.toContain(secret);
  }

  const destroy = await stack.run("destroy", { env });
  expect(destroy.error, destroy.output).toBeUndefined();
  const after = { main: stack.api.store.snapshot(), staging: staging.store.snapshot() };
  // The deleted event stream cannot come back; everything else is as it was.
  expect(after.staging).toEqual(before.staging);
  expect(after.main.clients).toEqual(before.main.clients);
  expect(after.main.pushProvider).toEqual(before.main.pushProvider);
}
