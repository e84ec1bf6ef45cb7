/**
 * The provider plugin's login by private key JWT (docs/installation-configuration.md, "Configuration"): examples/yaml under the
 * real pulumi CLI with the plugin from the packed package, both tenants' deployment clients logging
 * in with a key: the main tenant's through the plugin's config (`tenant:clientAssertionPrivateKey`,
 * a secret), the staging tenant's through an explicit `pulumi:providers:tenant`'s inputs.
 */
import { describe, it } from "vitest";
import { startTenantApi } from "../provider/local-tenant/index.js";
import { budget } from "./support/budgets.js";
import { example, startStack, undoAfterEach, usePackedPlugin } from "./support/e2e.js";
import { installPlugin } from "./support/plugin.js";
import { expectYamlLifecycle, yamlConfig } from "./support/yaml-lifecycle.js";

const undo = undoAfterEach();
const plugin = usePackedPlugin();

describe("the YAML program logged in by private key JWT", () => {
  it(
    "passes the lifecycle with the plugin's config and an explicit provider's inputs",
    async () => {
      const staging = await startTenantApi({ privateKeyJwt: true });
      undo(() => staging.stop());
      const config = {
        ...yamlConfig(staging),
        "tenant-yaml:stagingClientSecret": {
          value: staging.clientAssertionPrivateKey ?? "",
          secret: true,
        },
      };
      const stack = await startStack(example("yaml"), config, { privateKeyJwt: true });
      undo(() => stack.stop());
      await stack.run("preview", { env: { PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true" } });
      await installPlugin(stack.project, plugin());
      // The staging provider proves itself with the key its config variable now holds.
      await stack.project.editProgram((text) =>
        text.replace(/clientSecret: (\$\{stagingClientSecret\})/, "clientAssertionPrivateKey: $1"),
      );
      await expectYamlLifecycle(stack, staging, { gateExit: 7 });
    },
    budget({ pulumi: 9, pulumiCommands: 2 }),
  );
});
