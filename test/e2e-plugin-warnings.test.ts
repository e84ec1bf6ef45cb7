/**
 * The provider plugin's warnings reach the CLI as warnings (docs/design/decisions.md, "What a resource
 * owns"): examples/yaml under the real pulumi CLI with the plugin from the packed package, a
 * declared `redirectionPolicy` the portal did not have removed from the program.
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

describe("the plugin's warnings", () => {
  it(
    "warns at preview that removing a redirectionPolicy the client did not have leaves it as it is",
    async () => {
      const staging = await startTenantApi();
      undo(() => staging.stop());
      const stack = await startStack(example("yaml"), yamlConfig(staging));
      undo(() => stack.stop());
      await stack.run("preview", { env: { PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true" } });
      await installPlugin(stack.project, plugin());
      expect(stack.api.store.getClient(YAML_PORTAL)?.redirection_policy).toBeUndefined();
      await stack.project.editProgram((text) =>
        text.replace(
          PORTAL_DESCRIPTION,
          `${PORTAL_DESCRIPTION}      redirectionPolicy: allow_always\n`,
        ),
      );
      const up = await stack.run("up");
      expect(up.error, up.output).toBeUndefined();

      await stack.project.editProgram((text) =>
        text.replace("      redirectionPolicy: allow_always\n", ""),
      );
      const preview = await stack.run("preview");
      expect(preview.error, preview.output).toBeUndefined();
      const warnings = preview.events.flatMap((event) => {
        const diagnostic = event.diagnosticEvent as
          | { severity?: string; message?: string }
          | undefined;
        return diagnostic?.severity === "warning" ? [String(diagnostic.message).trim()] : [];
      });
      expect(warnings).toContain(
        `ClientSettings "portal": redirectionPolicy of client ${YAML_PORTAL} is left as it is: ` +
          "the client had no redirectionPolicy before this resource set it, and the API cannot " +
          "be told to have none (it takes no null or empty value there)",
      );
    },
    budget({ pulumi: 4, pulumiCommands: 2 }),
  );
});
