/**
 * examples/yaml, a Pulumi YAML program, under the real pulumi CLI and Pulumi's own YAML language
 * host, with the provider plugin installed from the tarball that the packed package writes, as a
 * deploy machine gets it (docs/plugin.md). Two local tenants: the stack config's, and a second one
 * through an explicit provider.
 */
import { describe, expect, it } from "vitest";
import { startTenantApi, type TenantApi } from "../provider/local-tenant/index.js";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { budget } from "./support/budgets.js";
import {
  type ConfigValues,
  example,
  type Stack,
  startStack,
  undoAfterEach,
  usePackedPlugin,
  writesTo,
} from "./support/e2e.js";
import { installPlugin } from "./support/plugin.js";
import { type ExportedState, isSecretValue } from "./support/pulumi.js";

const PORTAL = DEFAULT_SEED_IDS.regularWeb;
const PARTNER = DEFAULT_SEED_IDS.strictThirdParty;

const undo = undoAfterEach();
const plugin = usePackedPlugin();

/** The program's own config for two tenants: the main one's clients, and the staging tenant. */
function yamlConfig(staging: TenantApi): ConfigValues {
  return {
    "tenant-yaml:portalClientId": { value: PORTAL },
    "tenant-yaml:dashboardClientId": { value: DEFAULT_SEED_IDS.spa },
    "tenant-yaml:partnerClientId": { value: PARTNER },
    "tenant-yaml:staleEventStreamId": { value: DEFAULT_SEED_IDS.webhookStream },
    "tenant-yaml:stagingDomain": { value: staging.domain },
    "tenant-yaml:stagingClientId": { value: staging.clientId },
    "tenant-yaml:stagingClientSecret": { value: staging.clientSecret, secret: true },
    "tenant-yaml:stagingPortalClientId": { value: PORTAL },
  };
}

/** The example's stack under `cliVersion`, its plugin installed, and the staging tenant. */
async function yamlStack(cliVersion: string): Promise<{ stack: Stack; staging: TenantApi }> {
  const staging = await startTenantApi();
  undo(() => staging.stop());
  const stack = await startStack(example("yaml"), yamlConfig(staging), {}, { cliVersion });
  undo(() => stack.stop());
  // The project is made at its first run: a preview, then the plugin goes into its PULUMI_HOME.
  await stack.run("preview", { env: { PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true" } });
  await installPlugin(stack.project, plugin());
  return { stack, staging };
}

/** Every secret the two tenants' credentials hold. */
function secretsOf(...apis: TenantApi[]): string[] {
  return apis.flatMap((api) => [api.clientSecret, api.readOnly.clientSecret]);
}

describe.each([
  { cli: "3.259.0", gateExit: 7 },
  { cli: "3.139.0", gateExit: 255 },
])("the YAML program under pulumi $cli", ({ cli, gateExit }) => {
  it(
    "passes the lifecycle with the plugin from the packed package",
    async () => {
      const { stack, staging } = await yamlStack(cli);
      const before = { main: stack.api.store.snapshot(), staging: staging.store.snapshot() };
      stack.api.resetStats();
      staging.resetStats();

      const preview = await stack.run("preview");
      expect(preview.error, preview.output).toBeUndefined();
      expect(preview.counts).toEqual({ create: 6 });
      expect([stack.api.stats().api, staging.stats().api], "a preview calls no API").toEqual([
        0, 0,
      ]);

      const up = await stack.run("up");
      expect(up.error, up.output).toBeUndefined();
      expect(stack.api.store.getProvider()).toBe("sns");
      expect(stack.api.store.eventStreamExists(DEFAULT_SEED_IDS.webhookStream)).toBe(false);
      expect(staging.store.getClient(PORTAL)).toMatchObject({
        description: "Customer portal, staging",
      });

      const calls = [stack.api.stats().api, staging.stats().api];
      const quiet = await stack.run("preview", { expectNoChanges: true });
      expect(quiet.error, quiet.output).toBeUndefined();
      expect(
        [stack.api.stats().api, staging.stats().api],
        "a no-change preview calls no API",
      ).toEqual(calls);

      const client = stack.api.store.getClient(PORTAL);
      stack.api.store.putClient({ ...client, callbacks: ["https://attacker.example/cb"] } as never);
      const gate = await stack.run("refresh", { previewOnly: true, expectNoChanges: true });
      expect(gate.exitCode, gate.output).toBe(gateExit);
      const repair = await stack.run("up", { args: ["--refresh"] });
      expect(repair.error, repair.output).toBeUndefined();
      expect(stack.api.store.getClient(PORTAL)).toMatchObject({
        callbacks: ["https://portal.example.com/callback"],
      });
      const passed = await stack.run("refresh", { previewOnly: true, expectNoChanges: true });
      expect(passed.exitCode, passed.output).toBe(0);

      const state = await stack.stateText();
      const exported = JSON.parse(
        await stack.project.cliCommand(["stack", "export"]),
      ) as ExportedState;
      const partner = exported.deployment.resources?.find((r) => r.urn.endsWith("::partner"));
      expect(isSecretValue(partner?.outputs?.prior), "what delete restores is secret").toBe(true);
      for (const secret of secretsOf(stack.api, staging)) {
        expect(state).not.toContain(secret);
        for (const run of [up, gate, repair]) expect(run.output).not.toContain(secret);
      }

      const destroy = await stack.run("destroy");
      expect(destroy.error, destroy.output).toBeUndefined();
      const after = { main: stack.api.store.snapshot(), staging: staging.store.snapshot() };
      // The deleted event stream cannot come back; everything else is as it was.
      expect(after.staging).toEqual(before.staging);
      expect(after.main.clients).toEqual(before.main.clients);
      expect(after.main.pushProvider).toEqual(before.main.pushProvider);
      console.log(`lifecycle passed: YAML, pulumi v${cli}, plugin tarball ${plugin().bytes} B`);
    },
    budget({ pulumi: 8, pulumiCommands: 2 }),
  );
});

describe("the YAML program's refusals, under the lock's CLI", () => {
  it(
    "fails at preview on a bad input, naming the property, with nothing sent",
    async () => {
      const { stack, staging } = await yamlStack("3.259.0");
      stack.api.resetStats();
      const preview = await stack.run("preview", {
        config: { "tenant-yaml:staleEventStreamId": { value: "est_short" } },
      });
      expect(preview.ok).toBe(false);
      expect(preview.error).toContain(
        "tenant:index:EventStreamDeletion resource 'retired-webhook': property eventStreamId value {est_short} has a problem: must be exactly 26 characters (got 9)",
      );
      expect([stack.api.stats().api, staging.stats().api]).toEqual([0, 0]);
    },
    budget({ pulumi: 2, pulumiCommands: 1 }),
  );

  it(
    "fails at preview on a change of thirdPartySecurityMode, with nothing sent",
    async () => {
      const { stack } = await yamlStack("3.259.0");
      const up = await stack.run("up");
      expect(up.error, up.output).toBeUndefined();
      const writes = writesTo(stack.api);
      await stack.project.editProgram((text) =>
        text.replace("thirdPartySecurityMode: strict", "thirdPartySecurityMode: permissive"),
      );
      const preview = await stack.run("preview");
      expect(preview.ok).toBe(false);
      expect(preview.error).toContain(
        `ClientSettings "partner": thirdPartySecurityMode of client ${PARTNER} cannot change from "strict" to "permissive"`,
      );
      expect(writesTo(stack.api)).toBe(writes);
    },
    budget({ pulumi: 3, pulumiCommands: 1 }),
  );
});
