/**
 * examples/yaml, a Pulumi YAML program, under the real pulumi CLI and Pulumi's own YAML language
 * host, with the provider plugin installed from the tarball that the packed package writes, as a
 * deploy machine gets it (docs/design/plugin.md). Two local tenants: the stack config's, and a second one
 * through an explicit provider.
 */
import { describe, expect, it } from "vitest";
import { startTenantApi, type TenantApi } from "../provider/local-tenant/index.js";
import { budget } from "./support/budgets.js";
import {
  example,
  type Stack,
  startStack,
  undoAfterEach,
  usePackedPlugin,
  writesTo,
} from "./support/e2e.js";
import { installPlugin } from "./support/plugin.js";
import { expectYamlLifecycle, YAML_PARTNER, yamlConfig } from "./support/yaml-lifecycle.js";

const undo = undoAfterEach();
const plugin = usePackedPlugin();

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

describe.each([
  { cli: "3.259.0", gateExit: 7 },
  { cli: "3.139.0", gateExit: 255 },
])("the YAML program under pulumi $cli", ({ cli, gateExit }) => {
  it(
    "passes the lifecycle with the plugin from the packed package",
    async () => {
      const { stack, staging } = await yamlStack(cli);
      await expectYamlLifecycle(stack, staging, { gateExit });
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
        `ClientSettings "partner": thirdPartySecurityMode of client ${YAML_PARTNER} cannot change from "strict" to "permissive"`,
      );
      expect(writesTo(stack.api)).toBe(writes);
    },
    budget({ pulumi: 3, pulumiCommands: 1 }),
  );
});
