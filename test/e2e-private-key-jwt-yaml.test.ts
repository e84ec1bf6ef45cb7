/**
 * The provider plugin's login by private key JWT (docs/installation-configuration.md, "Configuration"): examples/yaml under the
 * real pulumi CLI with the plugin from the packed package, both tenants' deployment clients logging
 * in with a key: the main tenant's through the plugin's config (`tenant:clientAssertionPrivateKey`,
 * a secret), the staging tenant's through an explicit `pulumi:providers:tenant`'s inputs.
 */
import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { startTenantApi } from "../provider/local-tenant/index.js";
import { budget } from "./support/budgets.js";
import { example, startStack, undoAfterEach, usePackedPlugin } from "./support/e2e.js";
import { installPlugin } from "./support/plugin.js";
import { type ExportedState, isSecretValue } from "./support/pulumi.js";
import { expectYamlLifecycle, YAML_PORTAL, yamlConfig } from "./support/yaml-lifecycle.js";

/** The lines of a PEM's body, none of which may be printed or stored. */
const bodyLines = (pem: string) =>
  pem.split("\n").filter((line) => line !== "" && !line.startsWith("-----"));

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

describe("a private key given to an explicit provider as a secret made in the program", () => {
  it(
    "is in no output, no state and no diagnostic of a preview, an up or a refused CheckConfig",
    async () => {
      const staging = await startTenantApi({ privateKeyJwt: true });
      undo(() => staging.stop());
      const key = staging.clientAssertionPrivateKey ?? "";
      // The key reaches the program in plaintext and the program makes it a secret (YAML's
      // fn::secret, as pulumi.secret(...) in TypeScript): only the program says it is one.
      const config = { ...yamlConfig(staging), "tenant-yaml:stagingKey": { value: key } };
      const stack = await startStack(example("yaml"), config);
      undo(() => stack.stop());
      await stack.run("preview", { env: { PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true" } });
      await installPlugin(stack.project, plugin());
      await stack.project.editProgram((text) =>
        text.replace(/^config:\n/m, "config:\n  stagingKey:\n    type: string\n").replace(
          /clientSecret: \$\{stagingClientSecret\}/,
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a YAML interpolation.
          "clientAssertionPrivateKey:\n        fn::secret: ${stagingKey}",
        ),
      );
      const preview = await stack.run("preview");
      expect(preview.error, preview.output).toBeUndefined();
      const up = await stack.run("up");
      expect(up.error, up.output).toBeUndefined();
      expect(staging.store.getClient(YAML_PORTAL)).toMatchObject({
        description: "Customer portal, staging",
      });
      const exported = JSON.parse(
        await stack.project.cliCommand(["stack", "export"]),
      ) as ExportedState;
      const provider = exported.deployment.resources?.find(
        (resource) =>
          resource.type === "pulumi:providers:tenant" && resource.urn.endsWith("::staging"),
      );
      expect(
        isSecretValue(provider?.inputs?.clientAssertionPrivateKey),
        "the provider's input is a secret",
      ).toBe(true);

      // A key of the wrong kind, a secret too: CheckConfig refuses it, naming the setting.
      const ecKey = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({
        type: "pkcs8",
        format: "pem",
      }) as string;
      const refused = await stack.run("preview", {
        config: { "tenant-yaml:stagingKey": { value: ecKey } },
      });
      expect(refused.ok).toBe(false);
      expect(refused.output).toContain(
        "clientAssertionPrivateKey is an EC key; RS256 signs with an RSA private key",
      );

      const texts = {
        "the preview's output": preview.output,
        "the up's output": up.output,
        "the refused preview's output": refused.output,
        "the state": await stack.stateText(),
        "the exported stack": JSON.stringify(exported),
      };
      for (const [what, text] of Object.entries(texts)) {
        for (const line of [...bodyLines(key), ...bodyLines(ecKey)]) {
          expect(text.includes(line), `${what} holds a line of a key`).toBe(false);
        }
      }
      const destroy = await stack.run("destroy");
      expect(destroy.error, destroy.output).toBeUndefined();
    },
    budget({ pulumi: 5, pulumiCommands: 2 }),
  );
});
