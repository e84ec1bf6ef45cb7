/**
 * Every write checked by its answer on the plugin face (docs/design/decisions.md, "Every write
 * checked by its answer"): examples/yaml under the real pulumi CLI with the plugin from the packed
 * package, against a tenant that keeps `mobile.ios` as stored (the `keep` quirk). The create of
 * the portal fails, is recorded with its initialization error and the priors it took before
 * writing, previews as an update, and a destroy puts the portal's description back.
 */
import { describe, expect, it } from "vitest";
import { startTenantApi } from "../provider/local-tenant/index.js";
import { budget } from "./support/budgets.js";
import { example, startStack, undoAfterEach, usePackedPlugin } from "./support/e2e.js";
import { installPlugin } from "./support/plugin.js";
import { YAML_PORTAL, yamlConfig } from "./support/yaml-lifecycle.js";

const undo = undoAfterEach();
const plugin = usePackedPlugin();

/** The portal's declaration in examples/yaml, with the line after which a property is added. */
const PORTAL_DESCRIPTION = "      description: Customer portal (managed by the platform team)\n";

describe("every write checked by its answer on the plugin face", () => {
  it(
    "records a create whose write the tenant does not hold, previews an update, and destroys back to the true prior",
    async () => {
      const staging = await startTenantApi();
      undo(() => staging.stop());
      const stack = await startStack(example("yaml"), yamlConfig(staging), {
        quirks: "keep=mobile.ios",
      });
      undo(() => stack.stop());
      await stack.run("preview", { env: { PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true" } });
      await installPlugin(stack.project, plugin());
      const portal = () => stack.api.store.getClient(YAML_PORTAL) as Record<string, unknown>;
      const before = String(portal().description);
      await stack.project.editProgram((text) =>
        text.replace(
          PORTAL_DESCRIPTION,
          `${PORTAL_DESCRIPTION}      mobile:\n        ios:\n          teamId: T1\n`,
        ),
      );
      const failed = await stack.run("up");
      expect(failed.ok).toBe(false);
      const message =
        `ClientSettings "portal": client ${YAML_PORTAL} does not hold what was sent: ` +
        'mobile.ios.team_id sent "T1", the tenant holds none.';
      expect(failed.error).toContain(message);
      expect(portal().description).toBe("Customer portal (managed by the platform team)");

      const state = await stack.project.exportState({ showSecrets: true });
      const recorded = state.deployment.resources?.find((r) => r.urn.endsWith("::portal"));
      expect(recorded?.id).toBe(YAML_PORTAL);
      expect(recorded?.initErrors?.[0]).toContain(message);
      expect(JSON.stringify(recorded?.outputs?.prior)).toContain(before);
      expect(await stack.stateText()).not.toContain(before);

      const preview = await stack.run("preview");
      expect(preview.error, preview.output).toBeUndefined();
      expect(preview.steps.map(({ name, op }) => `${name} ${op}`)).toContain("portal update");

      const destroy = await stack.run("destroy");
      expect(destroy.error, destroy.output).toBeUndefined();
      expect(portal().description).toBe(before);
    },
    budget({ pulumi: 5, pulumiCommands: 2 }),
  );
});
