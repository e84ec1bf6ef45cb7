/**
 * `pulumi import` through the provider plugin, under the real CLI with Pulumi's YAML language
 * host: the ids the README names, an import file written by `pulumi-tenant generate
 * --import-file`, adoption with no write, and the code Pulumi generates previewing with no change.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { budget, STEP_BOUNDS_MS } from "./support/budgets.js";
import { type Stack, startStack, undoAfterEach, writesTo } from "./support/e2e.js";
import { installPlugin, usePackedPlugin } from "./support/plugin.js";
import { runStepOrThrow } from "./support/steps.js";

const undo = undoAfterEach();
const plugin = usePackedPlugin();

/** A YAML project that declares nothing yet, its plugin installed, against a local tenant. */
async function emptyYamlStack(): Promise<Stack> {
  const program = await mkdtemp(join(tmpdir(), "tenant-import-program-"));
  undo(() => rm(program, { recursive: true, force: true }));
  await writeFile(join(program, "Pulumi.yaml"), "name: tenant-import\nruntime: yaml\n");
  const stack = await startStack(program, {});
  undo(() => stack.stop());
  const first = await stack.run("preview");
  expect(first.error, first.output).toBeUndefined();
  await installPlugin(stack.project, plugin());
  return stack;
}

/** `pulumi import ARGS --yes --out FILE` in the stack's project; the code Pulumi wrote. */
async function pulumiImport(stack: Stack, args: string[]): Promise<string> {
  const out = join(stack.project.dir, "imported.yaml");
  await stack.project.cliCommand(["import", ...args, "--yes", "--out", out]);
  return readFile(out, "utf8");
}

describe("pulumi import with the plugin", () => {
  it(
    "adopts each resource by the id the README names, with no write, and the generated YAML previews with no change",
    async () => {
      const stack = await emptyYamlStack();
      const host = new URL(stack.api.domain).host;
      // The stream must be gone to be adopted as deleted.
      stack.api.store.deleteEventStream(DEFAULT_SEED_IDS.webhookStream);
      stack.api.resetStats();
      const code = [
        await pulumiImport(stack, ["tenant:index:PushProviderSelection", "mfa-push", host]),
        await pulumiImport(stack, [
          "tenant:index:ClientSettings",
          "portal",
          DEFAULT_SEED_IDS.regularWeb,
        ]),
        await pulumiImport(stack, [
          "tenant:index:EventStreamDeletion",
          "retired-webhook",
          DEFAULT_SEED_IDS.webhookStream,
        ]),
      ];
      expect(writesTo(stack.api)).toBe(0);
      const declarations = code.map((part) => part.replace(/^resources:\n/, "")).join("");
      await stack.project.editProgram((text) => `${text}resources:\n${declarations}`);
      const preview = await stack.run("preview", { expectNoChanges: true });
      expect(preview.error, preview.output).toBeUndefined();
      expect(preview.counts).toEqual({ same: 3 });
      expect(writesTo(stack.api)).toBe(0);
    },
    budget({ pulumi: 2, pulumiCommands: 8 }),
  );

  it(
    "adopts a whole tenant from the import file generate writes",
    async () => {
      const stack = await emptyYamlStack();
      const out = await mkdtemp(join(tmpdir(), "tenant-generated-"));
      undo(() => rm(out, { recursive: true, force: true }));
      await runStepOrThrow(
        process.execPath,
        [plugin().cli, "generate", "--out", out, "--import-file"],
        {
          cwd: out,
          boundMs: STEP_BOUNDS_MS.node,
          label: "pulumi-tenant generate --import-file",
          env: {
            ...process.env,
            TENANT_DOMAIN: stack.api.domain,
            TENANT_CLIENT_ID: stack.api.readOnly.clientId,
            TENANT_CLIENT_SECRET: stack.api.readOnly.clientSecret,
          },
        },
      );
      const file = JSON.parse(await readFile(join(out, "import.json"), "utf8"));
      const host = new URL(stack.api.domain).host;
      // Every client but the one whose credentials read the tenant (generate leaves it out).
      const { regularWeb, spa, strictThirdParty, admin } = DEFAULT_SEED_IDS;
      expect(
        file.resources.map((r: { type: string; id: string }) => `${r.type} ${r.id}`).sort(),
      ).toEqual(
        [
          `tenant:index:PushProviderSelection ${host}`,
          ...[regularWeb, spa, strictThirdParty, admin].map(
            (id) => `tenant:index:ClientSettings ${id}`,
          ),
        ].sort(),
      );
      stack.api.resetStats();
      const code = await pulumiImport(stack, ["--file", join(out, "import.json")]);
      expect(writesTo(stack.api)).toBe(0);
      await stack.project.editProgram((text) => text + code);
      const preview = await stack.run("preview", { expectNoChanges: true });
      expect(preview.error, preview.output).toBeUndefined();
      expect(preview.counts).toEqual({ same: 5 });
    },
    budget({ pulumi: 2, pulumiCommands: 4, node: 1 }),
  );

  it(
    "refuses to import a client the tenant does not have, naming it",
    async () => {
      const stack = await emptyYamlStack();
      await expect(
        pulumiImport(stack, ["tenant:index:ClientSettings", "ghost", "no-such-client"]),
      ).rejects.toThrow(
        'ClientSettings "ghost": cannot import client no-such-client: the tenant has no client with that id',
      );
    },
    budget({ pulumi: 1, pulumiCommands: 3 }),
  );
});
